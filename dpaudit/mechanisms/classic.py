"""Classic DP mechanisms: Laplace, Gaussian, randomized response, geometric, exponential.

Every noise parameter (Laplace scale b, Gaussian σ, keep-probability, geometric ratio α,
selection temperature β) is obtained by evaluating a module-level :class:`SymbolicFormula`,
and each claim carries that formula as the equation ``name = expression`` (a ``sympy.Tuple``
of ``Eq``, see :func:`claim_expression`) with the parameter values and the evaluated result in
``substitutions``.  Each mechanism knows the exact privacy curve of any pair of its datasets
(``exact_epsilon``), computed by :mod:`dpaudit.exact` from the same closed-form output laws
the sampler draws from.

Conventions: ``sample(dataset, n, rng)`` validates the dataset, draws n independent outputs in
one vectorised call, and returns float arrays for continuous outputs and int64 arrays for
discrete ones.  ``exact_epsilon(d0, d1, delta)`` is the smallest ε ≥ 0 such that both
sup_S P₀(S) − e^ε P₁(S) ≤ δ and the same with D₀, D₁ swapped.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import sympy as sp
from scipy.optimize import brentq
from scipy.special import log_softmax

from dpaudit import validation
from dpaudit.claims import AllOf, ApproxDP, PureDP, SymbolicFormula, ZCDP
from dpaudit.claims.certificates import load_formula
from dpaudit.exact import discrete_epsilon, gaussian_epsilon, laplace_epsilon
from dpaudit.neighbours import add_remove_one, any_single_record, linf
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise
from dpaudit.neighbours.spaces import BoundedRecords, QueryAnswers, SingleCategorical
from dpaudit.mechanisms.registry import register

#: formula symbols; Delta is the sensitivity Δ (the ``sensitivity`` parameter)
EPS, DELTA, SENS, SIGMA, K = sp.symbols("epsilon delta Delta sigma k")


#: every calibration is certified: derived and checked in proofs/classic.py, read from
#: proofs/certificates/classic.json (``dpaudit prove classic`` regenerates it)
LAPLACE_SCALE = load_formula("classic", "laplace_scale")  # b = Δ/ε
GAUSSIAN_SIGMA_CLASSICAL = load_formula("classic", "gaussian_sigma_classical")  # Δ√(2ln(1.25/δ))/ε
#: exact δ of N(0,σ²) vs N(Δ,σ²) at ε (Balle & Wang 2018, Thm 8); decreasing in σ (proved)
GAUSSIAN_ANALYTIC_DELTA = load_formula("classic", "gaussian_analytic_delta")
GAUSSIAN_RHO = load_formula("classic", "gaussian_rho")  # ρ = Δ²/(2σ²)
RR_P_TRUE = load_formula("classic", "rr_p_true")  # e^ε/(e^ε + k − 1)
RR_P_OTHER = load_formula("classic", "rr_p_other")  # 1/(e^ε + k − 1)
GEOMETRIC_ALPHA = load_formula("classic", "geometric_alpha")  # e^{−ε/Δ}
EXPONENTIAL_BETA = load_formula("classic", "exponential_beta")  # ε/(2Δ)


def claim_expression(*formulas: SymbolicFormula) -> sp.Tuple:
    """The claim's expression: the equations ``name = formula`` the sampler evaluated."""
    return sp.Tuple(*(sp.Eq(sp.Symbol(f.name), f.expression) for f in formulas))


# -- validation helpers ---------------------------------------------------------------------
_positive = validation.positive
_positive_int = validation.positive_int


def _records(dataset, lo: float, hi: float, *, integer: bool = False,
             min_len: int = 0, what: str = "record") -> np.ndarray:
    """A 1-D numeric array with every entry finite and in [lo, hi], or a ValueError."""
    if dataset is None or isinstance(dataset, (str, bytes, dict)):
        raise ValueError(f"dataset must be a 1-D sequence of numbers, got {type(dataset).__name__}")
    try:
        arr = np.asarray(dataset)
    except ValueError as exc:  # ragged nesting
        raise ValueError(f"dataset must be a 1-D sequence of numbers: {exc}") from None
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"dataset must contain only numbers, got dtype {arr.dtype} "
                         f"(first entries {arr.ravel()[:3].tolist()})")
    if arr.ndim != 1:
        raise ValueError(f"dataset must be 1-D (one {what} per entry), got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"dataset needs at least {min_len} {what}s, got {arr.size}")
    arr = arr.astype(float)
    validation.finite_entries("dataset", arr)
    bad = np.flatnonzero((arr < lo) | (arr > hi))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{what} {arr[i]:g} at index {i} is outside the allowed range "
                         f"[{lo:g}, {hi:g}] ({bad.size} such {what}s)")
    if integer:
        bad = np.flatnonzero(arr != np.round(arr))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{what} {arr[i]:g} at index {i} is not an integer")
        return arr.astype(np.int64)
    return arr


_check_draw = validation.draw_request


# -- bounded sums (Laplace, Gaussian and the known-bad Laplace variants) ---------------------
class BoundedSumMechanism(Mechanism):
    """Shared part of mechanisms releasing q(D) = Σ records, records in [0, Δ].

    Under add/remove-one-record neighbours |q(D) − q(D′)| ≤ Δ (the sensitivity), attained by
    adding a record of value Δ.  Not registered itself."""

    neighbouring = "add/remove one record; records lie in [0, Δ] so the sum moves by ≤ Δ"

    def relation(self):
        return add_remove_one

    def validate_dataset(self, dataset) -> np.ndarray:
        return _records(dataset, 0.0, self._sensitivity)

    def query(self, dataset) -> float:
        return float(self.validate_dataset(dataset).sum())

    def sensitivity(self) -> float:
        return self._sensitivity

    def dataset_space(self) -> BoundedRecords:
        """Records in [0, Δ], 1..6 of them, add/remove-one neighbours."""
        return BoundedRecords(0.0, float(self._sensitivity), n_max=6, neighbouring="add-remove")

    def _shift(self, d0, d1) -> float:
        return abs(self.query(d0) - self.query(d1))

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return [NeighbourPair(
            "add-max-record", [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, self._sensitivity],
            "adding one record of value Δ moves the sum by the full sensitivity Δ; the pair "
            "is a pure shift by Δ, the worst case of the noise-addition proof")]


@register
class LaplaceMechanism(BoundedSumMechanism):
    """Laplace mechanism on a bounded sum: M(D) = Σ D + Z, Z ~ Lap(0, b), b = Δ/ε.

    Source: Dwork, McSherry, Nissim & Smith, TCC 2006; Dwork & Roth 2014, Thm 3.6.  Density
    ratio |ln p_D(y)/p_D′(y)| = ||y − q(D′)| − |y − q(D)||/b ≤ Δ/b = ε, so ε-DP.  The exact
    curve of a pair with shift s is δ(ε′) = 1 − e^{(ε′ − s/b)/2} (see
    :mod:`dpaudit.exact.laplace`); at the worst pair (s = Δ) the pure ε is exactly ε."""

    name = "laplace"
    family = "classic"
    scale_formula = LAPLACE_SCALE

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0):
        eps = _positive("epsilon", epsilon)
        sens = _positive("sensitivity", sensitivity)
        super().__init__(epsilon=eps, sensitivity=sens)
        self.epsilon, self._sensitivity = eps, sens
        self.scale = self.scale_formula(epsilon=eps, Delta=sens)

    def _subs(self) -> dict:
        return {"epsilon": self.epsilon, "Delta": self._sensitivity}

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(self.scale_formula),
                      substitutions={**self._subs(), self.scale_formula.name: self.scale})

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = _check_draw(n, rng)
        return rng.laplace(self.query(dataset), self.scale, size=n)

    def noise(self) -> Noise:
        name = self.scale_formula.name
        return Noise("laplace", {name: self.claimed_value(name)},
                     source=f"claim: {self.scale_formula}")

    def log_density(self, dataset, outputs) -> np.ndarray:
        y = np.asarray(outputs, dtype=float)
        return -np.abs(y - self.query(dataset)) / self.scale - math.log(2 * self.scale)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return laplace_epsilon(delta, self._shift(d0, d1), self.scale)


@register
class GaussianMechanism(BoundedSumMechanism):
    """Gaussian mechanism on a bounded sum: M(D) = Σ D + N(0, σ²).

    * ``calibration="classical"``: σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1).  The
      theorem only covers ε < 1, so ε ≥ 1 is refused.
    * ``calibration="analytic"`` (default): Balle & Wang, ICML 2018, Alg. 1 — the smallest σ
      with Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ, found by brentq on the lambdified
      sympy expression.  Tight: the worst pair's exact ε at δ equals ε.

    Claim: (ε, δ)-DP and ρ-zCDP with ρ = Δ²/(2σ²) (Bun & Steinke 2016, Prop. 1.6).  Exact
    curve of a pair with shift s: δ(ε′) = Φ(μ/2 − ε′/μ) − e^{ε′} Φ(−μ/2 − ε′/μ), μ = s/σ."""

    name = "gaussian"
    family = "classic"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0,
                 calibration: str = "analytic"):
        eps = _positive("epsilon", epsilon)
        sens = _positive("sensitivity", sensitivity)
        if isinstance(delta, bool) or not isinstance(delta, numbers.Real) \
                or not (0.0 < float(delta) < 1.0):
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
        delta = float(delta)
        if calibration not in ("analytic", "classical"):
            raise ValueError(f"calibration must be 'analytic' or 'classical', got {calibration!r}")
        if calibration == "classical" and eps >= 1.0:
            raise ValueError(f"calibration='classical' needs epsilon < 1 (Dwork & Roth Thm A.1 "
                             f"only covers ε < 1), got epsilon={eps}; use 'analytic'")
        super().__init__(epsilon=eps, delta=delta, sensitivity=sens, calibration=calibration)
        self.epsilon, self.delta, self._sensitivity = eps, delta, sens
        self.calibration = calibration
        if calibration == "classical":
            self.sigma = GAUSSIAN_SIGMA_CLASSICAL(epsilon=eps, delta=delta, Delta=sens)
        else:
            self.sigma = self._analytic_sigma(eps, delta, sens)
        self.rho = GAUSSIAN_RHO(Delta=sens, sigma=self.sigma)

    @staticmethod
    def _analytic_sigma(eps: float, delta: float, sens: float) -> float:
        """Smallest σ with GAUSSIAN_ANALYTIC_DELTA(σ) ≤ δ (the expression decreases in σ)."""
        f = lambda s: GAUSSIAN_ANALYTIC_DELTA(  # noqa: E731
            sigma=s, epsilon=eps, Delta=sens) - delta
        lo = hi = sens / eps
        while f(lo) <= 0:
            lo /= 2.0
        while f(hi) > 0:
            hi *= 2.0
        sigma = brentq(f, lo, hi, xtol=1e-15 * hi, rtol=1e-15, maxiter=500)
        while f(sigma) > 0:  # round up so the claim really holds at the returned σ
            sigma *= 1.0 + 1e-14
        return float(sigma)

    def claim(self) -> AllOf:
        if self.calibration == "classical":
            approx = ApproxDP(self.epsilon, self.delta,
                              expression=claim_expression(GAUSSIAN_SIGMA_CLASSICAL),
                              substitutions={"epsilon": self.epsilon, "delta": self.delta,
                                             "Delta": self._sensitivity,
                                             "sigma": self.sigma})
        else:
            achieved = GAUSSIAN_ANALYTIC_DELTA(epsilon=self.epsilon, sigma=self.sigma,
                                               Delta=self._sensitivity)
            approx = ApproxDP(self.epsilon, self.delta,
                              expression=claim_expression(GAUSSIAN_ANALYTIC_DELTA),
                              substitutions={"epsilon": self.epsilon, "sigma": self.sigma,
                                             "Delta": self._sensitivity,
                                             GAUSSIAN_ANALYTIC_DELTA.name: achieved})
        zcdp = ZCDP(self.rho, expression=claim_expression(GAUSSIAN_RHO),
                    substitutions={"Delta": self._sensitivity, "sigma": self.sigma,
                                   "rho": self.rho})
        return AllOf(claims=(approx, zcdp))

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = _check_draw(n, rng)
        return rng.normal(self.query(dataset), self.sigma, size=n)

    def noise(self) -> Noise:
        return Noise("gaussian", {"sigma": self.claimed_value("sigma")},
                     source=f"claim ({self.calibration} calibration)")

    def log_density(self, dataset, outputs) -> np.ndarray:
        z = (np.asarray(outputs, dtype=float) - self.query(dataset)) / self.sigma
        return -0.5 * z * z - math.log(self.sigma * math.sqrt(2 * math.pi))

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return gaussian_epsilon(delta, self._shift(d0, d1) / self.sigma)


@register
class RandomizedResponse(Mechanism):
    """k-ary randomized response (Warner 1965; k-RR of Kairouz, Oh & Viswanath 2016).

    One record v ∈ {0, …, k−1}; output v with probability p = e^ε/(e^ε + k − 1), otherwise one
    of the k − 1 other values uniformly, each with probability 1/(e^ε + k − 1).  The largest
    likelihood ratio is p/(1/(e^ε+k−1)) = e^ε, so ε-DP (local DP: neighbours replace the
    record); the exact ε of any pair v ≠ v′ at δ = 0 is ε."""

    name = "randomized-response"
    family = "classic"
    neighbouring = "replace the single record (local DP): any two values in {0, …, k−1}"

    def relation(self):
        return any_single_record

    def __init__(self, epsilon: float = 1.0, k: int = 2):
        eps = _positive("epsilon", epsilon)
        k = _positive_int("k", k, minimum=2)
        super().__init__(epsilon=eps, k=k)
        self.epsilon, self.k = eps, k
        self.p_true = RR_P_TRUE(epsilon=eps, k=k)

    def validate_dataset(self, dataset) -> int:
        if isinstance(dataset, np.ndarray) and dataset.ndim == 0:
            dataset = dataset.item()
        if isinstance(dataset, (list, tuple, np.ndarray)):
            if np.ndim(dataset) != 1 or len(dataset) != 1:
                raise ValueError(f"dataset must be one record (an int or a length-1 list), "
                                 f"got a sequence of shape {np.shape(dataset)}")
            dataset = dataset[0]
        if isinstance(dataset, bool) or not isinstance(dataset, numbers.Real):
            raise ValueError(f"record must be an integer in {{0..{self.k - 1}}}, got {dataset!r}")
        return int(_records([dataset], 0, self.k - 1, integer=True)[0])

    def query(self, dataset) -> int:
        return self.validate_dataset(dataset)

    def dataset_space(self) -> SingleCategorical:
        return SingleCategorical(self.k)

    def noise(self) -> Noise:
        return Noise("randomized-response", {"p_true": self.claimed_value("p_true")},
                     options={"k": self.k}, probe=[0], source=f"claim: {RR_P_TRUE}")

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(RR_P_TRUE),
                      substitutions={"epsilon": self.epsilon, "k": self.k,
                                     "p_true": self.p_true})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return [NeighbourPair("flip-0-1", [0], [1],
                              "any two distinct values are equally hard; ratio e^ε at both")]

    def sample(self, dataset, n, rng) -> np.ndarray:
        v = self.validate_dataset(dataset)
        n = _check_draw(n, rng)
        keep = rng.random(n) < self.p_true
        other = (v + rng.integers(1, self.k, size=n, endpoint=False)) % self.k
        return np.where(keep, v, other).astype(np.int64)

    def log_probabilities(self, dataset) -> np.ndarray:
        """ln P[output = j], j = 0..k−1, from the p_true / p_other formulas."""
        v = self.validate_dataset(dataset)
        out = np.full(self.k, math.log(RR_P_OTHER(epsilon=self.epsilon, k=self.k)))
        out[v] = math.log(self.p_true)
        return out

    def log_density(self, dataset, outputs) -> np.ndarray:
        return self.log_probabilities(dataset)[np.asarray(outputs, dtype=np.int64)]

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return discrete_epsilon(delta, self.log_probabilities(d0), self.log_probabilities(d1),
                                symmetric=True, log_probs=True)


@register
class GeometricMechanism(BoundedSumMechanism):
    """Two-sided geometric mechanism (Ghosh, Roughgarden & Sundararajan, STOC 2009).

    Integer records in {0, …, Δ}; M(D) = Σ D + Z with P(Z = z) = (1−α)/(1+α)·α^{|z|},
    α = e^{−ε/Δ}; Z is drawn as G₁ − G₂ with G₁, G₂ i.i.d. geometric(1 − α).  Ratio of pmfs
    at shift s: α^{|y−s|−|y|} ≤ e^{εs/Δ}, so ε-DP for s ≤ Δ.  Exact curve: outcomes group by
    likelihood ratio into y ≤ 0, y = 1..s−1, y ≥ s (masses 1/(1+α), c α^j, α^s/(1+α) and
    mirrored), then :func:`dpaudit.exact.discrete_epsilon`."""

    name = "geometric"
    family = "classic"
    neighbouring = "add/remove one record; integer records in {0, …, Δ}, so the sum moves by ≤ Δ"

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1):
        eps = _positive("epsilon", epsilon)
        sens = _positive_int("sensitivity", sensitivity, minimum=1)
        super().__init__(epsilon=eps, sensitivity=sens)
        self.epsilon, self._sensitivity = eps, sens
        self.alpha = GEOMETRIC_ALPHA(epsilon=eps, Delta=sens)

    def validate_dataset(self, dataset) -> np.ndarray:
        return _records(dataset, 0, self._sensitivity, integer=True)

    def query(self, dataset) -> int:
        return int(self.validate_dataset(dataset).sum())

    def dataset_space(self) -> BoundedRecords:
        """Integer records in {0, …, Δ}, 1..6 of them, add/remove-one neighbours."""
        return BoundedRecords(0, int(self._sensitivity), n_max=6, neighbouring="add-remove",
                              integer=True)

    def noise(self) -> Noise:
        return Noise("geometric", {"alpha": self.claimed_value("alpha")},
                     source=f"claim: {GEOMETRIC_ALPHA}")

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(GEOMETRIC_ALPHA),
                      substitutions={"epsilon": self.epsilon, "Delta": self._sensitivity,
                                     "alpha": self.alpha})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        return [NeighbourPair("add-max-record", [0, 0, 0], [0, 0, 0, self._sensitivity],
                              "adding one record of value Δ shifts the sum by Δ")]

    def sample(self, dataset, n, rng) -> np.ndarray:
        q = self.query(dataset)
        n = _check_draw(n, rng)
        p = 1.0 - self.alpha
        return (q + rng.geometric(p, size=n) - rng.geometric(p, size=n)).astype(np.int64)

    def log_density(self, dataset, outputs) -> np.ndarray:
        y = np.asarray(outputs, dtype=float)
        a = self.alpha
        return math.log1p(-a) - math.log1p(a) + np.abs(y - self.query(dataset)) * math.log(a)

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        s = abs(self.query(d0) - self.query(d1))
        if s == 0:
            return 0.0
        if self.alpha == 0.0:  # e^{−ε/Δ} underflowed: outputs are deterministic
            return math.inf if delta < 1.0 else 0.0
        la, l1pa = math.log(self.alpha), math.log1p(self.alpha)
        lc = math.log1p(-self.alpha) - l1pa
        j = np.arange(1, s)
        logp = np.concatenate(([-l1pa], lc + j * la, [s * la - l1pa]))
        logq = np.concatenate(([s * la - l1pa], lc + (s - j) * la, [-l1pa]))
        return discrete_epsilon(delta, logp, logq, symmetric=True, log_probs=True)


@register
class ExponentialMechanism(Mechanism):
    """Exponential mechanism (McSherry & Talwar, FOCS 2007) over m candidates.

    The dataset is the utility vector u ∈ ℝ^m (m ≥ 2); output i with probability
    ∝ exp(β uᵢ), β = ε/(2Δ).  If ‖u − u′‖∞ ≤ Δ each weight moves by a factor ≤ e^{ε/2} and the
    normaliser by ≤ e^{ε/2}, so ε-DP.  Sampled by the Gumbel-max trick: argmaxᵢ(β uᵢ + Gᵢ),
    G i.i.d. standard Gumbel, is exactly softmax(βu)-distributed.

    Worst pairs.  u = 0 vs u′ = (Δ, −Δ, …, −Δ) has exact ε = max(ln(m e^ε/(e^ε + m − 1)),
    ln((e^ε + m − 1)/m)) < ε, approaching ε as m grows.  With m = 2, u = (0, K),
    u′ = (Δ, K − Δ) the ratio of P[output 0] is e^ε(1 + y)/(e^ε + y), y = e^{βK}; choosing
    βK = ε + ln 100 gives exact ε = ln((1 + 100e^ε)/101) (0.994 at ε = 1), the largest of the
    three, while P[output 0] stays ≈ 1% on the u′ side so an auditor can still see it."""

    name = "exponential"
    family = "classic"
    neighbouring = "utility vectors of equal length m with ‖u − u′‖∞ ≤ Δ"

    _CHUNK = 1 << 22  # Gumbel entries drawn per block (bounds memory at 32 MiB)

    def relation(self):
        return linf(self._sensitivity)

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0):
        eps = _positive("epsilon", epsilon)
        sens = _positive("sensitivity", sensitivity)
        super().__init__(epsilon=eps, sensitivity=sens)
        self.epsilon, self._sensitivity = eps, sens
        self.beta = EXPONENTIAL_BETA(epsilon=eps, Delta=sens)

    def validate_dataset(self, dataset) -> np.ndarray:
        return _records(dataset, -np.inf, np.inf, min_len=2, what="utility")

    def query(self, dataset) -> np.ndarray:
        return self.validate_dataset(dataset)

    def sensitivity(self) -> float:
        """ℓ∞ sensitivity Δ of the utility vector."""
        return self._sensitivity

    sensitivity_norm = "linf"

    def dataset_space(self) -> QueryAnswers:
        """2..6 utilities in [−10Δ, 10Δ], neighbours with ‖u − u′‖∞ ≤ Δ."""
        d = self._sensitivity
        return QueryAnswers(d, 2, 6, lo=-10.0 * d, hi=10.0 * d)

    def noise(self) -> Noise:
        beta = self.claimed_value("beta")
        # u = (0, 1/β): P(output 1) = e/(1 + e) ≈ 0.73 at the claimed β, sensitive to β
        return Noise("exponential-mechanism", {"beta": beta}, probe=[0.0, 1.0 / beta],
                     source=f"claim: {EXPONENTIAL_BETA}")

    def claim(self) -> PureDP:
        return PureDP(self.epsilon, expression=claim_expression(EXPONENTIAL_BETA),
                      substitutions={"epsilon": self.epsilon, "Delta": self._sensitivity,
                                     "beta": self.beta})

    def worst_case_pairs(self) -> list[NeighbourPair]:
        d = self._sensitivity
        far = round((self.epsilon + math.log(100.0)) / self.beta, 6)
        return [
            NeighbourPair("m2-spread", [0.0, 0.0], [d, -d],
                          "m = 2: one utility up by Δ, the other down by Δ"),
            NeighbourPair("m10-spread", [0.0] * 10, [d] + [-d] * 9,
                          "m = 10: one utility up by Δ, all others down by Δ"),
            NeighbourPair("m2-far", [0.0, far], [d, far - d],
                          "m = 2 with the raised candidate far below the other "
                          "(βK = ε + ln 100): exact ε = ln((1 + 100e^ε)/101), near ε"),
        ]

    def log_probabilities(self, dataset) -> np.ndarray:
        return log_softmax(self.beta * self.validate_dataset(dataset))

    def sample(self, dataset, n, rng) -> np.ndarray:
        scores = self.beta * self.validate_dataset(dataset)
        n = _check_draw(n, rng)
        out = np.empty(n, dtype=np.int64)
        rows = max(1, self._CHUNK // scores.size)
        for start in range(0, n, rows):  # loop over memory blocks, vectorised inside
            stop = min(n, start + rows)
            g = rng.gumbel(size=(stop - start, scores.size))
            out[start:stop] = np.argmax(scores + g, axis=1)
        return out

    def log_density(self, dataset, outputs) -> np.ndarray:
        return self.log_probabilities(dataset)[np.asarray(outputs, dtype=np.int64)]

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        lp, lq = self.log_probabilities(d0), self.log_probabilities(d1)
        if lp.size != lq.size:
            raise ValueError(f"utility vectors must have the same length, got {lp.size} "
                             f"and {lq.size}")
        return discrete_epsilon(delta, lp, lq, symmetric=True, log_probs=True)
