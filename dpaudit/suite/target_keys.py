"""The ``mechanism`` / ``sampler`` / ``claim`` keys of a suite's ``[[audit]]`` table.

* ``mechanism = "laplace"`` — a registered mechanism (``dpaudit list``, plug-in families
  included);
* ``mechanism = "package.module:Class"`` or ``"path/to/file.py:Class"`` — a
  :class:`~dpaudit.mechanisms.base.Mechanism` subclass in user code; a relative path (and a
  top-level module) resolves against the suite file's directory;
* ``claim = { … }`` with a mechanism — the claim the audit judges it against instead of its
  own (a library's reported budget, ``{ accountant = "opacus:rdp", … }``, a stated ε):
  :mod:`dpaudit.claims.tables`, :mod:`dpaudit.mechanisms.stated_claim`;
* ``sampler = "samplers.py:noisy_count"`` with ``claim = { notion = "pure-dp", epsilon = 1.0 }``
  — a plain function ``(dataset, n, rng, **params) -> n outputs``
  (:mod:`dpaudit.mechanisms.sampler`); it needs explicit ``[[audit.pairs]]``; ``params`` and
  ``sweep`` are its keyword arguments, and a claim key left out of ``claim`` is read from
  them (``claim = { notion = "pure-dp" }`` with ``sweep = { epsilon = [0.5, 1, 2] }``).

:func:`parse_target` checks all of this at parse time (after a syntax pass that imports
nothing, :mod:`dpaudit.suite.code_loading`) — the code is imported, a class must be
a Mechanism subclass built with the audit's params, a sampler must accept three positional
arguments and the audit's params as keywords — and raises :class:`SuiteError` naming the file, the audit and the key.  Whether a
sampler returns ``n`` outputs is checked when the audit runs (an ``error`` record of that audit).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from dpaudit.util.hints import did_you_mean
from dpaudit.mechanisms.callbacks import CallbackError
from dpaudit.mechanisms.references import CodeReferenceError, load_reference
from dpaudit.suite.code_loading import checks, code_deferred
from dpaudit.spec.fields import Where, read_string
from dpaudit.suite.fields import SuiteError
from dpaudit.claims.tables import claim_notions
from dpaudit.suite.targets import (MECHANISM, SAMPLER, ClaimTableError, NotAMechanismError,
                                   Target, check_sampler, claim_template)


def parse_target(table: dict, where: Where, suite_path: str) -> Target:
    """The audit's :class:`Target` from its ``mechanism`` or ``sampler`` (and ``claim``) keys."""
    base_dir = str(Path(suite_path).resolve().parent)
    if "sampler" in table:
        if "mechanism" in table:
            raise where.error("sampler", "either mechanism or sampler, not both",
                              table["sampler"])
        reference = read_string(table, "sampler", where, required=True)
        if ":" not in reference:
            raise where.error("sampler", "module:function or path/file.py:function",
                              reference)
        if "claim" not in table:
            raise where.error("claim", "the sampler's claim, e.g. { notion = \"pure-dp\", "
                                       "epsilon = 1.0 } (required with sampler)")
        try:
            claim = claim_template(table["claim"])
        except ValueError as exc:
            raise where.error("claim", f"a claim with notion one of "
                                       f"{', '.join(claim_notions())} ({exc})",
                              table["claim"]) from None
        if not isinstance(table.get("pairs"), list):
            raise where.error("pairs", "explicit [[audit.pairs]] (a sampler has no worst-case "
                                       "pairs)", table.get("pairs", "worst-case"))
        try:
            if not code_deferred():  # in USER_CODE_ONLY mode too: a sampler is user code
                check_sampler(load_reference(reference, base_dir), reference)
        except (CodeReferenceError, ValueError) as exc:
            raise where.error("sampler", f"a function (dataset, n, rng, **params) -> n "
                                         f"outputs ({exc})", reference) from None
        return Target(reference, SAMPLER, base_dir, claim)
    reference = read_string(table, "mechanism", where, required=True)
    claim = None
    if "claim" in table:  # a claim stated for the mechanism replaces its own
        try:
            claim = claim_template(table["claim"])
        except ValueError as exc:
            raise where.error("claim", f"a claim table with notion one of "
                                       f"{', '.join(claim_notions())} ({exc})",
                              table["claim"]) from None
    return Target(reference, MECHANISM, base_dir if ":" in reference else "", claim)


def check_mechanism(target: Target, params: dict, where: Where, at: str = "") -> None:
    """Unknown mechanism, code that cannot be loaded, parameters it rejects or a claim it
    cannot state → SuiteError (at parse time, not at run time)."""
    from dpaudit.mechanisms.registry import mechanism_names

    if (target.kind == MECHANISM and target.obj is None and ":" not in target.reference
            and checks(target)):
        names = mechanism_names()
        if target.reference not in names:
            raise where.error("mechanism", f"a registered mechanism"
                                           f"{did_you_mean(target.reference, names, n=3)} (see "
                                           f"`dpaudit list`), or module:Class or "
                                           f"path/file.py:Class", target.reference)
    if not checks(target):  # the syntax pass builds no user code; the second, only user code
        return
    try:
        mech = target.build(params)
        mech.claim()
    except (CodeReferenceError, NotAMechanismError) as exc:
        raise where.error("mechanism", f"a loadable Mechanism subclass ({exc})",
                          target.reference) from None
    except ClaimTableError as exc:
        raise where.error("claim", f"a claim the sampler's parameters complete{at} ({exc})",
                          params) from None
    except CallbackError as exc:
        raise where.error(target.kind, f"code whose callbacks return what they must{at} "
                                       f"({exc})", target.reference) from None
    except Exception as exc:  # any rejection of the parameters is a malformed suite
        raise where.error("params", f"parameters {target.reference!r} accepts{at} "
                                    f"({_parameter_hint(target, exc)})", params) from None


def check_audit_code(audit, where: Where) -> None:
    """The checks of an audit that need its code built, in every route (a suite row, the API,
    ``dpaudit check``): the mechanism builds with the params of every audit point and states
    its claim; an audit with ``alphas`` has a claim with a Rényi curve.

    Raises:
      SuiteError: naming ``where``, the key and — in a sweep — the value that fails.
    """
    from dpaudit.claims import has_renyi_claim

    target, params, sweep = audit.target, audit.params, audit.sweep
    if sweep is None:
        check_mechanism(target, params, where)
    else:
        for i, value in enumerate(sweep.values):
            check_mechanism(target, {**params, sweep.parameter: value},
                            where, f" at sweep value {sweep.label(i)}")
    if audit.alphas and checks(target):
        first = params if sweep is None else {**params, sweep.parameter: sweep.values[0]}
        claim = target.build(first).claim()
        if not has_renyi_claim(claim):
            raise where.error("alphas", f"a mechanism with a Rényi claim (the claim of "
                                        f"{audit.mechanism} is {claim.describe()}, which has "
                                        f"no rdp(α))", list(audit.alphas))


def _parameter_hint(target: Target, exc: Exception) -> str:
    """The exception's text, with "did you mean" for an unexpected keyword argument of a class
    whose signature names its parameters (declared parameters say it themselves)."""
    text = str(exc)
    match = re.search(r"unexpected keyword argument '([^']+)'", text)
    if not match or "did you mean" in text or target.kind != MECHANISM:
        return text
    try:
        cls = target.obj if isinstance(target.obj, type) else (
            target._load() if ":" in target.reference else None)
        if cls is None:
            from dpaudit.mechanisms.registry import get_mechanism_class
            cls = get_mechanism_class(target.reference)
        names = list(inspect.signature(cls).parameters)
    except Exception:  # noqa: BLE001 - a hint only
        return text
    return text + did_you_mean(match.group(1), names)


__all__ = ["SuiteError", "check_audit_code", "check_mechanism", "parse_target"]
