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
    time_limit = 600                 # optional: seconds a test may run before it ends as an
                                     # error (default 1800; dpaudit.util.time_limit)
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

from dataclasses import dataclass
from pathlib import Path

from dpaudit.spec.audit import (AUDIT_KEYS, DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_SEED,
                                EXPECTATIONS, TARGET_KEYS, AuditSpec, PairSpec, read_audit)
from dpaudit.spec.fields import (MAX_GRID_VALUES, MAX_SWEEP_VALUES, MIN_SAMPLES, Sweep, Where,
                                 check_keys, is_int, is_number, read_samples, read_string)
from dpaudit.spec.stopping_keys import STOPPING_KEYS, parse_stopping
from dpaudit.stats.sequential import StoppingRule
from dpaudit.suite.code_loading import (ALL, NO_USER_CODE, USER_CODE_ONLY, deferring_code,
                                        mode as code_mode, reading)
from dpaudit.suite.fields import SuiteError, combined_error
from dpaudit.suite.requires import check_requires
from dpaudit.suite.series_keys import SeriesSpec, parse_series as _parse_series
from dpaudit.suite.target_keys import check_audit_code, parse_target
from dpaudit.suite.toml_file import read_toml
from dpaudit.util.sizes import SIZE_FORMAT, parse_memory_size
from dpaudit.util.time_limit import check_time_limit

_TOP_KEYS = {"suite", "audit", "series"}
_SUITE_KEYS = {"name", "confidence", "family_size", "samples", "seed", "description",
               "requires", "memory_limit", "time_limit"} | STOPPING_KEYS
_AUDIT_KEYS = set(AUDIT_KEYS) | set(TARGET_KEYS) | STOPPING_KEYS



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
    time_limit: float | None = None  # seconds per test (dpaudit.util.time_limit), or None
    stopping: StoppingRule = StoppingRule()  # every audit's, unless it sets its own


# -- parsing ----------------------------------------------------------------------------------

def load_suite(path: str | Path, *, load_code: bool = True) -> Suite:
    """Read and validate one suite file; raise :class:`SuiteError` if it is malformed — and
    nothing else, whatever the file holds (see :func:`dpaudit.suite.toml_file.read_toml`).
    ``load_code=False`` reads it without importing or building the code it names (for
    collection: :mod:`dpaudit.suite.code_loading`)."""
    data = read_toml(path)
    try:
        if not load_code:
            with deferring_code():
                return parse_suite(data, str(path))
        return parse_suite(data, str(path))
    except RecursionError:
        raise SuiteError(f"{path}: a value is nested too deeply to check") from None


def parse_suite(data: dict, path: str = "<suite>") -> Suite:
    """Validate an already-decoded TOML document (``path`` is used in messages only).  The
    whole file is checked without its code first, so a malformed file runs none of it."""
    if code_mode() == ALL:  # every problem but user code's first: a bad file runs none of it
        with reading(NO_USER_CODE):
            parse_suite(data, path)
        with reading(USER_CODE_ONLY):
            return parse_suite(data, path)
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
    time_limit = suite_table.get("time_limit")
    if time_limit is not None:
        try:
            time_limit = check_time_limit(time_limit)
        except ValueError:
            raise where.error("time_limit", "a number of seconds > 0", time_limit) from None
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
            audit = _parse_audit(table, index, path, samples, stopping)
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
                 time_limit=time_limit,
                 stopping=stopping)


def _parse_audit(table, index: int, path: str, default_samples: int,
                 stopping: StoppingRule) -> AuditSpec:
    """One ``[[audit]]`` row: its keys (the suite's own check), the keys every route shares
    (:func:`dpaudit.spec.audit.read_audit`), its target under the file's code policy, and the
    checks that build its code (:func:`dpaudit.suite.target_keys.check_audit_code`)."""
    where = Where(path, f"audit #{index}")
    if not isinstance(table, dict):
        raise where.error(None, "an [[audit]] table", table)
    if isinstance(table.get("name"), str) and table["name"].strip():
        where = Where(path, f"audit #{index} {table['name']!r}")
    check_keys(table, _AUDIT_KEYS, where, "[[audit]]")
    audit = read_audit(table, where, index=index,
                       read_target=lambda: parse_target(table, where, path),
                       default_samples=default_samples, default_stopping=stopping)
    check_audit_code(audit, where)
    return audit


__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_SEED", "EXPECTATIONS",
           "MAX_GRID_VALUES", "MAX_SWEEP_VALUES", "MIN_SAMPLES", "AuditSpec", "PairSpec", "SeriesSpec", "Suite",
           "SuiteError", "Sweep", "load_suite", "parse_suite"]
