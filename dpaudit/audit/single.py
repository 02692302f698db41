"""One audit of one piece of code, as a suite of one: what the Python API, the pytest fixture
and ``dpaudit check`` run.

:func:`single_audit_suite` builds the in-memory :class:`~dpaudit.suite.spec.Suite` of one
``[[audit]]`` from a :class:`~dpaudit.suite.targets.Target` and the API's keyword arguments,
so that these routes plan, execute and judge exactly as ``dpaudit run`` does a suite file
(:func:`dpaudit.audit.plan.plan_suite`: the named pairs, the pair search, the representation,
one Bonferroni family); :func:`run_single` sends it through a backend and returns the judged
points.

Raises ``ValueError`` with a one-line message on a bad argument.
"""

from __future__ import annotations

import math
from typing import Iterable

from dpaudit.util import validation
from dpaudit.audit.plan import plan_suite
from dpaudit.audit.run import judged_points
from dpaudit.spec.coverage import search_budget
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.options import RunOptions
from dpaudit.results.records import SuiteSummary
from dpaudit.suite.audit_keys import PairSpec
from dpaudit.suite.fields import MAX_GRID_VALUES
from dpaudit.stats.sequential import StoppingRule
from dpaudit.suite.spec import EXPECTATIONS, AuditSpec, Suite
from dpaudit.suite.targets import Target
from dpaudit.spec.kinds import DEFAULT_KIND, known_kinds
from dpaudit.util.hints import did_you_mean

#: the suite file a suite of one names (records' ``suite_file``)
PYTHON_SUITE = "<python>"


def as_pairs(pairs) -> str | tuple[PairSpec, ...]:
    """``"worst-case"`` for None, else the pairs as :class:`PairSpec`: each a
    ``NeighbourPair``, a ``(d0, d1)`` tuple or a dict with ``d0``, ``d1`` (and ``name``)."""
    if pairs is None or pairs == "worst-case":
        return "worst-case"
    out = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, dict):
            pair = PairSpec(pair.get("name", f"pair-{i}"), pair["d0"], pair["d1"],
                            pair.get("description", ""))
        elif isinstance(pair, tuple) and len(pair) == 2:
            pair = PairSpec(f"pair-{i}", pair[0], pair[1])
        elif hasattr(pair, "d0") and hasattr(pair, "d1"):
            pair = PairSpec(getattr(pair, "name", f"pair-{i}"), pair.d0, pair.d1,
                            getattr(pair, "description", ""))
        else:
            raise ValueError(f"pairs[{i}]: expected a NeighbourPair, a (d0, d1) tuple or a "
                             f"dict with d0 and d1, got {type(pair).__name__}")
        out.append(pair)
    if not out:
        raise ValueError("pairs: expected at least one pair")
    return tuple(out)


def _grid(name: str, values, check, expected: str) -> tuple[float, ...]:
    values = tuple(values) if isinstance(values, (list, tuple)) else (values,)
    if len(values) > MAX_GRID_VALUES:  # as a suite's lists (dpaudit.suite.fields)
        raise ValueError(f"{name}: expected at most {MAX_GRID_VALUES} values, got "
                         f"{len(values)}")
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not check(v)
           for v in values):
        raise ValueError(f"{name}: expected {expected}, got {list(values)!r}")
    return tuple(float(v) for v in values)


def single_audit_suite(target: Target, *, params: dict | None = None, pairs=None,
                       delta: float | Iterable[float] = 0.0, alphas: Iterable[float] = (),
                       samples: int, confidence: float, seed: int,
                       expect: str = "consistent", distinguisher: str = "auto",
                       white_box: bool = True, name: str | None = None,
                       memory_limit: int | None = None, search=True,
                       representation: bool | None = None,
                       stopping: StoppingRule = StoppingRule(), kind: str = DEFAULT_KIND,
                       options: dict | None = None) -> Suite:
    """The suite of one audit of ``target`` (see the module docstring).

    Args:
      target: the code under audit.
      params, pairs, delta, alphas, samples, confidence, seed, expect, distinguisher,
        white_box, name, memory_limit: as the keys of a suite file's ``[[audit]]``.
      search: ``True`` (default), ``False``, a :class:`~dpaudit.spec.coverage.SearchBudget` or a
        dict of its fields (:func:`dpaudit.spec.coverage.search_budget`).
      representation: ``True``, ``False`` or None for the code's default
        (:func:`dpaudit.spec.coverage.representation_default`).
      stopping: sequential or fixed n, the power target, whether it is required
        (:class:`~dpaudit.stats.sequential.StoppingRule`; a suite's ``sequential``,
        ``power`` and ``require_power`` keys).
      kind, options: the audit procedure and its own options (a suite's ``kind`` and
        ``options``; :mod:`dpaudit.audit.procedures`).

    Raises:
      ValueError: a bad argument.
    """
    samples = validation.samples("samples", samples)
    confidence = validation.confidence("confidence", confidence)
    seed = validation.seed("seed", seed)
    if expect not in EXPECTATIONS:
        raise ValueError(f"expect: expected one of {EXPECTATIONS}, got {expect!r}")
    deltas = _grid("delta", delta, lambda d: math.isfinite(d) and 0.0 <= d < 1.0,
                   "a number in [0, 1) or a list of them")
    if not deltas:
        raise ValueError("delta: expected a number in [0, 1) or a list of them, got []")
    orders = _grid("alphas", list(alphas), lambda a: 1.0 < a < math.inf,
                   "Rényi orders α > 1 (finite)")
    if representation is not None and not isinstance(representation, bool):
        raise ValueError(f"representation: expected True, False or None, got "
                         f"{representation!r}")
    kinds = known_kinds()
    if kind not in kinds:
        raise ValueError(f"kind: expected one of {', '.join(map(repr, kinds))}, got {kind!r}"
                         + (did_you_mean(kind, kinds) if isinstance(kind, str) else ""))
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options: expected a dict of the {kind!r} audit's options, got "
                         f"{options!r}")
    audit = AuditSpec(index=0, name=name or target.reference, mechanism=target.reference,
                      params=dict(params or {}), deltas=deltas, pairs=as_pairs(pairs),
                      samples=samples, expect=expect, alphas=orders,
                      distinguisher=distinguisher, white_box=white_box, target=target,
                      search=search_budget(search), representation=representation,
                      kind=kind, options=dict(options or {}))
    return Suite(path=PYTHON_SUITE, name=name or target.reference, confidence=confidence,
                 samples=samples, seed=seed, audits=(audit,), memory_limit=memory_limit,
                 stopping=stopping)


def run_single(suite: Suite, backend, options: RunOptions = RunOptions()
               ) -> tuple[list[AuditPoint], SuiteSummary]:
    """Plan ``suite``, run its tasks on ``backend`` and return (judged points, suite entry).

    Raises:
      ValueError: the suite is refused while it is planned (a procedure's options).
    """
    tasks, info = plan_suite(suite, options)
    results, _ = backend.run(tasks, [])
    return judged_points(tasks, results), info


__all__ = ["PYTHON_SUITE", "as_pairs", "run_single", "single_audit_suite"]
