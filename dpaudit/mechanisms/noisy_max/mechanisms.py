"""Report-noisy-max: the correct argmax versions and the two published max-value bugs.

A dataset is the vector q ∈ ℝᵐ of m query answers, each of sensitivity Δ (``sensitivity``,
default 1).  Neighbouring (StatDP's ALL_DIFFER): every answer may move, ‖q − q′‖∞ ≤ Δ.

Report noisy max (Dwork & Roth 2014, §3.3, Claim 3.9) adds i.i.d. noise of scale b = 2Δ/ε to
every answer and releases the *index* of the largest noisy answer; with ALL_DIFFER neighbours
the proof gives privacy loss 2Δ/b = ε for Laplace noise and for exponential noise (the latter
is the exponential mechanism in "permute-and-flip" form).  Releasing the noisy *value* instead
is the classic bug (Ding et al. CCS'18, StatDP ``noisy_max_v1b``/``v2b``; DP-Sniper
ReportNoisyMax3/4; CheckDP ``badnoisymax``).

Every noise scale is evaluated from :data:`NOISE_SCALE`, and every claim carries that formula
and the proof's privacy-loss formula :data:`CLAIMED_LOSS` (see :func:`pure_claim`).

This module also holds the two helpers shared with :mod:`dpaudit.mechanisms.sparse_vector.mechanisms`
(:func:`query_vector`, :func:`pure_claim`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import sympy as sp

from dpaudit.util import validation
from dpaudit.claims import PureDP, SymbolicFormula
from dpaudit.claims.certificates import load_formula
from dpaudit.mechanisms.noisy_max import exact
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise, OutputSpace, Parameter
from dpaudit.mechanisms.capabilities import CalibratedNoise, GreyBoxQuery, SearchableDatasets
from dpaudit.neighbours import NeighbourRelation, linf, linf_within
from dpaudit.neighbours.spaces import QueryAnswers

EPSILON, DELTA_Q, B, M = sp.symbols("epsilon Delta b m")

#: certified in proofs/noisy_max.py (proofs/certificates/noisy_max.json):
#: noise scale of report noisy max, ALL_DIFFER neighbours: b = 2Δ/ε (Dwork & Roth 2014, §3.3)
NOISE_SCALE = load_formula("noisy_max", "noise_scale")
#: privacy loss the argmax proof gives at noise scale b, 2Δ/b (and what the buggy variants claim)
CLAIMED_LOSS = load_formula("noisy_max", "claimed_loss")
#: real privacy loss of the Laplace max-value bug, mΔ/b: the left-tail density ratio e^{mΔ/b},
#: and each of the m factors of f_M is (1/b)-log-Lipschitz (PRIOR_ART §5.1)
VALUE_BUG_LOSS = load_formula("noisy_max", "value_bug_loss")

NEIGHBOURING = "ALL_DIFFER: every query answer may change by at most Δ, ‖q − q′‖∞ ≤ Δ"


def all_differ(sensitivity: float) -> NeighbourRelation:
    """The ALL_DIFFER relation of noisy max and the sparse vector technique: ‖q − q′‖∞ ≤ Δ."""
    return NeighbourRelation(f"all-differ(Δ={sensitivity:g})", NEIGHBOURING, linf(sensitivity))


def num_queries_parameter(default: int | None) -> Parameter:
    """The ``num_queries`` parameter (m): ``None`` means ``default``; a whole number ≥ 1, or
    ``None`` (any length) when ``default`` is ``None``."""
    def check(name, value):
        if value is None:
            value = default
        return check_positive_parameter(name, value, integer=True, allow_none=default is None)
    return Parameter(default, check, "number of queries m (None: any length)")


# -- shared helpers -------------------------------------------------------------------------------

def check_positive_parameter(name: str, value, *, integer: bool = False, allow_none: bool = False):
    """Validate a mechanism parameter (:mod:`dpaudit.util.validation`); the ValueError names it."""
    if value is None and allow_none:
        return None
    return validation.positive_int(name, value) if integer else validation.positive(name, value)


def check_finite(name: str, value) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return value


def query_vector(dataset, num_queries: int | None, mechanism: str) -> np.ndarray:
    """The dataset as a 1-D float vector of query answers, or a ValueError naming the problem."""
    try:
        q = np.asarray(dataset, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{mechanism}: dataset must be a 1-D vector of numeric query answers, "
                         f"got {dataset!r}") from None
    if q.ndim != 1:
        raise ValueError(f"{mechanism}: dataset must be a 1-D vector of query answers, "
                         f"got an array of shape {q.shape}")
    if q.size == 0:
        raise ValueError(f"{mechanism}: dataset is empty (need at least one query answer)")
    validation.finite_entries(f"{mechanism}: dataset (query answers)", q)
    if num_queries is not None and q.size != num_queries:
        raise ValueError(f"{mechanism}: dataset has {q.size} query answers but num_queries="
                         f"{num_queries}")
    return q


def check_sample_size(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n (number of samples) must be an integer >= 0, got {n!r}")
    return int(n)


def check_neighbours(q0: np.ndarray, q1: np.ndarray, sensitivity: float, mechanism: str):
    """Raise ValueError unless ‖q0 − q1‖∞ ≤ sensitivity (see :mod:`dpaudit.neighbours`)."""
    ok, reason = linf_within(q0, q1, sensitivity)
    if not ok:
        raise ValueError(f"{mechanism}: datasets are not neighbours: {reason}")


def pure_claim(loss: SymbolicFormula, scales: Iterable[SymbolicFormula], values: dict,
               scale_values: dict) -> PureDP:
    """PureDP(ε) whose ε is ``loss`` evaluated at the calibrated noise scales.

    The claim's ``expression`` is the tuple of equations ``scale = formula`` (the very
    formulas the sampler evaluated) followed by ``epsilon_claimed = loss``; ``substitutions``
    holds the parameter values and the resulting scales."""
    scales = list(scales)
    eps = loss(**{**values, **scale_values})
    expression = sp.Tuple(*(sp.Eq(sp.Symbol(f.name), f.expression) for f in scales),
                          sp.Eq(sp.Symbol(loss.name), loss.expression))
    return PureDP(epsilon=eps, expression=expression,
                  substitutions={**values, **scale_values})


def scaled_pairs(pairs: list[tuple[str, list, list, str]],
                 sensitivity: float) -> list[NeighbourPair]:
    """NeighbourPair objects with plain-Python answers multiplied by the sensitivity."""
    def scaled(v):
        v = v * sensitivity
        return int(v) if float(v).is_integer() else float(v)
    return [NeighbourPair(name, [scaled(x) for x in d0], [scaled(x) for x in d1], why)
            for name, d0, d1, why in pairs]


# -- the mechanisms -------------------------------------------------------------------------------

class AnswerVectorQuery(GreyBoxQuery):
    """The input is the vector q of m query answers under ALL_DIFFER neighbours
    (‖q − q′‖∞ ≤ Δ, :func:`all_differ`): the query is q itself and its ℓ∞ sensitivity is the
    declared ``sensitivity`` parameter Δ.  Shared by noisy max and the sparse vector family."""

    _sensitivity = Parameter(1.0, check_positive_parameter,
                             "ℓ∞ sensitivity Δ of the answer vector", name="sensitivity")
    sensitivity_norm = "linf"

    def relation(self) -> NeighbourRelation:
        return all_differ(self._sensitivity)

    def sensitivity(self) -> float:
        """Δ: every answer moves by at most Δ (ℓ∞)."""
        return self._sensitivity

    def query(self, dataset) -> np.ndarray:
        """The query answers themselves (the mechanism's input is the answer vector)."""
        return self.validate_dataset(dataset)


class NoisyMaxBase(CalibratedNoise, AnswerVectorQuery, SearchableDatasets, Mechanism):
    """Shared part of the report-noisy-max mechanisms: the dataset is the vector of m query
    answers, neighbours are ALL_DIFFER (‖q − q′‖∞ ≤ Δ), each answer gets i.i.d. noise of scale
    b = 2Δ/ε (:data:`NOISE_SCALE`); subclasses choose the noise law and what is released.
    Not registered itself."""

    family = "noisy_max"
    parameter_order = ("epsilon", "sensitivity", "num_queries")

    epsilon = Parameter(1.0, check_positive_parameter, "privacy parameter ε > 0")
    #: m; None: any length (the pairs then use 5)
    num_queries = num_queries_parameter(None)

    def derive(self) -> None:
        self._values = {"epsilon": self.epsilon, "Delta": self._sensitivity}
        self.scale = NOISE_SCALE(**self._values)

    def validate_dataset(self, dataset) -> np.ndarray:
        return query_vector(dataset, self.num_queries, self.name)

    #: the law of each query's noise ("laplace" or "exponential"), for :meth:`noise`
    noise_distribution = "laplace"
    #: "noisy-max-argmax" or "noisy-max-value" (set by the output mixins)
    noise_law = "noisy-max-argmax"

    def dataset_space(self) -> QueryAnswers:
        """m answers in [−10Δ, 10Δ] (m = num_queries, or 2..6), ‖q − q′‖∞ ≤ Δ."""
        d = self._sensitivity
        m_min, m_max = (self.num_queries,) * 2 if self.num_queries else (2, 6)
        return QueryAnswers(d, m_min, m_max, lo=-10.0 * d, hi=10.0 * d)

    def noise(self) -> Noise:
        b = self.claimed_value("b")
        probe = [0.0] * (self._pair_length() - 1) + [b]  # one answer ahead by b
        return Noise(self.noise_law, {"b": b}, options={"distribution": self.noise_distribution},
                     probe=probe, source=f"claim: {NOISE_SCALE}")

    def claim(self) -> PureDP:
        return pure_claim(CLAIMED_LOSS, [NOISE_SCALE], self._values, {"b": self.scale})

    def _noisy(self, dataset, n, rng) -> np.ndarray:
        q = self.validate_dataset(dataset)
        n = check_sample_size(n)
        rng = np.random.default_rng(rng)
        return q[None, :] + self._noise(rng, (n, q.size))

    def _noise(self, rng, shape):  # pragma: no cover - abstract
        raise NotImplementedError

    def _pair_length(self) -> int:
        return self.num_queries if self.num_queries is not None else 5

    #: how many pairs :meth:`worst_case_pairs` returns (each two datasets of m answers)
    worst_case_pair_count = 2

    def pairs_size(self) -> tuple[int, str]:
        """2 datasets of m answers per worst-case pair."""
        m = self._pair_length()
        return 2 * self.worst_case_pair_count * m, f"num_queries = {m}"

    #: measured peak bytes per query: a sampling chunk holds a (65536, m) float64 noise
    #: matrix and its sum with q (``getrusage``: 1000 MiB for one chunk at m = 1000)
    bytes_per_query = 1 << 20

    def output_space(self, d0, d1) -> OutputSpace:
        """m outcomes (the argmax index), costed per query (:attr:`bytes_per_query`)."""
        m = max(np.size(d0), np.size(d1))
        return OutputSpace(m, f"m = {m} queries", self.bytes_per_query)

    def _exact_inputs(self, d0, d1):
        q0, q1 = self.validate_dataset(d0), self.validate_dataset(d1)
        check_neighbours(q0, q1, self._sensitivity, self.name)
        return q0, q1


class ArgmaxOutput:
    """Output mixin of :class:`NoisyMaxBase`: release the index of the largest noisy answer."""

    _argmax_probabilities = None

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """n independent argmax indices, shape (n,), dtype int64."""
        return np.argmax(self._noisy(dataset, n, rng), axis=1).astype(np.int64)

    def argmax_probabilities(self, dataset) -> np.ndarray:
        """Exact P(output = i) for each i (quad, see :mod:`dpaudit.mechanisms.noisy_max.exact`)."""
        return type(self)._argmax_probabilities(self.validate_dataset(dataset), self.scale)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """max_i |ln P₀(i)/P₁(i)| at δ = 0; ε(δ) of the two index laws for δ > 0."""
        q0, q1 = self._exact_inputs(d0, d1)
        return exact.discrete_pair_epsilon(self.argmax_probabilities(q0),
                                           self.argmax_probabilities(q1), delta)


class NoisyMaxLaplace(ArgmaxOutput, NoisyMaxBase):
    """Report noisy max with Laplace noise: argmaxᵢ (qᵢ + Lap(2Δ/ε)); ε-DP.

    Dwork & Roth 2014, §3.3 (Claim 3.9, here with ALL_DIFFER neighbours, hence scale 2Δ/ε);
    StatDP ``noisy_max_v1a``; DP-Sniper ``ReportNoisyMax1``.  Output: the index (int)."""

    name = "noisy-max-laplace"
    _argmax_probabilities = staticmethod(exact.laplace_argmax_probabilities)

    def _noise(self, rng, shape):
        return rng.laplace(0.0, self.scale, size=shape)

    def worst_case_pairs(self) -> list[NeighbourPair]:
        m = self._pair_length()
        return scaled_pairs([
            ("one-below-rest-above-gap1", [1] + [2] * (m - 1), [0] + [3] * (m - 1),
             "the lowest query drops by Δ while all others rise by Δ; P(argmax = 0) falls by "
             "almost e^ε (exact ε 0.9957·ε at m=5; best found by exhaustive search over "
             "{0,1}ᵐ × {−1,0,1}ᵐ for m ≤ 5)"),
            ("statdp-one-below-rest-above", [1] * m, [0] + [2] * (m - 1),
             "StatDP ALL_DIFFER pattern 'one below rest above' (exact ε 0.980·ε at m=5)"),
        ], self._sensitivity)


class NoisyMaxExponential(ArgmaxOutput, NoisyMaxBase):
    """Report noisy max with exponential noise: argmaxᵢ (qᵢ + Exp(scale 2Δ/ε)); ε-DP.

    Equivalent to the exponential mechanism run as permute-and-flip; StatDP ``noisy_max_v2a``;
    DP-Sniper ``ReportNoisyMax2``.  Output: the index (int).  The bound is tight: the pairs
    below attain exactly ε."""

    name = "noisy-max-exponential"
    _argmax_probabilities = staticmethod(exact.exponential_argmax_probabilities)

    noise_distribution = "exponential"

    def _noise(self, rng, shape):
        return rng.exponential(self.scale, size=shape)

    def worst_case_pairs(self) -> list[NeighbourPair]:
        m = self._pair_length()
        return scaled_pairs([
            ("statdp-one-below-rest-above", [1] * m, [0] + [2] * (m - 1),
             "StatDP ALL_DIFFER pattern 'one below rest above'; exact ε = ε (tight)"),
            ("one-below-rest-above-gap1", [1] + [2] * (m - 1), [0] + [3] * (m - 1),
             "the lowest query drops by Δ, all others rise by Δ; exact ε = ε (tight)"),
        ], self._sensitivity)


class ValueOutput:
    """Output mixin of :class:`NoisyMaxBase`: release the largest noisy *value* (the
    known-bad variants)."""

    noise_law = "noisy-max-value"
    #: the exact ε evaluates the max's log-density on a grid of 200 001 points × m queries
    #: (``getrusage``: 1255 MiB for one ``exact_epsilon`` at m = 100, 12.5 MiB per query)
    bytes_per_query = 13 << 20

    def sample(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """n independent maximum noisy values, shape (n,), dtype float64."""
        return np.max(self._noisy(dataset, n, rng), axis=1)


class NoisyMaxLaplaceValue(ValueOutput, NoisyMaxBase):
    """KNOWN BAD: report noisy max that releases the max noisy *value*, Laplace(2Δ/ε) noise.

    Ding et al. CCS'18 Alg. 7 / StatDP ``noisy_max_v1b``; DP-Sniper ``ReportNoisyMax3``;
    CheckDP ``badnoisymax``.  Claimed ε; real ε = mΔ/b = m·ε/2 for m queries (PRIOR_ART §5.1:
    for t below every qᵢ the density ratio of the max is exactly e^{Σ(q₁ᵢ − q₀ᵢ)/b}, and no
    ratio exceeds e^{mΔ/b}).  ``num_queries`` (default 5) fixes m and is checked against
    every dataset."""

    name = "noisy-max-laplace-value"
    known_bad = True
    literature = ("Ding et al. CCS'18 (StatDP noisy_max_v1b), DP-Sniper ReportNoisyMax3, CheckDP "
                  "badnoisymax: true ε = m·ε/2 (PRIOR_ART §5.1, derived from the left-tail "
                  "density ratio)")
    num_queries = num_queries_parameter(5)

    def _noise(self, rng, shape):
        return rng.laplace(0.0, self.scale, size=shape)

    def true_epsilon(self) -> float:
        return VALUE_BUG_LOSS(m=self.num_queries, Delta=self._sensitivity, b=self.scale)

    worst_case_pair_count = 3

    def worst_case_pairs(self) -> list[NeighbourPair]:
        m = self.num_queries
        return scaled_pairs([
            ("all-up", [0] * m, [1] * m,
             "every answer rises by Δ; below min q the density ratio is e^{mΔ/b}: exact ε = "
             "m·ε/2 (the true ε)"),
            ("statdp-all-above", [1] * m, [2] * m, "StatDP 'all above' (same as all-up)"),
            ("statdp-one-above-rest-below", [1] * m, [2] + [0] * (m - 1),
             "StatDP 'one above rest below'; exact ε = (m−2)·ε/2 from the left tail"),
        ], self._sensitivity)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """sup_t |ln f₀(t)/f₁(t)| by grid + refinement (guaranteed within ≈ 7.5e-5·(m+2), see
        :func:`dpaudit.mechanisms.noisy_max.exact.laplace_max_value_epsilon`); None for δ > 0."""
        if delta != 0.0:
            return None
        q0, q1 = self._exact_inputs(d0, d1)
        return exact.laplace_max_value_epsilon(q0, q1, self.scale)


class NoisyMaxExponentialValue(ValueOutput, NoisyMaxBase):
    """KNOWN BAD: report noisy max releasing the max noisy *value*, exponential noise.

    Ding et al. CCS'18 Alg. 8 / StatDP ``noisy_max_v2b``; DP-Sniper ``ReportNoisyMax4``.
    Real ε = ∞: the output is ≥ max q, so raising every answer by Δ moves the support.
    Defaults m = 3, ε = 2 (b = 1): on [0,0,0] vs [1,1,1] the event {output < 1} has
    probability (1 − e^{−1})³ ≈ 0.252 under d₀ and 0 under d₁ — a large mismatch mass, so a
    sample-based certificate (≈ ln(n·mass)) grows quickly."""

    name = "noisy-max-exponential-value"
    known_bad = True
    literature = ("Ding et al. CCS'18 (StatDP noisy_max_v2b), DP-Sniper ReportNoisyMax4: true "
                  "ε = ∞ (PRIOR_ART §5.1: output ≥ max q, support shifts with q)")
    epsilon = Parameter(2.0, check_positive_parameter, "privacy parameter ε > 0")
    num_queries = num_queries_parameter(3)

    noise_distribution = "exponential"

    def _noise(self, rng, shape):
        return rng.exponential(self.scale, size=shape)

    def true_epsilon(self) -> float:
        return math.inf

    def support_mismatch_mass(self, d0, d1) -> float:
        """P₀(output < max q₁) when max q₀ < max q₁: Πᵢ F(max q₁ − q₀ᵢ) (0 otherwise)."""
        q0, q1 = self._exact_inputs(d0, d1)
        top = float(q1.max())
        if q0.max() >= top:
            return 0.0
        return float(np.prod(-np.expm1(-(top - q0) / self.scale)))

    def worst_case_pairs(self) -> list[NeighbourPair]:
        m = self.num_queries
        return scaled_pairs([
            ("all-up", [0] * m, [1] * m,
             "every answer rises by Δ; {output < Δ} is possible only on d0, with probability "
             "(1 − e^{−Δ/b})^m (≈ 0.252 at the defaults): exact ε = ∞"),
            ("statdp-one-above", [1] * m, [2] + [1] * (m - 1),
             "StatDP 'one above': max rises, {output < 2Δ} impossible on d1: exact ε = ∞"),
        ], self._sensitivity)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float | None:
        """∞ on a support shift (or a different number of ties at the max); else the sup of
        the density log-ratio (see :func:`dpaudit.mechanisms.noisy_max.exact.exponential_max_value_epsilon`).
        None for δ > 0."""
        if delta != 0.0:
            return None
        q0, q1 = self._exact_inputs(d0, d1)
        return exact.exponential_max_value_epsilon(q0, q1, self.scale)


__all__ = ["NoisyMaxLaplace", "NoisyMaxExponential", "NoisyMaxLaplaceValue",
           "NoisyMaxExponentialValue", "NOISE_SCALE", "CLAIMED_LOSS", "VALUE_BUG_LOSS",
           "query_vector", "pure_claim", "scaled_pairs"]
