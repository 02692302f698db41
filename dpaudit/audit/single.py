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

from dpaudit.util import validation
from dpaudit.audit.plan import plan_suite
from dpaudit.audit.run import judged_points
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.options import RunOptions
from dpaudit.results.records import SuiteSummary
from dpaudit.spec.audit import AUDIT_KEYS, PairSpec, read_audit
from dpaudit.spec.fields import Where
from dpaudit.suite.spec import Suite
from dpaudit.suite.target_keys import check_audit_code
from dpaudit.suite.targets import Target

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


def single_audit_suite(target: Target, *, samples: int, confidence: float, seed: int,
                       memory_limit: int | None = None, caller: str = "dpaudit API",
                       **keys) -> Suite:
    """The suite of one audit of ``target`` (see the module docstring): ``keys`` are the keys
    of one audit (:data:`dpaudit.spec.audit.AUDIT_KEYS`) as Python values, read by the reader
    every route shares (:func:`dpaudit.spec.audit.read_audit`) and checked against the code
    (:func:`dpaudit.suite.target_keys.check_audit_code`), as a suite row is.

    Python's spellings: ``pairs`` None or ``"worst-case"``, or pairs each a ``NeighbourPair``,
    a ``(d0, d1)`` tuple or a dict with ``d0``, ``d1`` (:func:`as_pairs`); ``delta`` a number
    or a list; ``alphas`` any iterable; ``search`` True, False, a
    :class:`~dpaudit.spec.coverage.SearchBudget` or a dict of its fields; ``power`` None for
    no target (a suite's ``false``); None for ``params``, ``options``, ``name`` and
    ``representation`` means left out.

    Args:
      target: the code under audit.
      samples, confidence, seed: per side; the family-wise confidence; the run's seed.
      memory_limit: bytes per task (:mod:`dpaudit.audit.memory`), or None for the default.
      caller: names the route in messages (``"audit_mechanism()"``).

    Raises:
      ValueError: a bad argument (a :class:`~dpaudit.spec.fields.SpecError` naming
        ``caller`` and the key, as a suite file's names the file and the audit).
    """
    unknown = sorted(set(keys) - set(AUDIT_KEYS))
    if unknown:
        raise TypeError(f"single_audit_suite: unknown audit key(s) {unknown}")
    confidence = validation.confidence("confidence", confidence)
    seed = validation.seed("seed", seed)
    table = {k: v for k, v in keys.items() if v is not None or k == "power"}
    table["samples"] = samples
    if "pairs" in table:
        table["pairs"] = as_pairs(table["pairs"])
    if "alphas" in table and not isinstance(table["alphas"], (list, tuple, str)):
        try:
            table["alphas"] = list(table["alphas"])
        except TypeError:
            pass  # the reader names it
    if "power" in table and table["power"] is None:
        table["power"] = False
    if isinstance(table.get("sweep"), dict):  # a tuple of values, as a suite's list
        table["sweep"] = {k: list(v) if isinstance(v, tuple) else v
                          for k, v in table["sweep"].items()}
    where = Where(caller)
    audit = read_audit(table, where, index=0, read_target=lambda: target,
                       default_samples=samples, default_name=target.reference)
    check_audit_code(audit, where)
    return Suite(path=PYTHON_SUITE, name=audit.name, confidence=confidence,
                 samples=audit.samples, seed=seed, audits=(audit,),
                 memory_limit=memory_limit)


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
