"""Claims written as tables: ``{ notion = "pure-dp", epsilon = 1.0 }`` → a :class:`Claim`.

A suite's ``claim = { … }`` key, the Python API's ``claim={…}`` argument and ``dpaudit check``
all state a claim as a table whose ``notion`` names a row of this module's table, one per claim
class, so every claim dpaudit holds can be stated the same way:

=====================  ==========================================================================
notion                 keys
=====================  ==========================================================================
``pure-dp``            ``epsilon``                                         :class:`PureDP`
``approx-dp``          ``epsilon``, ``delta``                              :class:`ApproxDP`
``zcdp``               ``rho``                                             :class:`ZCDP`
``gdp``                ``mu``                                              :class:`GDP`
``tcdp``               ``rho``, ``omega``                                  :class:`TCDP`
``rdp``                ``curve`` (sympy text in ``alpha``), ``values``,    :class:`RDP`
                       ``alpha_min``, ``alpha_max``
``privacy-profile``    ``profile`` (sympy text in ``epsilon``), ``values`` :class:`PrivacyProfile`
``all-of``             ``claims`` (an array of claim tables)               :class:`AllOf`
``accountant``         ``accountant`` (``"opacus:rdp"``, …) and the run:   an accountant's claim
                       ``noise_multiplier``, ``sample_rate`` (or
                       ``batch_size`` + ``dataset_size``), ``steps`` (or
                       ``epochs``), ``relation``, ``sampler``
=====================  ==========================================================================

An accountant's table may leave out ``notion`` (``{ accountant = "opacus:gdp", … }``), and the
run parameters it leaves out are read from the audit's parameters when they are there (the
DP-SGD family's ``noise_multiplier``, ``steps`` …).  Keys that say one thing two ways are
*alternatives* (the number of steps: ``steps`` or ``epochs``; the rate: ``sample_rate`` or
``batch_size``): a table that gives one of them inherits none of the others, and of a group
the params hold several of, the first is inherited; a parameter whose value is None (left
unset) is never inherited.

A row's *numbers* (``epsilon``, ``rho``, …) may be left out of the table and read from the
audit's parameters (:func:`claim_from_table` ``params``), so ``{ notion = "pure-dp" }`` with a
sweep over ``epsilon`` claims each swept value.  A plug-in adds a notion without editing
dpaudit — :func:`register_claim_table`, or an entry point in the ``dpaudit.claims`` group whose
value names a :class:`ClaimTable` — which is how library accountants are stated
(``{ notion = "accountant", … }``).

Every problem is a :class:`ClaimTableError` (a ``ValueError``) naming the notion and the key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from dpaudit.claims.base import Claim
from dpaudit.util.plugins import EntryPointRows

#: the entry-point group of plug-in claim tables
ENTRY_POINT_GROUP = "dpaudit.claims"


class ClaimTableError(ValueError):
    """A claim table that names no known notion, has unknown or missing keys, or values the
    claim rejects."""


@dataclass(frozen=True)
class ClaimTable:
    """How one notion's table becomes its claim.

    Attributes:
      notion: the table's ``notion``.
      numbers: keys whose values are numbers and may come from the audit's parameters.
      optional: further keys the table may give (any JSON value; checked by ``build``).
      build: ``build(values) -> Claim`` with every number given (and the optional keys that
        were); raises ``ValueError``/``TypeError`` on a value the claim rejects.
      doc: one line for the docs and error messages.
      inherited: optional keys that, when the table leaves them out, are taken from the
        audit's parameters where those have them (an accountant's noise multiplier, a sweep's
        steps).
      alternatives: groups of inherited keys that state one quantity two ways, in order of
        preference: a group the table gives a key of is not inherited, and of a group the
        params hold several keys of only the first is (:func:`inherited_values`).
    """

    notion: str
    numbers: tuple[str, ...]
    build: Callable[[dict], Claim]
    optional: tuple[str, ...] = ()
    doc: str = ""
    inherited: tuple[str, ...] = ()
    alternatives: tuple[tuple[str, ...], ...] = ()

    def group(self, key: str) -> tuple[str, ...]:
        """The alternatives of ``key`` (itself included; ``(key,)`` when it has none)."""
        return next((g for g in self.alternatives if key in g), (key,))

    @property
    def keys(self) -> tuple[str, ...]:
        return self.numbers + self.optional


def _number(notion: str, key: str, value, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ClaimTableError(f"claim key {key!r} of a {notion} claim must be a number, got "
                              f"{value!r}" + ("" if source == "claim" else f" (from {source})"))
    return float(value)


def _curve_claim(cls_name: str, symbol: str):
    def build(values: dict) -> Claim:
        from dpaudit.claims import notions

        curve = values.get(symbol)
        if not isinstance(curve, str):
            raise ValueError(f"{symbol!r} must be a sympy expression as text, got {curve!r}")
        extra = values.get("values", {})
        if not isinstance(extra, dict):
            raise ValueError(f"'values' must be a table of numbers, got {extra!r}")
        kwargs: dict[str, Any] = {"values": extra}
        if cls_name == "RDP":
            lo, hi = values.get("alpha_min", 1.0), values.get("alpha_max", math.inf)
            kwargs["alpha_range"] = (lo, hi)
            return notions.RDP(curve=curve, **kwargs)
        return notions.PrivacyProfile(profile=curve, **kwargs)
    return build


def _all_of(values: dict) -> Claim:
    from dpaudit.claims.notions import AllOf

    parts = values.get("claims")
    if not isinstance(parts, list) or not parts:
        raise ValueError(f"'claims' must be a non-empty array of claim tables, got {parts!r}")
    return AllOf(claims=tuple(claim_from_table(p) for p in parts))


def _accountant(values: dict) -> Claim:
    from dpaudit.claims.accountants.registry import claim_from_spec

    return claim_from_spec(values)


#: an accountant's run parameters (dpaudit.claims.accountants.parameters.SPEC_KEYS)
_ACCOUNTANT_KEYS = ("accountant", "noise_multiplier", "sample_rate", "batch_size",
                    "dataset_size", "steps", "epochs", "relation", "sampler")


def _simple(cls_name: str, fields: dict[str, str]):
    def build(values: dict) -> Claim:
        from dpaudit.claims import notions

        return getattr(notions, cls_name)(**{fields[k]: v for k, v in values.items()})
    return build


_TABLES: dict[str, ClaimTable] = {t.notion: t for t in (
    ClaimTable("pure-dp", ("epsilon",), _simple("PureDP", {"epsilon": "epsilon"}),
               doc="ε-DP"),
    ClaimTable("approx-dp", ("epsilon", "delta"),
               _simple("ApproxDP", {"epsilon": "epsilon", "delta": "delta"}), doc="(ε, δ)-DP"),
    ClaimTable("zcdp", ("rho",), _simple("ZCDP", {"rho": "rho"}), doc="ρ-zCDP"),
    ClaimTable("gdp", ("mu",), _simple("GDP", {"mu": "mu"}), doc="μ-Gaussian DP"),
    ClaimTable("tcdp", ("rho", "omega"), _simple("TCDP", {"rho": "rho", "omega": "omega"}),
               doc="(ρ, ω)-truncated CDP"),
    ClaimTable("rdp", (), _curve_claim("RDP", "curve"),
               optional=("curve", "values", "alpha_min", "alpha_max"),
               doc="an RDP curve ε(α) (sympy text in alpha)"),
    ClaimTable("privacy-profile", (), _curve_claim("PrivacyProfile", "profile"),
               optional=("profile", "values"), doc="a privacy profile δ(ε)"),
    ClaimTable("all-of", (), _all_of, optional=("claims",),
               doc="every one of several claims"),
    ClaimTable("accountant", (), _accountant, optional=_ACCOUNTANT_KEYS,
               inherited=_ACCOUNTANT_KEYS[1:],
               alternatives=(("steps", "epochs"), ("sample_rate", "batch_size")),
               doc="ε(δ) as a privacy library's accountant reports it for a training run "
                   "(dpaudit.claims.accountants)"),
)}


def register_claim_table(table: ClaimTable) -> ClaimTable:
    """Add a notion's table (a plug-in's, an accountant's).

    Raises:
      ValueError: not a ClaimTable, or its notion is taken by another table.
    """
    if not isinstance(table, ClaimTable) or not table.notion:
        raise ValueError(f"{table!r} is not a ClaimTable with a notion")
    held = _TABLES.get(table.notion)
    if held is not None and held != table:
        raise ValueError(f"claim notion {table.notion!r} is already taken")
    _TABLES[table.notion] = table
    return table


_PLUGINS = EntryPointRows(ENTRY_POINT_GROUP, "notion", register_claim_table)


def claim_notions() -> tuple[str, ...]:
    """Every notion a claim table may name, built-ins first."""
    _PLUGINS.load()
    return tuple(_TABLES)


def claim_table(notion) -> ClaimTable:
    """The table of ``notion``.

    Raises:
      ClaimTableError: an unknown notion (the message lists the known ones).
    """
    if notion not in _TABLES:
        _PLUGINS.load()
    found = _TABLES.get(notion) if isinstance(notion, str) else None
    if found is None:
        from dpaudit.util.hints import did_you_mean

        known = list(_TABLES)
        raise ClaimTableError(f"claim notion must be one of {', '.join(known)}, got "
                              f"{notion!r}{did_you_mean(notion, known)}")
    return found


def check_claim_table(table) -> ClaimTable:
    """The table's :class:`ClaimTable`, after checking its notion, its keys and that the
    numbers it gives are numbers (the keys it leaves out may come from params later).

    Raises:
      ClaimTableError: not a table, unknown notion, unknown keys, or a number that is not one.
    """
    if not isinstance(table, dict):
        raise ClaimTableError(f"expected a claim table such as {{ notion = \"pure-dp\", "
                              f"epsilon = 1.0 }}, got {table!r}")
    row = claim_table(_notion(table))
    unknown = sorted(set(table) - {"notion"} - set(row.keys))
    if _notion(table) != table.get("notion"):
        unknown = sorted(set(unknown) - {"accountant"})
    if unknown:
        from dpaudit.util.hints import did_you_mean

        raise ClaimTableError(f"a {row.notion} claim takes the keys notion, "
                              f"{', '.join(row.keys)}; got {', '.join(map(repr, unknown))}"
                              f"{did_you_mean(unknown[0], row.keys)}")
    for key in set(table) & set(row.numbers):
        _number(row.notion, key, table[key], "claim")
    return row


def _notion(table: dict):
    """A table's notion; ``{ accountant = "…", … }`` without one is an accountant's."""
    if "notion" not in table and "accountant" in table:
        return "accountant"
    return table.get("notion")


def is_complete(table: dict) -> bool:
    """Whether a (checked) table gives every number of its notion and nothing it inherits
    from the params is left out."""
    row = claim_table(_notion(table))
    return set(row.numbers) <= set(table) and not (set(row.inherited) - set(table)
                                                   and row.inherited)


def inherited_values(row: ClaimTable, table: dict, params: dict) -> dict:
    """The keys of ``row.inherited`` that ``table`` leaves out, read from ``params``: a key
    whose group of alternatives the table gives a member of is skipped, a value None is
    skipped, and of one group only the first key present is taken."""
    out: dict = {}
    for key in row.inherited:
        group = row.group(key)
        if any(k in table for k in group) or params.get(key) is None:
            continue
        if not any(params.get(k) is not None for k in group[:group.index(key)]):
            out[key] = params[key]
    return out


def claim_from_table(table, params: dict | None = None) -> Claim:
    """The claim of ``table`` (a :class:`Claim` is returned as it is), a number the table
    leaves out read from ``params``.

    Raises:
      ClaimTableError: as :func:`check_claim_table`; a number in neither the table nor
        ``params``; or values the claim rejects.
    """
    if isinstance(table, Claim):
        return table
    row = check_claim_table(table)
    params = dict(params or {})
    missing = [k for k in row.numbers if k not in table and k not in params]
    if missing:
        raise ClaimTableError(f"a {row.notion} claim needs {', '.join(row.numbers)}: give "
                              f"{', '.join(missing)} in the claim table or in the audit's "
                              f"params")
    values = {k: (_number(row.notion, k, table[k], "claim") if k in table
                  else _number(row.notion, k, params[k], "params")) for k in row.numbers}
    values.update({k: table[k] for k in row.optional if k in table})
    values.update(inherited_values(row, table, params))
    try:
        return row.build(values)
    except ClaimTableError:
        raise
    except (TypeError, ValueError) as exc:
        raise ClaimTableError(f"bad {row.notion} claim {values}: {exc}") from None


__all__ = ["ClaimTable", "ClaimTableError", "ENTRY_POINT_GROUP", "check_claim_table",
           "claim_from_table", "claim_notions", "claim_table", "inherited_values",
           "is_complete", "register_claim_table"]
