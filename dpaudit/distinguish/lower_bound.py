"""The black-box certified lower bound on ε, and on a whole privacy curve.

Procedure, for a sampler and a neighbouring pair (d0, d1), at confidence 1 − α:

1. **Selection split** (:func:`select`).  Draw ``selection_fraction × samples`` outputs from
   each side (a scalar output first draws a pilot of :data:`PILOT_FRACTION` × samples, kept
   when it places the events well enough, see :func:`select`).  Fit statistics of the output
   with a :class:`~dpaudit.distinguish.distinguisher.Distinguisher`
   (:mod:`dpaudit.distinguish.statistics`, learned ones in :mod:`dpaudit.distinguish.learned`)
   and score every candidate event {s ≥ t} / {s ≤ t}, in both directions (d0 over d1 and d1
   over d0), by the ε it would certify (:mod:`dpaudit.distinguish.events`; far tails of
   normal-looking statistics under fitted normal laws, :mod:`dpaudit.distinguish.parametric`).
   For each requested δ keep, of the best K (``candidates``), as many as are worth their
   share of the family (:func:`~dpaudit.distinguish.event_choice.worth_certifying`); the kept events
   are the union over the δ grid.
2. **Certification split** (:func:`count`).  Draw the remaining outputs afresh, in chunks,
   keeping only the count of each kept event on each side (memory does not grow with
   ``samples``), wherever an :class:`~dpaudit.distinguish.counting.EventCounter` runs the
   chunks.
3. **Certificate** (:func:`certify`).  Each kept event gets one-sided Clopper–Pearson bounds
   LCB(P_num) and UCB(P_den), each at significance α/(2m) for m kept events (Bonferroni over
   the 2m bounds).
   With probability ≥ 1 − α all of them hold at once, and then, *simultaneously*:
   for every δ, ε(δ) ≥ max_S ln((LCB_S − δ)/UCB_S); for every α > 1,
   max(D_α(P₀‖P₁), D_α(P₁‖P₀)) ≥ max_S D_α(Bern(LCB_S)‖Bern(UCB_S)) (data processing, see
   :func:`dpaudit.stats.epsilon.renyi_from_bounds`).  So a whole δ grid and α grid are
   certified at the stated confidence from one sample.  The selection split only chooses
   which events are tested; its data never enters a bound.

A zero count on the denominator side (support mismatch) gives a finite certificate that grows
like ln(samples), since UCB(0, n, s) = 1 − s^{1/n}.

:func:`estimate_privacy_curve_lower_bound` runs the three steps in that order;
:func:`estimate_epsilon_lower_bound` is its one-δ form.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from dpaudit.util import validation
from dpaudit.distinguish.counting import CountJob, EventCounter, ProcessCounter, SerialCounter
from dpaudit.distinguish.distinguisher import (DISTINGUISHERS, Distinguisher, FitContext,
                                               get_distinguisher)
from dpaudit.distinguish.event_choice import PILOT_FRACTION, choose_events, pilot_is_enough
from dpaudit.distinguish.events import Candidate
from dpaudit.distinguish.floating import describe_representation_event
from dpaudit.distinguish.result import CertifiedEvent, EpsilonLowerBound, RenyiLowerBound
from dpaudit.distinguish.sampling import (CERTIFICATION, IGNORES_RNG, SELECTION, SamplerError,
                                          CHUNK_ROWS, Stream, draw, draw_stream,
                                          ignores_rng, repeated_draws, repeats_between_calls,
                                          two_call_sample)
from dpaudit.distinguish.statistics import Statistic
from dpaudit.stats.epsilon import epsilon_from_counts, renyi_from_bounds
from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper

METHOD = ("{distinguisher} distinguisher; selection/certification split; events {{s ≥ t}}, "
          "{{s ≤ t}} on fitted statistics, both directions; one-sided Clopper–Pearson bounds, "
          "Bonferroni over {bounds} bounds ({k} certified events × 2)")

#: cap on selection-split memory (float64 values held per side)
MAX_SELECTION_VALUES = 1 << 25


@dataclass(frozen=True)
class PrivacyCurveLowerBound:
    """Simultaneous certified lower bounds on ε(δ) over a δ grid and on D_α over an α grid."""

    points: tuple[EpsilonLowerBound, ...]
    renyi: tuple[RenyiLowerBound, ...] = field(default_factory=tuple)

    def epsilon(self, delta: float) -> float:
        for p in self.points:
            if p.delta == delta:
                return p.epsilon
        raise KeyError(f"δ = {delta} is not on the certified grid")

    def to_dict(self) -> dict:
        return {"points": [p.to_dict() for p in self.points],
                "renyi": [{"alpha": r.alpha, "divergence": r.divergence, "event": r.event}
                          for r in self.renyi]}

    def renyi_evidence(self) -> tuple[RenyiLowerBound, ...]:
        """The Rényi bounds with their basis, the curve's first ε(δ) certificate (whose events
        and counts they are read from)."""
        basis = self.points[0] if self.points else None
        return tuple(replace(r, basis=basis) for r in self.renyi)


def _validate_arguments(sampler, samples, deltas, alphas, confidence, selection_fraction,
                        candidates, distinguisher, log_density) -> Distinguisher:
    """Check the arguments of :func:`estimate_privacy_curve_lower_bound`; returns the
    distinguisher named ``distinguisher``."""
    if not callable(sampler):
        raise TypeError(f"sampler must be callable as sampler(dataset, n, rng), got {sampler!r}")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)):
        raise TypeError(f"samples must be an integer, got {samples!r}")
    validation.samples("samples", samples)
    if not deltas:
        raise ValueError("at least one delta is needed")
    for delta in deltas:
        if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating)) \
                or not 0.0 <= float(delta) < 1.0:
            raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    for alpha in alphas:
        if not (isinstance(alpha, (int, float, np.floating)) and 1.0 < float(alpha) < np.inf):
            raise ValueError(f"Rényi orders alpha must be finite and > 1, got {alpha!r}")
    validation.confidence("confidence", confidence)
    if not (0.0 < selection_fraction < 1.0):
        raise ValueError(f"selection_fraction must lie in (0, 1), got {selection_fraction!r}")
    if int(candidates) < 1:
        raise ValueError(f"candidates must be >= 1, got {candidates!r}")
    chosen = get_distinguisher(distinguisher)
    if chosen.needs_log_density and log_density is None:
        raise ValueError(f"the {chosen.name} distinguisher needs log_density(dataset, outputs)")
    return chosen


def _entropy(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.entropy)
    return validation.seed("seed", seed)


def selection_size(samples: int, width: int, selection_fraction: float = 0.2,
                   max_selection: int = 1_000_000) -> int:
    """Outputs per side in the selection split: ``selection_fraction × samples``, at least
    100, leaving at least 100 to certify, at most ``max_selection``, and at most
    :data:`MAX_SELECTION_VALUES` values in all for outputs of ``width`` values each."""
    n_sel = max(100, int(round(selection_fraction * samples)))
    return min(n_sel, samples - 100, max_selection, max(100, MAX_SELECTION_VALUES // width))


@dataclass(frozen=True)
class Selection:
    """What the selection split decided (step 1, :func:`select`): the fitted statistics and
    the kept candidate events, which from now on are fixed.

    Attributes:
      distinguisher: the name of the distinguisher that fitted ``statistics``.
      statistics: the fitted statistics.
      events: the kept candidate events (indices into ``statistics``); never empty, no two
        with the same (statistic, op, threshold, numerator).
      output_kind: what the distinguisher reported (``EpsilonLowerBound.output_kind``).
      seed: the entropy every stream of the certificate is keyed on.
      selection_samples: outputs per side drawn for selection.
      certification_samples: outputs per side left to certify (``samples`` − the above).
      squeeze: the sampler returns shape ``(n, 1)``; its outputs are counted as scalars.
      shape: the per-output shape every certification chunk must have (``()`` for scalars).
      ignores_rng: the sampler ignores its rng (:func:`~dpaudit.distinguish.sampling.ignores_rng`);
        its certification split is then counted in this process only.
    """

    distinguisher: str
    statistics: tuple[Statistic, ...]
    events: tuple[Candidate, ...]
    output_kind: str
    seed: int
    selection_samples: int
    certification_samples: int
    squeeze: bool = False
    shape: tuple = ()
    ignores_rng: bool = False


def select(sampler, d0, d1, distinguisher: Distinguisher, *, deltas, samples: int,
           confidence: float, seed: int, selection_fraction: float = 0.2, candidates: int = 2,
           max_selection: int = 1_000_000, log_density=None,
           representation: bool = False, pilot_fraction: float = PILOT_FRACTION) -> Selection:
    """Step 1 of the procedure in the module docstring: the selection split.

    Checks the sampler (one probe draw, :func:`~dpaudit.distinguish.sampling.repeated_draws`,
    :func:`~dpaudit.distinguish.sampling.ignores_rng`; after the d0 selection split,
    :func:`~dpaudit.distinguish.sampling.repeats_between_calls` on its first chunk and one
    more call of that size), draws :func:`selection_size` outputs
    per side from the ``SELECTION`` streams of ``seed``, fits ``distinguisher`` on them and
    keeps, for each δ in ``deltas``, the best ``candidates`` events scored by the ε they would
    certify on the remaining ``samples − n_sel`` outputs at the significance a family of
    ``candidates × len(deltas)`` events would get, or the shorter prefix of them worth its
    share of the family (:func:`~dpaudit.distinguish.event_choice.worth_certifying`); the kept
    events are the union over δ.

    Pilot: when the distinguisher may fit only ``threshold_only`` statistics for this output
    width (:meth:`~dpaudit.distinguish.distinguisher.Distinguisher.may_fit_thresholds_only`:
    scalar outputs with ``auto``/``statistics``, any output ``white-box``), the selection
    split is first drawn at ``pilot_fraction`` × ``samples`` (if that is smaller than the
    split).  It is kept — and the certification split is ``samples`` minus the pilot — when
    every kept event is a threshold on a ``threshold_only`` statistic that was placed by
    fitted normal laws or holds at least :data:`PILOT_COUNTS` selection outputs on each side;
    otherwise the full split is drawn (the same streams, from their start) and selection is
    redone on it.  Either way the decision reads selection outputs only, so the certification
    split is still fresh and its size a function of the selection streams.  The gain is the
    certification outputs: at 10⁶ per side a pilot certifies on 0.9·10⁶ instead of 0.8·10⁶
    (benchmarks/oracle.py).

    Contract: only the selection streams are drawn (no certification output exists yet), so
    the kept events are independent of the samples that will certify them.  Arguments are as
    for :func:`estimate_privacy_curve_lower_bound` and are not validated again here.

    Raises:
      SamplerError: the sampler's draws repeat (see
        :func:`~dpaudit.distinguish.sampling.repeated_draws` and
        :func:`~dpaudit.distinguish.sampling.repeats_between_calls`).
      ValueError: the two sides' outputs differ in shape, or no candidate event can be formed
        (every statistic value is NaN).
    """
    probe = draw(sampler, d0, 1, np.random.default_rng(seed), side="d0")
    repeated = repeated_draws(sampler, d0, seed)
    if repeated:
        raise SamplerError(repeated)
    own_rng = ignores_rng(sampler, d0, seed)
    if own_rng:
        warnings.warn(IGNORES_RNG, RuntimeWarning, stacklevel=3)
    width = int(np.prod(probe.shape[1:])) if probe.ndim > 1 else 1
    n_full = selection_size(samples, width, selection_fraction, max_selection)
    n_pilot = selection_size(samples, width, min(pilot_fraction, selection_fraction),
                             max_selection)
    # no pilot when the float64 representation is audited: a pilot of value events would be
    # kept before a rare representation leak, which the full split may show, could be selected
    sizes = ((n_pilot, n_full) if n_pilot < n_full and not representation
             and distinguisher.may_fit_thresholds_only(width) else (n_full,))
    for n_sel in sizes:
        n_cert = samples - n_sel
        sel0 = draw_stream(sampler, d0, Stream(seed, SELECTION, 0, n_sel), side="d0")
        if n_sel == sizes[0]:
            repeated = repeats_between_calls(*two_call_sample(sampler, d0, sel0[:CHUNK_ROWS],
                                                              seed), seed)
            if repeated:
                raise SamplerError(repeated)
        sel1 = draw_stream(sampler, d1, Stream(seed, SELECTION, 1, n_sel), side="d1")
        if sel0.shape[1:] != sel1.shape[1:]:
            raise ValueError(f"sampler returns outputs of shape {sel0.shape[1:]} on d0 but "
                             f"{sel1.shape[1:]} on d1; both sides must have the same output "
                             f"shape")
        squeeze = sel0.ndim == 2 and sel0.shape[1] == 1
        if squeeze:
            sel0, sel1 = sel0[:, 0], sel1[:, 0]
        fitted = distinguisher.fit(sel0, sel1, FitContext(d0, d1, seed, log_density,
                                                          representation))
        stats, kind = fitted.statistics, fitted.kind
        chosen = choose_events(stats, sel0, sel1, deltas=deltas, n_cert=n_cert,
                                confidence=confidence, candidates=int(candidates))
        if n_sel == n_full or pilot_is_enough(chosen, stats):
            break
    if not chosen:  # every statistic value was NaN ("in no event"): nothing to certify with
        raise ValueError(
            f"no candidate event could be formed: every value of the {kind} statistic(s) on the "
            f"selection split is NaN (a log_density returning NaN, or outputs the statistics "
            f"cannot read), so there is no event to certify")
    shape = () if squeeze or probe.ndim == 1 else probe.shape[1:]
    return Selection(distinguisher=distinguisher.name, statistics=tuple(stats),
                     events=tuple(chosen), output_kind=kind, seed=seed, selection_samples=n_sel,
                     certification_samples=n_cert, squeeze=squeeze, shape=tuple(shape),
                     ignores_rng=own_rng)


def count(sampler, d0, d1, selection: Selection, counter: EventCounter) -> list[np.ndarray]:
    """Step 2 of the procedure in the module docstring: the certification split.

    Counts every kept event of ``selection`` over ``selection.certification_samples`` fresh
    outputs per side, drawn in chunks from the ``CERTIFICATION`` streams of
    ``selection.seed`` (never the selection streams) wherever ``counter`` runs them.

    Returns:
      ``[counts on d0, counts on d1]``, each int64 with one entry per event of
      ``selection.events``; by the :class:`~dpaudit.distinguish.counting.EventCounter`
      contract they do not depend on the counter.
    """
    n_cert = selection.certification_samples
    job = CountJob(sampler=_Squeezed(sampler) if selection.squeeze else sampler,
                   datasets=(d0, d1),
                   streams=(Stream(selection.seed, CERTIFICATION, 0, n_cert),
                            Stream(selection.seed, CERTIFICATION, 1, n_cert)),
                   stats=selection.statistics, chosen=selection.events,
                   shape=selection.shape)
    return counter.count(job)


def certify(selection: Selection, counts, *, deltas, alphas=(), confidence: float,
            seconds: float = 0.0, selection_seconds: float = 0.0) -> PrivacyCurveLowerBound:
    """Step 3 of the procedure in the module docstring: the certificate, from counts alone.

    For the m events of ``selection`` and n = ``selection.certification_samples``, event i
    with numerator side j gets LCB_i = Clopper–Pearson lower bound of ``counts[j][i]`` of n and
    UCB_i = the upper bound of ``counts[1 − j][i]`` of n, each one-sided at significance
    (1 − ``confidence``)/(2m) (Bonferroni over the 2m bounds).  Then, simultaneously with
    probability ≥ ``confidence``: for each δ in ``deltas``, ε(δ) ≥ max_i ln((LCB_i − δ)/UCB_i)
    (:func:`~dpaudit.stats.epsilon.epsilon_from_counts`; the point records every event's
    bound and the best one); for each α in ``alphas``, the larger Rényi divergence of the pair
    is ≥ max_i D_α(Bern(LCB_i)‖Bern(UCB_i)) (:func:`~dpaudit.stats.epsilon.renyi_from_bounds`;
    0 when no event separates the sides).  No sample is drawn.

    Args:
      selection: the kept events and their statistics (step 1).
      counts: ``[counts on d0, counts on d1]`` over the certification split (step 2).
      deltas, alphas: the δ and α grids (already validated).
      confidence: 1 − the family-wise error.
      seconds, selection_seconds: the timings to record in each point.
    """
    events, stats = selection.events, selection.statistics
    n_cert = selection.certification_samples
    m = len(events)
    significance = (1.0 - confidence) / (2 * m)
    bounds = []
    for i, cand in enumerate(events):
        k_num = int(counts[cand.numerator][i])
        k_den = int(counts[1 - cand.numerator][i])
        lcb = float(clopper_pearson_lower(k_num, n_cert, significance))
        ucb = float(clopper_pearson_upper(k_den, n_cert, significance))
        stat = stats[cand.stat_index]
        bounds.append((cand, stat, k_num, k_den, lcb, ucb))
    method = METHOD.format(distinguisher=selection.distinguisher, bounds=2 * m, k=m)
    samples = selection.selection_samples + n_cert
    points = []
    for delta in deltas:
        certified = tuple(CertifiedEvent(
            event=cand.describe(stat), numerator=f"d{cand.numerator}",
            k_numerator=k_num, n_numerator=n_cert, k_denominator=k_den, n_denominator=n_cert,
            p_numerator_lower=lcb, p_denominator_upper=ucb,
            epsilon=float(epsilon_from_counts(k_num, n_cert, k_den, n_cert, delta=delta,
                                              significance=significance)),
            definition=cand.definition(stat))
            for cand, stat, k_num, k_den, lcb, ucb in bounds)
        best = max(certified, key=lambda c: c.epsilon)
        chosen = certified.index(best)
        floating = bool(getattr(bounds[chosen][1], "reads_representation", False))
        value_eps = max((c.epsilon for c, b in zip(certified, bounds)
                         if not getattr(b[1], "reads_representation", False)), default=0.0)
        finding = describe_representation_event(
            bounds[chosen][1], events[chosen].op, events[chosen].threshold, best.numerator,
            best.k_numerator, n_cert, best.k_denominator, n_cert) if floating else None
        points.append(EpsilonLowerBound(
            epsilon=best.epsilon, delta=delta, confidence=confidence, method=method,
            event=best.event, numerator=best.numerator, k_numerator=best.k_numerator,
            n_numerator=best.n_numerator, k_denominator=best.k_denominator,
            n_denominator=best.n_denominator, per_bound_significance=significance,
            family_size=2 * m, samples=samples, selection_samples=selection.selection_samples,
            certification_samples=n_cert, output_kind=selection.output_kind,
            seed=selection.seed, seconds=seconds, candidates=certified,
            event_definition=best.definition, selection_seconds=selection_seconds,
            floating_point=floating, value_epsilon=value_eps, floating_point_finding=finding,
            distinguisher=selection.distinguisher))
    renyi = []
    for alpha in alphas:
        best_div, best_event = 0.0, bounds[0][0].describe(bounds[0][1])
        for cand, stat, _, _, lcb, ucb in bounds:
            div = renyi_from_bounds(lcb, ucb, alpha)
            if div > best_div:
                best_div, best_event = div, cand.describe(stat)
        renyi.append(RenyiLowerBound(alpha=alpha, divergence=best_div, event=best_event,
                                     distinguisher=selection.distinguisher))
    return PrivacyCurveLowerBound(points=tuple(points), renyi=tuple(renyi))


def estimate_privacy_curve_lower_bound(
        sampler, d0, d1, *, deltas=(0.0,), alphas=(), samples: int, confidence: float = 0.95,
        seed=None, selection_fraction: float = 0.2, candidates: int = 2,
        max_selection: int = 1_000_000, distinguisher: str = "auto", log_density=None,
        workers: int = 1, representation: bool = False,
        counter: EventCounter | None = None) -> PrivacyCurveLowerBound:
    """Certify lower bounds on ε(δ) for every δ in ``deltas`` and on the Rényi divergence at
    every order in ``alphas``, all holding simultaneously with probability ≥ ``confidence``.

    ``sampler(dataset, n, rng)`` must return n outputs (shape ``(n,)`` or ``(n, k)``, ints or
    floats) drawn with the numpy Generator ``rng``.  ``samples`` is the number of outputs per
    side (selection + certification); the selection split is ``selection_fraction`` of it, at
    most ``max_selection`` per side.  ``distinguisher``: ``auto`` (fitted statistics, plus
    logistic regression for continuous vector outputs), ``statistics``,
    ``logistic``, ``boosting``, ``projection`` (a fixed mean-difference projection) or
    ``white-box`` (the exact privacy loss; needs ``log_density(dataset, outputs)``).
    ``workers`` > 1 counts the two sides' certification split in two processes (the sampler
    must then be picklable); the result does not depend on it.  ``counter`` chooses where the
    certification split is counted (:mod:`dpaudit.distinguish.counting`; e.g. chunk ranges
    across a Dask cluster); it overrides ``workers``, and the result does not depend on it
    either: every chunk draws from its own (seed, side, chunk) stream and counts are summed.
    ``representation`` (``auto`` and ``statistics`` only): also test the float64
    representation of continuous outputs (:mod:`dpaudit.distinguish.floating`), for samplers
    that *are* the implementation under audit rather than a stand-in for a real-valued
    mechanism.  A sampler that ignores ``rng`` (two draws with the same seed differ) gets a
    ``RuntimeWarning`` and its certification split is counted in this process whatever
    ``workers`` or ``counter`` say (a module-level generator is copied into, or re-created
    in, every worker process, whose draws would then repeat one another's); the run is not
    reproducible (:func:`dpaudit.distinguish.sampling.ignores_rng`).  A sampler whose draws
    repeat (the same outputs for different seeds, one value per call, values repeated within a
    call, or the same outputs for two seeds at the selection chunk's size: it re-seeds a
    generator of its own) raises :class:`~dpaudit.distinguish.sampling.SamplerError` before
    the certification split, since its samples are not independent and nothing could be
    certified (:func:`dpaudit.distinguish.sampling.repeated_draws`,
    :func:`dpaudit.distinguish.sampling.repeats_between_calls`).
    """
    deltas = [float(d) for d in np.atleast_1d(deltas)]
    alphas = [float(a) for a in np.atleast_1d(alphas)] if len(np.atleast_1d(alphas)) else []
    chosen = _validate_arguments(sampler, samples, deltas, alphas, confidence,
                                 selection_fraction, candidates, distinguisher, log_density)
    start = time.perf_counter()
    confidence, samples = float(confidence), int(samples)
    entropy = _entropy(seed)
    selection = select(sampler, d0, d1, chosen, deltas=deltas, samples=samples,
                       confidence=confidence, seed=entropy,
                       selection_fraction=selection_fraction, candidates=candidates,
                       max_selection=max_selection, log_density=log_density,
                       representation=representation)
    selection_seconds = time.perf_counter() - start
    if counter is None:
        counter = ProcessCounter() if workers > 1 else SerialCounter()
    if selection.ignores_rng:  # its own generator may be copied into (or re-created in)
        counter = SerialCounter()  # every process, which would repeat draws across processes
    counts = count(sampler, d0, d1, selection, counter)
    return certify(selection, counts, deltas=deltas, alphas=alphas, confidence=confidence,
                   seconds=time.perf_counter() - start, selection_seconds=selection_seconds)


def estimate_epsilon_lower_bound(sampler, d0, d1, *, delta: float = 0.0, samples: int,
                                 confidence: float = 0.95, seed=None, **options
                                 ) -> EpsilonLowerBound:
    """Certify a lower bound on the ε of the pair (d0, d1) at δ from samples of ``sampler``.

    With probability ≥ ``confidence`` the true ε of the pair at ``delta`` is ≥ the returned
    ``.epsilon``.  ``sampler(dataset, n, rng)`` returns n outputs; ``samples`` is per side.
    Options as for :func:`estimate_privacy_curve_lower_bound` (``selection_fraction``,
    ``candidates``, ``max_selection``, ``distinguisher``, ``log_density``, ``workers``)."""
    if isinstance(delta, (list, tuple, np.ndarray)):
        raise TypeError("delta must be one number; use estimate_privacy_curve_lower_bound "
                        "for a grid")
    curve = estimate_privacy_curve_lower_bound(sampler, d0, d1, deltas=(delta,),
                                               samples=samples, confidence=confidence,
                                               seed=seed, **options)
    return curve.points[0]


class _Squeezed:
    """Wraps a sampler returning (n, 1) so that its outputs are treated as scalars."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __call__(self, dataset, n, rng):
        return np.asarray(self.sampler(dataset, n, rng)).reshape(n)


__all__ = ["estimate_epsilon_lower_bound", "estimate_privacy_curve_lower_bound",
           "selection_size", "select", "count", "certify", "Selection",
           "PrivacyCurveLowerBound", "RenyiLowerBound", "DISTINGUISHERS"]
