"""Sweeps and series: ε over a swept mechanism parameter, and closed-form series for figures.

* :func:`sweep_curves` — from the records of a swept audit (one audit point per value, see
  :mod:`dpaudit.suite.spec`), one curve per (audit, pair, δ): the claimed ε, the certified
  black-box and white-box lower bounds (all jointly at the suite's confidence) and the exact ε
  at every swept value, plus the exact ε and the claim at ``exact_points`` extra values
  (computed by :func:`dense_exact_job` in the worker pool).
* :func:`series_job` — one ``[[series]]`` entry: ``mechanism.series(quantity, d0, d1,
  values, delta=delta, **options)`` on the mechanism's first worst-case pair, with the claim
  and its ε at ``delta``, as a :class:`~dpaudit.results.series.SeriesResult`.  The method
  returns ``{"y": [...], "label", "ylabel", "markers": [{"x", "label"}], "facts": {name:
  value}}``.

Jobs are plain picklable tuples of names and numbers; they never raise (an error is recorded
and the rest of the run goes on).  The curves are typed values of :mod:`dpaudit.results`
(:class:`~dpaudit.results.sweep_curve.SweepCurve`, :class:`~dpaudit.results.series.SeriesResult`).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.results.series import Marker, SeriesResult
from dpaudit.results.sweep_curve import DenseRow, SweepCurve, SweepValue


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def dense_values(values, count: int) -> list:
    """``count`` values of a numeric sweep parameter spread over [min, max] (geometric when
    the positive values span more than two decades, else linear), integers when every swept
    value is an integer; the swept values themselves are excluded."""
    if count <= 0 or not _numeric(values) or len(values) < 2:
        return []
    lo, hi = float(min(values)), float(max(values))
    positive = [float(v) for v in values if v > 0]
    if positive and lo >= 0 and hi / min(positive) > 100:
        grid = np.geomspace(min(positive), hi, count)
    else:
        grid = np.linspace(lo, hi, count + 2)[1:-1]
    integer = all(isinstance(v, int) for v in values)
    out, seen = [], set(values)
    for v in grid.tolist():
        v = int(round(v)) if integer else float(v)
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


@dataclass(frozen=True)
class DenseExactJob:
    """The exact ε (and the claim) of one pair of a swept audit at extra values of the swept
    parameter, for the ε-over-sweep figure (``exact_points``); no sampling, no certificate.

    Attributes:
      suite_file, audit_index, pair_index: the curve the rows belong to.
      target: what builds the mechanism (:class:`~dpaudit.suite.targets.Target`); params:
        its parameters but the swept one; parameter, values: the swept parameter and the
        extra values of this job (a chunk of them: jobs run in parallel).
      explicit_pair: the suite's pair, or None for the mechanism's worst-case pair
        ``pair_index``.
      deltas: where ε(δ) is computed; memory_limit: bytes (:func:`dense_exact_job`).
    """

    suite_file: str
    audit_index: int
    pair_index: int
    target: Any
    params: dict
    parameter: str
    values: tuple
    explicit_pair: Any
    deltas: tuple
    memory_limit: int | None = None

    @property
    def curve_key(self) -> tuple:
        """(suite file, audit index, pair index): the sweep curve these rows extend."""
        return (self.suite_file, self.audit_index, self.pair_index)

    def run(self) -> dict:
        """``{"rows", "errors", "seconds"}`` (:func:`dense_exact_job`); never raises."""
        return dense_exact_job(self.target, self.params, self.parameter, list(self.values),
                               self.pair_index, self.explicit_pair, self.deltas,
                               self.memory_limit)


@dataclass(frozen=True)
class SeriesJob:
    """One ``[[series]]`` entry of a suite (:func:`series_job`)."""

    suite: str
    suite_file: str
    spec: Any  # a dpaudit.suite.spec.SeriesSpec

    def run(self) -> SeriesResult:
        """The series' result; never raises (a failure is its ``error``)."""
        return series_job(self.suite, self.suite_file, self.spec)

    def failed(self, error: str) -> SeriesResult:
        """The result when the worker running this job failed with ``error``."""
        return failed_series(self.suite, self.suite_file, self.spec, error)


def dense_exact_job(mechanism, params: dict, parameter: str, values: list, pair_index: int,
                    explicit_pair, deltas: tuple, memory_limit: int | None = None) -> dict:
    """Exact ε (and the claimed ε) at each δ for every value of the swept parameter
    (``mechanism``: a registry name or a :class:`~dpaudit.suite.targets.Target`); a value
    whose enumerated output space would exceed ``memory_limit`` bytes is an error instead
    (:func:`dpaudit.audit.memory.check_output_space`)."""
    from dpaudit.audit.memory import check_output_space
    from dpaudit.suite.targets import as_target

    start = time.perf_counter()
    rows, errors = [], []
    for value in values:
        try:
            mech = as_target(mechanism).build({**params, parameter: value})
            pair = explicit_pair if explicit_pair is not None else \
                mech.worst_case_pairs()[pair_index]
            d0, d1 = mech.validate_dataset(pair.d0), mech.validate_dataset(pair.d1)
            claim = mech.claim()
            if memory_limit is not None:
                check_output_space(mech, d0, d1, memory_limit)
            exact = [mech.exact_epsilon(d0, d1, d) for d in deltas]
            rows.append([value, [_finite(claim.epsilon(d)) for d in deltas],
                         [_finite(e) for e in exact]])
        except Exception as exc:  # recorded; the figure just lacks this value
            errors.append(f"{parameter}={value}: {type(exc).__name__}: {exc}")
    return {"rows": rows, "errors": errors, "seconds": time.perf_counter() - start}


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def sweep_curves(points: list, dense: dict | None = None) -> list[SweepCurve]:
    """One ε-over-sweep curve per (swept audit, pair, δ): for every swept value (audit point,
    :class:`~dpaudit.results.hierarchy.AuditPoint`) the claimed ε, the certified black- and
    white-box lower bounds, the exact ε, the verdict and the point's own expectation
    (:class:`~dpaudit.results.sweep_curve.SweepCurve`).

    ``dense`` maps (suite_file, audit_index, pair_index) to the merged rows of
    :class:`DenseExactJob` (``{"deltas", "rows", "errors"}``)."""
    groups: dict[tuple, list] = {}
    for point in points:
        if point.sweep is None:
            continue
        for test, certificate in point.certificates():
            # a searched pair differs from one swept value to the next: no curve over them
            if certificate.notion == "dp" and test.search is None:
                key = (point.suite_file, point.audit_index, test.pair_index, certificate.delta)
                groups.setdefault(key, []).append((point, test, certificate))
    curves = []
    for (suite_file, audit_index, pair_index, delta), rows in groups.items():
        rows = sorted(rows, key=lambda row: row[0].sweep.index)
        point, test, _ = rows[0]
        values = [SweepValue(value=p.sweep.value, claimed=c.claimed_epsilon,
                             certified=c.epsilon_lower_bound,
                             white_box=c.white_box_epsilon_lower_bound,
                             exact=c.exact_epsilon, verdict=c.verdict, expect=p.expect,
                             # computed evidence (an exact-curve check) is no sampled bound
                             computed=c.black_box is not None and not c.black_box.certified)
                  for p, _, c in rows]
        dense_rows, dense_errors = [], []
        extra = (dense or {}).get((suite_file, audit_index, pair_index))
        if extra:
            deltas = extra["deltas"]
            if delta in deltas:
                k = deltas.index(delta)
                dense_rows = sorted((DenseRow(value=v, claimed=c[k], exact=e[k])
                                     for v, c, e in extra["rows"]), key=lambda row: row.value)
            dense_errors = extra["errors"]
        curves.append(SweepCurve(
            suite=point.suite, suite_file=suite_file, audit=point.audit,
            audit_index=audit_index, pair=test.pair_name or f"pair-{pair_index}",
            pair_index=pair_index, mechanism=point.mechanism,
            parameter=point.sweep.parameter, delta=delta, confidence=point.confidence,
            per_certificate_confidence=point.per_certificate_confidence,
            samples=test.samples, points=values, dense=dense_rows,
            dense_errors=dense_errors))
    return curves


def series_job(suite: str, suite_file: str, spec) -> SeriesResult:
    """Compute one ``[[series]]`` entry (never raises: a failure is the result's ``error``,
    with what was read before it)."""
    from dpaudit.mechanisms.registry import create_mechanism

    start = time.perf_counter()
    read: dict = {}  # what the entry has read so far: the pair, the claim, the mechanism's answer
    try:
        mech = create_mechanism(spec.mechanism, **spec.params)
        pair = mech.worst_case_pairs()[0]
        d0, d1 = mech.validate_dataset(pair.d0), mech.validate_dataset(pair.d1)
        read["pair"] = pair.name
        claim = mech.claim()
        read["claim"] = claim.to_dict()
        if spec.delta is not None:
            read["claimed_epsilon"] = float(claim.epsilon(spec.delta))
        answer = mech.series(spec.quantity, d0, d1, list(spec.sweep.values),
                             delta=spec.delta, **spec.options)
        answer = {k: v for k, v in answer.items() if k in ANSWER_KEYS}
        if "markers" in answer:
            answer["markers"] = [Marker.from_json(m) for m in answer["markers"] or ()]
        read.update(answer)
        return _series_result(suite, suite_file, spec, read, None, start)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        # a result that failed on the mechanism's answer keeps none of it
        read = {k: v for k, v in read.items() if k not in ANSWER_KEYS}
        return _series_result(suite, suite_file, spec, read, error, start)


#: the entries of a mechanism's ``series()`` answer a result keeps
ANSWER_KEYS = ("y", "label", "ylabel", "markers", "facts")


def _series_result(suite: str, suite_file: str, spec, read: dict, error: str | None,
                   start: float) -> SeriesResult:
    return SeriesResult(
        suite=suite, suite_file=suite_file, name=spec.name, mechanism=spec.mechanism,
        params=dict(spec.params), quantity=spec.quantity, parameter=spec.sweep.parameter,
        values=list(spec.sweep.values), y=read.get("y"), label=read.get("label", ""),
        ylabel=read.get("ylabel", spec.quantity), markers=read.get("markers", ()),
        claim=read.get("claim"), delta=spec.delta,
        claimed_epsilon=read.get("claimed_epsilon"), note=spec.note, error=error,
        options=dict(spec.options), pair=read.get("pair"), facts=read.get("facts"),
        seconds=time.perf_counter() - start)


def failed_series(suite: str, suite_file: str, spec, error: str) -> SeriesResult:
    """The result of a ``[[series]]`` entry whose worker failed (the backend's ``{"error":
    message}``): what was asked, and the error; no time."""
    result = _series_result(suite, suite_file, spec, {}, error, time.perf_counter())
    return dataclasses.replace(result, seconds=None)


__all__ = ["ANSWER_KEYS", "DenseExactJob", "SeriesJob", "dense_values", "dense_exact_job",
           "failed_series", "series_job", "sweep_curves"]
