"""Every accountant by name, and the one function that builds an accountant's claim.

``accountant_claim(name, **params)`` and ``claim_from_spec(spec)`` are what a suite's
``claim = { accountant = "opacus:gdp", noise_multiplier = 1.0, sample_rate = 0.1, steps = 10 }``
table, the CLI and the API's ``claim=`` go through: the name is looked up in
:data:`ACCOUNTANTS`, the parameters read by
:meth:`~.parameters.AccountingParameters.from_spec`, the accountant checked against them
(library installed, sampler and relation analysed) and the claim returned with the library's
version.  Every failure is one :class:`~.parameters.AccountantError` line.

TF Privacy is not listed: its ``compute_dp_sgd_privacy_statement`` reports dp_accounting's
RDP and PLD accountants (listed), and tensorflow-privacy 0.9.0 cannot install beside dpaudit
(it pins dp-accounting 0.4.3, numpy < 2 and TensorFlow).
"""

from __future__ import annotations

from dpaudit.claims.accountants import dp_accounting_accountants, opacus_accountants
from dpaudit.claims.accountants import other_accountants
from dpaudit.claims.accountants.base import Accountant, AccountantClaim
from dpaudit.claims.accountants.parameters import AccountantError, AccountingParameters

#: name -> accountant, in the order reports list them
ACCOUNTANTS: dict[str, Accountant] = {
    a.name: a for a in (*opacus_accountants.ACCOUNTANTS,
                        *dp_accounting_accountants.ACCOUNTANTS,
                        *other_accountants.ACCOUNTANTS)}


def get_accountant(name: str) -> Accountant:
    """The accountant called ``name``, or an AccountantError listing the known names."""
    try:
        return ACCOUNTANTS[name]
    except (KeyError, TypeError):
        raise AccountantError(f"unknown accountant {name!r}; known: "
                              f"{', '.join(ACCOUNTANTS)}") from None


def accountant_claim(name: str, params: AccountingParameters | None = None,
                     **spec) -> AccountantClaim:
    """The claim "ε(δ) as accountant ``name`` reports it" for the run described by ``params``
    or by the keyword table ``spec`` (module docstring)."""
    accountant = get_accountant(name)
    if params is None:
        params = AccountingParameters.from_spec(spec)
    elif spec:
        raise AccountantError("give the parameters as params= or as keywords, not both")
    accountant.check(params)
    return AccountantClaim(accountant=accountant, params=params, version=accountant.version())


def claim_from_spec(spec: dict) -> AccountantClaim:
    """:func:`accountant_claim` of a plain table holding ``accountant`` and the parameters."""
    if not isinstance(spec, dict) or "accountant" not in spec:
        raise AccountantError("an accountant claim is a table with 'accountant' (one of "
                              f"{', '.join(ACCOUNTANTS)}) and the run's parameters")
    rest = {k: v for k, v in spec.items() if k != "accountant"}
    return accountant_claim(spec["accountant"], **rest)


__all__ = ["ACCOUNTANTS", "accountant_claim", "claim_from_spec", "get_accountant"]
