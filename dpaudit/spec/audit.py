"""One audit, as every route states it: :class:`AuditSpec`, and the one reader of its keys.

A suite's ``[[audit]]`` row, the Python API's keyword arguments (:func:`dpaudit.audit_mechanism`,
:func:`dpaudit.audit_sampler`, the pytest fixture) and ``dpaudit check``'s flags all state the
same things under the same names — :data:`AUDIT_KEYS` — and are read by the same function,
:func:`read_audit`, into an :class:`AuditSpec`: the same defaults, the same checks, the same
message for the same mistake (naming where it came from: the suite file and its audit, or the
API call).  A new key is a row of :data:`AUDIT_KEYS`, a field of :class:`AuditSpec` and its
reader here; the routes pass it through.

What the audit audits — the ``mechanism``, ``sampler`` and stated ``claim`` keys, which name or
hold code — is read by each route's own way of finding code (a suite file resolves references
against its directory under the project's trust policy; the API takes objects) into a
:class:`~dpaudit.suite.targets.Target`, given to :func:`read_audit`.  The checks that need the
code built (the parameters it accepts, a Rényi claim for ``alphas``) are the suite layer's
(:func:`dpaudit.suite.target_keys.check_audit_code`), run by every route.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from dpaudit.spec.audit_keys import (PairSpec, parse_floating_point, parse_pairs, parse_replay,
                                     parse_representation, parse_search)
from dpaudit.spec.coverage import FAIL, SearchBudget
from dpaudit.spec.fields import (MAX_GRID_VALUES, Sweep, Where, delta_value, is_int,
                                 is_number, parse_sweep, read_min_samples, read_samples,
                                 read_string)
from dpaudit.spec.kinds import DEFAULT_KIND, known_kinds
from dpaudit.spec.stopping_keys import STOPPING_KEYS, parse_stopping
from dpaudit.stats.sequential import StoppingRule
from dpaudit.util.hints import did_you_mean

EXPECTATIONS = ("consistent", "violation")
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SAMPLES = 200_000
DEFAULT_SEED = 0

#: the keys of one audit, in every route (a suite row, the API, ``dpaudit check``), with the
#: keys that say what is audited (read by each route: :mod:`dpaudit.suite.target_keys`)
AUDIT_KEYS: dict[str, str] = {
    "name": "unique within the suite (the API: the mechanism's name)",
    "kind": "the audit procedure: pair (default), exact-curve, or a plug-in's",
    "options": "the procedure's own options",
    "params": "the mechanism's (or sampler's) keyword arguments",
    "delta": "a δ in [0, 1) or a list of them: where ε(δ) is certified (default: the "
             "claim's δ — 0 for a claim finite there)",
    "alphas": "Rényi orders α > 1 at which the claim's RDP curve is audited",
    "pairs": '"worst-case" or explicit neighbouring pairs',
    "samples": "per side (the budget of each test)",
    "min_samples": "the floor of samples under --profile quick",
    "sweep": "one audit point per value of one parameter",
    "expect": '"consistent" or "violation" (a list with a sweep)',
    "exact_points": "extra exact values of a swept parameter for the figure",
    "note": "free text",
    "distinguisher": "the black-box distinguisher (auto, statistics, …)",
    "white_box": "add the likelihood-ratio test where the mechanism has a log-density",
    "search": "the pair search of the dataset space: true, false or a budget table",
    "representation": "read the outputs' float64 representation (default: by code)",
    "floating_point": 'how a float64-representation finding gates: "fail" (default) or "warn"',
    "replay": 'the grey-box replay of the code on every pair with its randomness held fixed: '
              '"fail" (default: a finding fails the audit), "warn" or "off"',
    "sequential": "draw in looks and stop when decided (default true)",
    "power": "the power target, a multiple of the claim (default 1.1), or false",
    "require_power": "fail an underpowered certificate (default false)",
}
#: the keys that say what the audit audits (each route reads them its own way)
TARGET_KEYS = ("mechanism", "sampler", "claim")


@dataclass(frozen=True)
class AuditSpec:
    """One audit.  ``pairs`` is ``"worst-case"`` or a tuple of :class:`PairSpec`; the fields
    are the keys of :data:`AUDIT_KEYS` (``deltas`` for ``delta``, ``stopping`` for the three
    stopping keys), ``index`` its position in its suite, ``mechanism`` the reference of what it
    audits and ``target`` the :class:`~dpaudit.suite.targets.Target` that builds it."""

    index: int
    name: str
    mechanism: str
    params: dict = field(default_factory=dict)
    deltas: tuple[float, ...] = (0.0,)
    #: ``delta`` was left out: each point audits at its claim's δ
    #: (:func:`dpaudit.claims.audit_delta.claim_audit_delta`; ``deltas`` is the placeholder)
    delta_from_claim: bool = False
    target: Any = None  # None: the registered mechanism named ``mechanism``
    pairs: str | tuple[PairSpec, ...] = "worst-case"
    samples: int = DEFAULT_SAMPLES
    expect: str = "consistent"
    note: str = ""
    alphas: tuple[float, ...] = ()
    distinguisher: str = "auto"
    white_box: bool = True
    sweep: Sweep | None = None
    expects: tuple[str, ...] = ()
    exact_points: int = 0
    min_samples: int | None = None  # floor of samples under a scaled-down profile
    search: SearchBudget | None = SearchBudget()  # None: no pair search (dpaudit.spec.coverage)
    representation: bool | None = None  # None: representation_default(mechanism)
    floating_point: str = FAIL  # a floating-point-only violation fails, or warns (coverage)
    replay: str = FAIL  # a grey-box replay finding fails, warns, or no replay (coverage)
    stopping: StoppingRule | None = None  # None: the suite's (dpaudit.spec.stopping_keys)
    kind: str = DEFAULT_KIND  # the audit procedure (dpaudit.audit.procedures)
    options: dict = field(default_factory=dict)  # the procedure's own options (its check())

    def keys(self) -> dict[str, Any]:
        """The audit as its :data:`AUDIT_KEYS` (Python values): :func:`read_audit` of them, with
        this audit's target, gives this audit back — how the API re-checks an AuditSpec it is
        handed, and what ``dpaudit check`` could write as a suite row."""
        from dataclasses import asdict

        out: dict[str, Any] = {"name": self.name, "kind": self.kind,
                               "options": dict(self.options), "params": dict(self.params),
                               "pairs": self.pairs,
                               "samples": self.samples, "note": self.note,
                               "alphas": list(self.alphas),
                               "distinguisher": self.distinguisher,
                               "white_box": self.white_box,
                               "search": False if self.search is None else {
                                   k: v for k, v in asdict(self.search).items()
                                   if v is not None}}
        if not self.uses_claim_delta:
            out["delta"] = list(self.deltas)
        if self.sweep is not None:
            out["sweep"] = {self.sweep.parameter: list(self.sweep.values)}
            out["expect"] = list(self.expects)
            out["exact_points"] = self.exact_points
        else:
            out["expect"] = self.expect
        if self.min_samples is not None:
            out["min_samples"] = self.min_samples
        if self.representation is not None:
            out["representation"] = self.representation
        if self.floating_point != FAIL:
            out["floating_point"] = self.floating_point
        if self.replay != FAIL:
            out["replay"] = self.replay
        if self.stopping is not None:
            out.update(sequential=self.stopping.sequential,
                       power=False if self.stopping.power is None else self.stopping.power,
                       require_power=self.stopping.require_power)
        return out

    @property
    def uses_claim_delta(self) -> bool:
        """Whether each point is audited at its claim's δ: ``delta`` was left out and
        ``deltas`` is still the placeholder (a spec given other deltas, e.g. by
        :func:`dataclasses.replace`, audits those)."""
        return self.delta_from_claim and self.deltas == (0.0,)

    def points(self) -> list[tuple[int | None, dict, str]]:
        """(sweep index or None, mechanism parameters, expectation) of every audit point."""
        if self.sweep is None:
            return [(None, dict(self.params), self.expect)]
        return [(i, {**self.params, self.sweep.parameter: v}, self.expects[i])
                for i, v in enumerate(self.sweep.values)]


def _deltas(table: dict, where: Where) -> tuple[float, ...]:
    raw = table.get("delta")
    if raw is None:  # left out: the claim's δ, resolved per point when the plan builds it
        return (0.0,)
    if not isinstance(raw, (list, tuple)):
        return (delta_value(raw, where, "delta"),)
    if not raw:
        raise where.error("delta", "a number in [0, 1) or a non-empty list of them", raw)
    if len(raw) > MAX_GRID_VALUES:
        raise where.error("delta", f"at most {MAX_GRID_VALUES} values", len(raw))
    deltas = tuple(delta_value(d, where, "delta") for d in raw)
    if len(set(deltas)) != len(deltas):
        raise where.error("delta", "a list of distinct values", list(raw))
    return deltas


def _alphas(table: dict, where: Where) -> tuple[float, ...]:
    raw = table.get("alphas", [])
    if isinstance(raw, (list, tuple)) and len(raw) > MAX_GRID_VALUES:
        raise where.error("alphas", f"at most {MAX_GRID_VALUES} values", len(raw))
    if not isinstance(raw, (list, tuple)) or not all(
            is_number(a) and 1 < a < float("inf") for a in raw):
        raise where.error("alphas", "a list of Rényi orders α > 1 (finite)", raw)
    return tuple(float(a) for a in raw)


def _expectations(table: dict, where: Where, sweep: Sweep | None) -> tuple[str, tuple]:
    expect = table.get("expect", "consistent")
    if isinstance(expect, (list, tuple)):
        if sweep is None:
            raise where.error("expect", "one of 'consistent', 'violation' (a list needs a "
                                        "sweep)", expect)
        if len(expect) != len(sweep.values) or any(e not in EXPECTATIONS for e in expect):
            raise where.error("expect", f"'consistent', 'violation' or a list of them with "
                                        f"one entry per swept value ({len(sweep.values)})",
                              expect)
        expects = tuple(expect)
        return ("violation" if "violation" in expects else "consistent"), expects
    if expect not in EXPECTATIONS:
        raise where.error("expect", f"one of {', '.join(repr(e) for e in EXPECTATIONS)}"
                                    f"{did_you_mean(expect, EXPECTATIONS)}", expect)
    return expect, (() if sweep is None else (expect,) * len(sweep.values))


def _pairs(table: dict, where: Where):
    value = table.get("pairs", "worst-case")
    if isinstance(value, tuple) and value and all(isinstance(p, PairSpec) for p in value):
        return value  # the API's pairs, already PairSpec (dpaudit.audit.single.as_pairs)
    return parse_pairs(value, where)


def read_audit(table: dict, where: Where, *, index: int, read_target: Callable[[], Any],
               default_samples: int, default_stopping: StoppingRule = StoppingRule(),
               default_name: str | None = None) -> AuditSpec:
    """The :class:`AuditSpec` of ``table`` — a suite row, or the keyword arguments of an API
    call — auditing what ``read_target()`` returns (the route's reading of the
    :data:`TARGET_KEYS`, called once the name, kind and options are read, so that the first
    problem reported is the same in every route).  Keys outside :data:`AUDIT_KEYS` and
    :data:`TARGET_KEYS` are the caller's to refuse; every key here is checked.  Without
    ``default_name`` the ``name`` key is required (a suite row).

    Raises:
      SpecError: a key of the wrong type or value (the message names ``where`` and the key).
    """
    from dpaudit.distinguish.distinguisher import distinguisher_names

    if default_name is None:
        name = read_string(table, "name", where, required=True)
    else:
        name = read_string(table, "name", where, default=default_name) or default_name
    kind = table.get("kind", DEFAULT_KIND)
    kinds = known_kinds()
    if kind not in kinds:
        raise where.error("kind", "one of " + ", ".join(map(repr, kinds))
                          + (did_you_mean(kind, kinds) if isinstance(kind, str) else ""), kind)
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise where.error("options", f"a table of options of the {kind!r} audit", options)
    target = read_target()
    params = table.get("params", {})
    if not isinstance(params, dict):
        raise where.error("params", "a table of mechanism parameters, e.g. { epsilon = 1.0 }",
                          params)
    deltas = _deltas(table, where)
    delta_from_claim = "delta" not in table or table["delta"] is None
    pairs = _pairs(table, where)
    samples = read_samples(table, "samples", where, default_samples)
    min_samples = read_min_samples(table, where, samples)
    sweep = None
    if "sweep" in table:
        sweep = parse_sweep(table["sweep"], where)
        if sweep.parameter in params:
            raise where.error("sweep", f"a parameter not also given in params "
                                       f"({sweep.parameter!r} is in both)", table["sweep"])
    expect, expects = _expectations(table, where, sweep)
    exact_points = table.get("exact_points", 0)
    if not is_int(exact_points) or not 0 <= exact_points <= 1000:
        raise where.error("exact_points", "an integer between 0 and 1000", exact_points)
    if exact_points and sweep is None:
        raise where.error("exact_points", "a sweep (exact_points only adds values of a swept "
                                          "parameter)", exact_points)
    note = read_string(table, "note", where)
    alphas = _alphas(table, where)
    distinguisher = table.get("distinguisher", "auto")
    allowed = list(distinguisher_names(selectable=True))
    if distinguisher not in allowed:
        raise where.error("distinguisher", "one of " + ", ".join(map(repr, allowed))
                          + did_you_mean(distinguisher, allowed)
                          + " (the white-box audit is controlled by white_box)", distinguisher)
    white_box = table.get("white_box", True)
    if not isinstance(white_box, bool):
        raise where.error("white_box", "true or false", white_box)
    search = parse_search(table, where)
    representation = parse_representation(table, where)
    floating_point = parse_floating_point(table, where)
    replay = parse_replay(table, where)
    stopping = (parse_stopping(table, where, default_stopping)
                if STOPPING_KEYS & set(table) else None)
    return AuditSpec(index=index, name=name, mechanism=target.reference, params=dict(params),
                     deltas=deltas, delta_from_claim=delta_from_claim, pairs=pairs,
                     samples=samples, expect=expect, note=note,
                     alphas=alphas, distinguisher=distinguisher, white_box=white_box,
                     sweep=sweep, expects=expects, exact_points=exact_points, target=target,
                     min_samples=min_samples, search=search, representation=representation,
                     floating_point=floating_point, replay=replay, stopping=stopping, kind=kind,
                     options=dict(options))


__all__ = ["AUDIT_KEYS", "DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_SEED", "EXPECTATIONS",
           "TARGET_KEYS", "AuditSpec", "PairSpec", "read_audit"]
