"""Audit suites: TOML files that say what to audit, with which pairs, samples and confidence.

A suite file is parsed with :mod:`tomllib` into a frozen :class:`Suite` of :class:`AuditSpec`
entries.  Parsing is strict: an unknown key, a value of the wrong type, an unknown mechanism,
parameters the mechanism rejects, an ``expect`` outside ``{"consistent", "violation"}``, a δ
outside [0, 1), fewer than 1000 samples or a duplicate audit name raise :class:`SuiteError`,
whose message names the file, the audit (by name, or by index when it has none), the key and
what was expected (with "did you mean" for a misspelt key, mechanism, parameter,
distinguisher or class name).  A typo must never pass silently.  Every bad audit (and series)
of a file is reported at once: the error's first line counts them and each follows on a line
of its own (:attr:`SuiteError.problems`); the file is then an error as a whole — none of its
audits runs until every one is fixed, so a run never silently shrinks.

Format::

    [suite]                          # optional table
    name = "classic"                 # default: the file's stem
    confidence = 0.95                # family-wise, over every certificate in this file
    family_size = 64                 # optional: split the error budget 1 − confidence into
                                     # this many equal shares, one per test, whatever the
                                     # file plans (at most this many tests); adding an audit
                                     # then leaves every other number unchanged.  Default:
                                     # the number of tests the file plans
    samples = 200000                 # per side; default for the audits below
    seed = 20261122                  # default 0
    memory_limit = "16GB"            # optional: refuse a task whose estimated peak memory
                                     # exceeds this (default 4 GiB; dpaudit.audit.memory)
    requires = ["diffprivlib"]       # optional: libraries that must import, else the suite
                                     # is skipped (dpaudit.suite.requires)

    [[audit]]
    name = "laplace-eps1"            # required, unique within the file
    kind = "pair"                    # the audit procedure: "pair" (default: the two-sample
                                     # audit of neighbouring pairs), "exact-curve" (the claim
                                     # against each pair's exact or bracketed curve, no
                                     # sampling), or a plug-in's (dpaudit.audit.procedures)
    options = {}                     # the procedure's own options (none for "pair")
    mechanism = "laplace"            # a name from `dpaudit list`, or "package.module:Class",
                                     # or "path/file.py:Class" (relative to this file);
                                     # or instead: sampler = "file.py:fn" and
                                     # claim = { notion = "pure-dp", epsilon = 1.0 }
                                     # (see dpaudit.suite.target_keys)
    params = { epsilon = 1.0 }       # keyword arguments of the mechanism (default {})
    delta = 0.0                      # a number or a list of numbers in [0, 1) (default 0.0);
                                     # a list is a full-curve audit of ε(δ) on that grid
                                     # (at most MAX_GRID_VALUES = 1000 values, as alphas)
    alphas = [2.0, 4.0]              # optional Rényi orders: audit the claim's RDP curve too
    distinguisher = "auto"           # auto | statistics | logistic | boosting | projection
    white_box = true                 # also run the white-box likelihood-ratio audit when the
                                     # mechanism has log_density (default true)
    pairs = "worst-case"             # default: the mechanism's worst_case_pairs(); or
                                     # an array of tables, see below
    search = true                    # default: also certify `keep` pairs found by a search
                                     # of the mechanism's dataset space (tests of the
                                     # family); false, or { candidates = 16, keep = 2,
                                     # screen_samples = 20000 } (dpaudit.spec.coverage)
    representation = true            # read the outputs' float64 representation; default:
                                     # on for user code and library adapters, off for
                                     # dpaudit's own paper families (dpaudit.spec.coverage)
    samples = 200000                 # optional per-audit override (>= 1000)
    min_samples = 100000             # optional: floor of samples under --profile quick,
                                     # in [1000, samples] (default none)
    expect = "consistent"            # or "violation" (default "consistent"); with a sweep,
                                     # also a list with one expectation per swept value
    note = "free text"               # optional
    sweep = { steps = [0, 10, 100] } # optional: audit one point per value of ONE mechanism
                                     # parameter (not also in params); or a range
                                     # { steps = { start = 0, stop = 100, num = 11,
                                     #   spacing = "linear" } } ("log": geometric, start > 0;
                                     # integer start/stop give integer values)
    exact_points = 40                # optional (sweeps only): also evaluate the exact ε (and
                                     # the claim) at this many extra values of the swept
                                     # parameter, for the ε-over-sweep figure (default 0)

    # explicit neighbouring pairs instead of "worst-case":
    [[audit.pairs]]
    name = "one-record-changed"      # default "pair-<i>"; unique within the audit
    d0 = [0.0]
    d1 = [1.0]
    description = "optional text"

The suite's family counts ``keep`` searched tests for every point whose mechanism has a
dataset space (with ``family_size`` fixed, leave room for them).

A sweep expands into one *audit point* per value: the mechanism built with that value, its
pairs, δs and αs, judged against its own expectation; every (point, pair) certificate is a
member of the suite's Bonferroni family, so the whole grid is covered by the suite's
confidence.  Records carry ``sweep = {"parameter", "value", "index"}`` and the report draws ε
over the swept parameter (claimed ε, certified lower bounds, exact ε).

Closed-form series (no sampling, nothing certified) for figures::

    [[series]]
    name = "figure-1"                # required, unique among the series
    mechanism = "sgld"
    params = { n = 1149019 }
    quantity = "separation"          # a name the mechanism's series() method knows
    sweep = { steps = { start = 0, stop = 70000000, num = 81 } }   # required, as above
    delta = 0.01                     # optional: report the claim's ε at this δ too
    options = { target_epsilon = 1.6 }   # optional keyword arguments of series()
    note = "free text"

Every (audit, pair) is one curve certificate — black-box, plus a white-box one when the
mechanism has a log-density — covering all of the audit's δ and α values at once; a suite of m
curve certificates is one family, and each is taken at confidence ``1 − (1 − confidence)/m``
(see :mod:`dpaudit.audit.plan`).
Datasets of explicit pairs are checked by the mechanism (``validate_dataset``) when the audit
runs, so a bad dataset makes that one audit an ``error`` while the others still run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from dpaudit.claims import has_renyi_claim
from dpaudit.spec.coverage import SearchBudget
from dpaudit.util.hints import did_you_mean
from dpaudit.suite.fields import (MAX_GRID_VALUES, MAX_SWEEP_VALUES, MIN_SAMPLES, SuiteError,
                                  Sweep, Where, check_keys, combined_error, delta_value, is_int,
                                  is_number,
                                  parse_sweep, read_min_samples, read_samples, read_string)
from dpaudit.util.sizes import SIZE_FORMAT, parse_memory_size
from dpaudit.suite.audit_keys import (PairSpec, parse_pairs, parse_representation,
                                      parse_search)
from dpaudit.suite.requires import check_requires
from dpaudit.suite.series_keys import SeriesSpec, parse_series as _parse_series
from dpaudit.suite.stopping_keys import STOPPING_KEYS, parse_stopping
from dpaudit.stats.sequential import StoppingRule
from dpaudit.suite.target_keys import check_mechanism, parse_target
from dpaudit.suite.toml_file import read_toml
from dpaudit.suite.targets import Target
from dpaudit.spec.kinds import DEFAULT_KIND, known_kinds

EXPECTATIONS = ("consistent", "violation")
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SAMPLES = 200_000
DEFAULT_SEED = 0

_TOP_KEYS = {"suite", "audit", "series"}
_SUITE_KEYS = {"name", "confidence", "family_size", "samples", "seed", "description",
               "requires", "memory_limit"} | STOPPING_KEYS
_AUDIT_KEYS = {"name", "kind", "options", "mechanism", "sampler", "claim", "params", "delta", "pairs", "samples", "expect", "note",
               "min_samples", "alphas", "distinguisher", "white_box", "sweep", "exact_points",
               "search", "representation"} | STOPPING_KEYS



@dataclass(frozen=True)
class AuditSpec:
    """One ``[[audit]]`` entry.  ``pairs`` is ``"worst-case"`` or a tuple of :class:`PairSpec`."""

    index: int
    name: str
    mechanism: str
    params: dict = field(default_factory=dict)
    deltas: tuple[float, ...] = (0.0,)
    target: "Target | None" = None  # None: the registered mechanism named ``mechanism``
    pairs: str | tuple[PairSpec, ...] = "worst-case"
    samples: int = DEFAULT_SAMPLES
    expect: str = "consistent"
    note: str = ""
    alphas: tuple[float, ...] = ()
    distinguisher: str = "auto"
    white_box: bool = True
    sweep: "Sweep | None" = None
    expects: tuple[str, ...] = ()
    exact_points: int = 0
    min_samples: int | None = None  # floor of samples under a scaled-down profile
    search: SearchBudget | None = SearchBudget()  # None: no pair search (dpaudit.spec.coverage)
    representation: bool | None = None  # None: representation_default(mechanism)
    stopping: StoppingRule | None = None  # None: the suite's (dpaudit.suite.stopping_keys)
    kind: str = DEFAULT_KIND  # the audit procedure (dpaudit.audit.procedures)
    options: dict = field(default_factory=dict)  # the procedure's own options (its check())

    def points(self) -> list[tuple[int | None, dict, str]]:
        """(sweep index or None, mechanism parameters, expectation) of every audit point."""
        if self.sweep is None:
            return [(None, dict(self.params), self.expect)]
        return [(i, {**self.params, self.sweep.parameter: v}, self.expects[i])
                for i, v in enumerate(self.sweep.values)]



@dataclass(frozen=True)
class Suite:
    """A parsed suite file."""

    path: str
    name: str
    confidence: float
    samples: int
    seed: int
    audits: tuple[AuditSpec, ...]
    description: str = ""
    series: tuple[SeriesSpec, ...] = ()
    family_size: int | None = None  # fixed number of error-budget shares, or None: one per test
    memory_limit: int | None = None  # bytes per task (dpaudit.audit.memory), or None: default
    stopping: StoppingRule = StoppingRule()  # every audit's, unless it sets its own


# -- parsing ----------------------------------------------------------------------------------

def load_suite(path: str | Path) -> Suite:
    """Read and validate one suite file; raise :class:`SuiteError` if it is malformed — and
    nothing else, whatever the file holds (see :func:`dpaudit.suite.toml_file.read_toml`)."""
    data = read_toml(path)
    try:
        return parse_suite(data, str(path))
    except RecursionError:
        raise SuiteError(f"{path}: a value is nested too deeply to check") from None


def parse_suite(data: dict, path: str = "<suite>") -> Suite:
    """Validate an already-decoded TOML document (``path`` is used in messages only)."""
    top = Where(path)
    check_keys(data, _TOP_KEYS, top, "top-level")

    suite_table = data.get("suite", {})
    if not isinstance(suite_table, dict):
        raise top.error("suite", "a table [suite]", suite_table)
    where = Where(path, "[suite]")
    check_keys(suite_table, _SUITE_KEYS, where, "[suite]")
    check_requires(suite_table, where, path)  # SuiteSkipped before any audit is parsed
    name = read_string(suite_table, "name", where, default=Path(path).stem)
    if not name.strip():
        raise where.error("name", "a non-empty string", name)
    confidence = suite_table.get("confidence", DEFAULT_CONFIDENCE)
    if not is_number(confidence) or not (0.0 < confidence < 1.0):
        raise where.error("confidence", "a number strictly between 0 and 1", confidence)
    samples = read_samples(suite_table, "samples", where, DEFAULT_SAMPLES)
    seed = suite_table.get("seed", DEFAULT_SEED)
    if not is_int(seed) or seed < 0:
        raise where.error("seed", "a non-negative integer", seed)
    description = read_string(suite_table, "description", where)
    family_size = suite_table.get("family_size")
    if family_size is not None and (not is_int(family_size) or family_size < 1):
        raise where.error("family_size", "a positive integer (the number of equal shares of "
                                         "the error budget)", family_size)
    memory_limit = suite_table.get("memory_limit")
    if memory_limit is not None:
        try:
            memory_limit = parse_memory_size(memory_limit)
        except ValueError:
            raise where.error("memory_limit", SIZE_FORMAT, memory_limit) from None
    stopping = parse_stopping(suite_table, where, StoppingRule())

    audits_raw = data.get("audit")
    if audits_raw is None:
        raise top.error("audit", "at least one [[audit]] table")
    if not isinstance(audits_raw, list) or not audits_raw:
        raise top.error("audit", "an array of [[audit]] tables", audits_raw)

    # every bad audit (and series) of the file is reported at once, each with its name
    problems: list[SuiteError] = []
    audits: list[AuditSpec] = []
    seen: dict[str, int] = {}
    for index, table in enumerate(audits_raw):
        try:
            audit = _parse_audit(table, index, path, samples)
            if STOPPING_KEYS & set(table):  # an audit's own stopping keys, over the suite's
                audit = replace(audit, stopping=parse_stopping(
                    table, Where(path, f"audit #{index} {audit.name!r}"), stopping))
        except SuiteError as exc:
            problems.append(exc)
            name = table.get("name") if isinstance(table, dict) else None
            if isinstance(name, str):
                seen.setdefault(name, index)
            continue
        if audit.name in seen:
            problems.append(Where(path, f"audit #{index} {audit.name!r}").error(
                "name", f"a name unique within the file (audit #{seen[audit.name]} "
                        f"already uses it)", audit.name))
            continue
        seen[audit.name] = index
        audits.append(audit)

    series_raw = data.get("series", [])
    if not isinstance(series_raw, list):
        problems.append(top.error("series", "an array of [[series]] tables", series_raw))
        series_raw = []
    series: list[SeriesSpec] = []
    for index, table in enumerate(series_raw):
        try:
            spec = _parse_series(table, index, path)
        except SuiteError as exc:
            problems.append(exc)
            continue
        if spec.name in {s.name for s in series}:
            problems.append(Where(path, f"series #{index} {spec.name!r}").error(
                "name", "a name unique among the series", spec.name))
            continue
        series.append(spec)
    if problems:
        raise combined_error(path, problems)

    return Suite(path=path, name=name, confidence=float(confidence), samples=samples,
                 seed=seed, audits=tuple(audits), description=description,
                 series=tuple(series), family_size=family_size, memory_limit=memory_limit,
                 stopping=stopping)


def _parse_audit(table, index: int, path: str, default_samples: int) -> AuditSpec:
    where = Where(path, f"audit #{index}")
    if not isinstance(table, dict):
        raise where.error(None, "an [[audit]] table", table)
    if isinstance(table.get("name"), str) and table["name"].strip():
        where = Where(path, f"audit #{index} {table['name']!r}")
    check_keys(table, _AUDIT_KEYS, where, "[[audit]]")
    name = read_string(table, "name", where, required=True)
    kind = table.get("kind", DEFAULT_KIND)
    kinds = known_kinds()
    if kind not in kinds:
        raise where.error("kind", "one of " + ", ".join(map(repr, kinds))
                          + (did_you_mean(kind, kinds) if isinstance(kind, str) else ""), kind)
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise where.error("options", f"a table of options of the {kind!r} audit", options)
    target = parse_target(table, where, path)
    mechanism = target.reference

    params = table.get("params", {})
    if not isinstance(params, dict):
        raise where.error("params", "a table of mechanism parameters, e.g. { epsilon = 1.0 }",
                          params)

    raw_delta = table.get("delta", 0.0)
    if isinstance(raw_delta, list):
        if not raw_delta:
            raise where.error("delta", "a number in [0, 1) or a non-empty list of them", raw_delta)
        if len(raw_delta) > MAX_GRID_VALUES:
            raise where.error("delta", f"at most {MAX_GRID_VALUES} values", len(raw_delta))
        deltas = tuple(delta_value(d, where, "delta") for d in raw_delta)
        if len(set(deltas)) != len(deltas):
            raise where.error("delta", "a list of distinct values", raw_delta)
    else:
        deltas = (delta_value(raw_delta, where, "delta"),)

    pairs = parse_pairs(table.get("pairs", "worst-case"), where)
    samples = read_samples(table, "samples", where, default_samples)
    min_samples = read_min_samples(table, where, samples)
    sweep = None
    if "sweep" in table:
        sweep = parse_sweep(table["sweep"], where)
        if sweep.parameter in params:
            raise where.error("sweep", f"a parameter not also given in params "
                                       f"({sweep.parameter!r} is in both)", table["sweep"])
    expect = table.get("expect", "consistent")
    expects: tuple[str, ...] = ()
    if isinstance(expect, list):
        if sweep is None:
            raise where.error("expect", "one of 'consistent', 'violation' (a list needs a "
                                        "sweep)", expect)
        if len(expect) != len(sweep.values) or any(e not in EXPECTATIONS for e in expect):
            raise where.error("expect", f"'consistent', 'violation' or a list of them with "
                                        f"one entry per swept value ({len(sweep.values)})",
                              expect)
        expects = tuple(expect)
        expect = "violation" if "violation" in expects else "consistent"
    elif expect not in EXPECTATIONS:
        raise where.error("expect", f"one of {', '.join(repr(e) for e in EXPECTATIONS)}"
                                    f"{did_you_mean(expect, EXPECTATIONS)}", expect)
    elif sweep is not None:
        expects = (expect,) * len(sweep.values)
    exact_points = table.get("exact_points", 0)
    if not is_int(exact_points) or not 0 <= exact_points <= 1000:
        raise where.error("exact_points", "an integer between 0 and 1000", exact_points)
    if exact_points and sweep is None:
        raise where.error("exact_points", "a sweep (exact_points only adds values of a swept "
                                          "parameter)", exact_points)
    note = read_string(table, "note", where)

    raw_alphas = table.get("alphas", [])
    if isinstance(raw_alphas, list) and len(raw_alphas) > MAX_GRID_VALUES:
        raise where.error("alphas", f"at most {MAX_GRID_VALUES} values", len(raw_alphas))
    if not isinstance(raw_alphas, list) or not all(
            isinstance(a, (int, float)) and not isinstance(a, bool) and 1 < a < float("inf")
            for a in raw_alphas):
        raise where.error("alphas", "a list of Rényi orders α > 1 (finite)", raw_alphas)
    alphas = tuple(float(a) for a in raw_alphas)
    from dpaudit.distinguish.distinguisher import distinguisher_names
    distinguisher = table.get("distinguisher", "auto")
    allowed = list(distinguisher_names(selectable=True))
    if distinguisher not in allowed:
        raise where.error("distinguisher", "one of " + ", ".join(map(repr, allowed))
                          + did_you_mean(distinguisher, allowed)
                          + " (the white-box audit is controlled by white_box)", distinguisher)
    white_box = table.get("white_box", True)
    if not isinstance(white_box, bool):
        raise where.error("white_box", "true or false", white_box)

    if sweep is None:
        check_mechanism(target, params, where)
    else:
        for i, value in enumerate(sweep.values):
            check_mechanism(target, {**params, sweep.parameter: value},
                            where, f" at sweep value {sweep.label(i)}")
    if alphas:
        first = params if sweep is None else {**params, sweep.parameter: sweep.values[0]}
        claim = target.build(first).claim()
        if not has_renyi_claim(claim):
            raise where.error("alphas", f"a mechanism with a Rényi claim (the claim of "
                                        f"{mechanism} is {claim.describe()}, which has no rdp(α))",
                              raw_alphas)
    return AuditSpec(index=index, name=name, mechanism=mechanism, params=dict(params),
                     deltas=deltas, pairs=pairs, samples=samples, expect=expect, note=note,
                     alphas=alphas, distinguisher=distinguisher, white_box=white_box,
                     sweep=sweep, expects=expects, exact_points=exact_points, target=target,
                     min_samples=min_samples, search=parse_search(table, where),
                     representation=parse_representation(table, where), kind=kind,
                     options=dict(options))


__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_SEED", "EXPECTATIONS",
           "MAX_GRID_VALUES", "MAX_SWEEP_VALUES", "MIN_SAMPLES", "AuditSpec", "PairSpec", "SeriesSpec", "Suite",
           "SuiteError", "Sweep", "load_suite", "parse_suite"]
