"""What one pair test measures: build, claim, check the pair, certify in looks, read evidence.

:func:`measure_pair` fills a :class:`~dpaudit.audit.execute.Measured` for a
:class:`~dpaudit.audit.procedures.pair.PairTask`: it builds the mechanism, reads its claim at
every δ and α, finds a searched test's pair (:mod:`dpaudit.audit.pair_search`), checks that the
pair is neighbouring and that the task fits in memory, certifies the black-box curve — and the
white-box one on the seed + 1 stream — in looks (:func:`dpaudit.audit.rounds.certify_in_rounds`),
and reads one certificate's evidence per δ (:class:`~dpaudit.distinguish.result.EpsilonLowerBound`)
and per α (:class:`~dpaudit.distinguish.result.RenyiLowerBound`) off the curves, with the pair's
exact ε where it is known, and the figure's curve data.  It raises on any failure; the guard
(:func:`dpaudit.audit.execute.run_guarded`) keeps what was measured before it.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from dpaudit.audit.execute import Measured, number
from dpaudit.audit.memory import check_task_memory, estimate_task_memory
from dpaudit.audit.rounds import certify_in_rounds
from dpaudit.claims import claimed_renyi
from dpaudit.mechanisms.capabilities import ExactRenyi
from dpaudit.results.privacy_curve import CertifiedBound, DenseCurve, PrivacyCurveFigure
from dpaudit.results.provenance import BudgetUse, RecordedPair, SearchProvenance
from dpaudit.spec.coverage import OFF


def read_claim(task, mechanism, measured: Measured):
    """The mechanism's claim: recorded, with its ε at every δ and its Rényi ε at every α of
    the task's grid."""
    claim = mechanism.claim()
    measured.claim = claim.to_dict()
    measured.true_epsilon = number(mechanism.true_epsilon())
    for entry in measured.readings:
        if entry.notion == "dp":
            entry.claimed_epsilon = float(claim.epsilon(entry.delta))
        else:
            entry.claimed_epsilon = claimed_renyi(claim, entry.alpha)
    return claim


def checked_pair(task, mechanism, pair):
    """(d0, d1) of ``pair`` as the mechanism uses them; raises ValueError when the pair is not
    neighbouring under the mechanism's relation."""
    d0 = mechanism.validate_dataset(pair.d0)
    d1 = mechanism.validate_dataset(pair.d1)
    is_pair, reason = mechanism.check_pair(d0, d1)
    if not is_pair:
        raise ValueError(f"pair {pair.name!r} is not neighbouring for "
                         f"{task.mechanism} ({mechanism.neighbouring}): {reason}")
    return d0, d1


def measure_pair(task, measured: Measured, counter=None) -> None:
    """Fill ``measured`` for the pair task ``task`` (see the module docstring)."""
    from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound

    mechanism = task.build_mechanism()
    claim = read_claim(task, mechanism, measured)
    if task.setup_error is not None:
        raise RuntimeError(task.setup_error)
    pair = task.pair
    if task.search is not None:
        pair, measured.search = _searched_pair(task, mechanism)
        measured.pair = RecordedPair.of(pair)
    d0, d1 = checked_pair(task, mechanism, pair)
    # before any large allocation (sampling, exact ε): refuse a task too large for memory
    check_task_memory(estimate_task_memory(mechanism, d0, d1, samples=task.samples,
                                           seed=task.seed, name=task.mechanism),
                      task.memory_limit)

    # code that *is* the implementation (user code, library adapters, the floating-point zoo)
    # is audited on its float64 representation too (dpaudit.spec.coverage)
    def estimate(*, samples, seed, confidence, white):
        options = (dict(distinguisher="white-box", log_density=mechanism.log_density) if white
                   else dict(distinguisher=task.point.distinguisher,
                             representation=task.representation))
        return estimate_privacy_curve_lower_bound(
            mechanism.sampler(), d0, d1, deltas=task.deltas, alphas=task.alphas,
            samples=samples, seed=seed, confidence=confidence, counter=counter, **options)

    # the test's looks (dpaudit.audit.rounds): it stops once its verdict is decided
    rounds = certify_in_rounds(
        estimate, samples=task.samples, seed=task.seed,
        confidence=task.point.per_certificate_confidence, white_box=task.white_box,
        claims=[e.claimed_epsilon for e in measured.readings if e.notion == "dp"],
        renyi_claims=[e.claimed_epsilon for e in measured.readings if e.notion == "rdp"],
        rule=task.stopping, stop_on_power=task.point.expect != "violation")
    measured.sequential = BudgetUse.from_json(rounds.to_json())
    black, white = rounds.black, rounds.white
    dp = [e for e in measured.readings if e.notion == "dp"]
    for entry, point in zip(dp, black.points):
        entry.evidence = [point]
        entry.exact_epsilon = number(mechanism.exact_epsilon(d0, d1, entry.delta))
    if white is not None:
        for entry, point in zip(dp, white.points):
            entry.evidence.append(point)
    rdp = [e for e in measured.readings if e.notion == "rdp"]
    black_renyi = black.renyi_evidence()
    white_renyi = () if white is None else white.renyi_evidence()
    for i, entry in enumerate(rdp):
        entry.evidence = [black_renyi[i]] + ([white_renyi[i]] if white is not None else [])
        if isinstance(mechanism, ExactRenyi):
            entry.exact_epsilon = number(mechanism.exact_renyi(d0, d1, entry.alpha))
    if any(not entry.evidence for entry in measured.readings):
        raise RuntimeError("the estimator returned fewer certificates than the task's δs and αs")
    if task.search is None:  # a searched pair's test is evidence, not a figure
        measured.curve = curve_data(task, pair.name, mechanism, claim, d0, d1, measured)
    if task.replay != OFF:  # the point's grey-box replay (its evidence joins the certificates)
        from dpaudit.audit.procedures.replay_measure import add_replay

        add_replay(mechanism, measured, list(task.replay_pairs), task.seed, task.replay)


def _searched_pair(task, mechanism):
    """(pair, provenance) of a searched test: rank ``slot`` of the point's pair search, which
    depends on the point's search seed only (:mod:`dpaudit.audit.pair_search`)."""
    import cloudpickle

    from dpaudit.audit.pair_search import searched_pair

    search = task.search
    # the cache key is the mechanism itself (its pickled state, so two instances of one class
    # with different state never share a search), the named pairs and the search's settings
    state = hashlib.sha256(cloudpickle.dumps(mechanism)).hexdigest()
    key = (state, repr([(p.d0, p.d1) for p in search.named]), search.seed, task.samples,
           search.budget)
    pair, provenance = searched_pair(mechanism, list(search.named), search.slot,
                                     samples=task.samples, seed=search.seed,
                                     budget=search.budget, key=key)
    return pair, SearchProvenance.from_json(provenance)


def curve_data(task, pair_name: str, mechanism, claim, d0, d1, measured: Measured
               ) -> PrivacyCurveFigure | None:
    """The test's figure data: its certified points, with dense claimed and exact ε(δ) (and
    ε(α)) around them (a δ grid of at least two values, or some α; else None)."""
    from dpaudit.claims import claimed_renyi as renyi_of

    dp = [e for e in measured.readings if e.notion == "dp"]
    rdp = [e for e in measured.readings if e.notion == "rdp"]
    if len(dp) < 2 and not rdp:
        return None
    point = task.point

    def certified(entry, at):
        black = next((e.bound for e in entry.evidence if e.role != "white-box"), None)
        white = next((e.bound for e in entry.evidence if e.role == "white-box"), None)
        return CertifiedBound(at, black, white)

    dense_delta = dense_alpha = None
    positive = [e.delta for e in dp if e.delta > 0]
    if positive:
        grid = np.logspace(np.log10(min(positive)) - 1, np.log10(max(max(positive), 1e-2)), 40)
        dense_delta = DenseCurve(
            grid=grid.tolist(),
            claimed=[_finite_or_none(claim.epsilon(float(d))) for d in grid],
            exact=[_finite_or_none(mechanism.exact_epsilon(d0, d1, float(d))) for d in grid])
    if rdp:
        alphas = np.linspace(min(e.alpha for e in rdp), max(e.alpha for e in rdp), 40)
        claimed = [_finite_or_none(renyi_of(claim, float(a))) for a in alphas]
        exact = ([_finite_or_none(mechanism.exact_renyi(d0, d1, float(a))) for a in alphas]
                 if isinstance(mechanism, ExactRenyi) else None)  # None: not known
        dense_alpha = DenseCurve(grid=alphas.tolist(), claimed=claimed, exact=exact)
    return PrivacyCurveFigure(
        suite=point.suite, suite_file=point.suite_file, audit=point.audit, pair=pair_name,
        mechanism=point.mechanism, sweep=point.sweep,
        certified=[certified(e, e.delta) for e in dp],
        renyi_certified=[certified(e, e.alpha) for e in rdp],
        dense_delta=dense_delta, dense_alpha=dense_alpha)


def _finite_or_none(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


__all__ = ["checked_pair", "curve_data", "measure_pair", "read_claim"]
