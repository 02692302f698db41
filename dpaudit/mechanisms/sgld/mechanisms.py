"""SGLD and posterior sampling for Bayesian linear regression (the SGLD-privacy paper).

Datasets are (n, 2) arrays of records (x, y) (or the multiset form of :func:`expand_records`)
from the domain 𝒟(n, γ₁, x_h, x_l, c) of eq. (5):
x_l ≤ x ≤ x_h, x, y > 0 and |y/x − c| ≤ n^γ₁; neighbours replace one record.  The model is
eq. (4) (prior N(0, α⁻¹), noise precision β).  Both mechanisms claim what the paper proves for
the posterior — Lemma 4.2's Rényi bound converted by Lemma 4.3 (:mod:`.claim`) — because
that is the claim made for SGLD when it is used as an approximate posterior sampler.

* ``posterior`` — one exact sample from p(θ|D) = N(μ, σ²) (Lemma 4.1).  Exact ε(δ) and D_α of a
  pair from the two normals.
* ``sgld`` — θ_T after T steps of eq. (3) with step size η (default the paper's
  2/(α + n x_h²β)², Section 4.2), batch size b, ``minibatch = "cyclic"`` (shuffle once, then
  cycle; the paper's scheme) or ``"uniform"`` (i.i.d. indices, eq. 3).  Cyclic SGLD on a
  dataset whose records are all equal but at most one has an exact law
  (:mod:`.sgld_law`: a Gaussian, or an equal-weight mixture over the odd record's batch
  position, Lemma A.1); there ``method = "auto"`` samples from it exactly and the mechanism
  offers ``log_density`` (white-box) and ``exact_epsilon``.  Everything else is simulated step
  by step (:mod:`.sgld_sim`).

Choices where the paper is silent: θ₀ is drawn from the prior (the variance terms
(1/α)(λ̂λⁿ⁻¹)^{2(k+1)} of Lemma A.3 say so); the uniform scheme draws with replacement
(eq. 3); the odd record of the worst-case pair is the *last* record of D₂ (eq. 7); a batch
size b > 1 needs b | n for the cyclic scheme.
"""

from __future__ import annotations

import functools
import math
from collections import Counter

import numpy as np

from dpaudit.util import validation
from dpaudit.exact.mixture_density import MixtureLogDensity
from dpaudit.exact.mixtures import GaussianMixtureProfile, NormalPairProfile
from dpaudit.exact.renyi import gaussian_renyi
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Parameter
from dpaudit.mechanisms.capabilities import ClosedFormSeries, ExactRenyi, LogDensity
from dpaudit.mechanisms.parameters import choice_parameter
from dpaudit.mechanisms.sgld.claim import (KHAT, ONE_MINUS_SLOPE, POSTERIOR_MEAN,
                                           POSTERIOR_VARIANCE, PUSH, SLOPE, STEP_SIZE_PAPER,
                                           posterior_claim)
from dpaudit.mechanisms.sgld.law import CyclicLaw, GaussianStep
from dpaudit.mechanisms.sgld.parameters import (count_parameter, parameter_number,
                                                positive_parameter)
from dpaudit.mechanisms.sgld.simulation import SCHEMES, LinearGaussianModel, simulate_sgld
from dpaudit.neighbours import NeighbourRelation, replace_one

METHODS = ("auto", "exact", "simulate")


def expand_records(dataset) -> np.ndarray:
    """A dataset as an (n, 2) float array.  Accepted forms: a list of records [x, y], or the
    multiset form ``{"rows": [[x, y], ...], "counts": [k, ...]}`` (row i repeated kᵢ times, in
    order) that keeps large datasets short in suite files and results.json."""
    if isinstance(dataset, dict):
        if set(dataset) != {"rows", "counts"}:
            raise ValueError(f"a dataset given as a table needs exactly the keys 'rows' and "
                             f"'counts', got {sorted(dataset)}")
        try:
            rows = np.asarray(dataset["rows"], dtype=float)
            counts = np.asarray(dataset["counts"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"dataset rows/counts must be numeric: {exc}") from None
        if rows.ndim != 2 or rows.shape[1] != 2 or counts.shape != (rows.shape[0],):
            raise ValueError(f"dataset 'rows' must be [[x, y], ...] and 'counts' one integer per "
                             f"row, got shapes {rows.shape} and {counts.shape}")
        if counts.dtype.kind not in "iu" or np.any(counts < 1):
            raise ValueError(f"dataset 'counts' must be integers ≥ 1, got {counts.tolist()}")
        return np.repeat(rows, counts, axis=0)
    if dataset is None or isinstance(dataset, (str, bytes)):
        raise ValueError("dataset must be a list of n records [x, y]")
    try:
        arr = np.asarray(dataset, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"dataset must be a list of n numeric records [x, y]: {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"dataset must have shape (n, 2) (records [x, y]), got {arr.shape}")
    return arr


class LinearRegressionDomain(Mechanism):
    """Shared part: the domain 𝒟(n, γ₁, x_h, x_l, c), its validation, the paper's pair and
    the posterior's claim.  Not registered itself."""

    family = "sgld"

    n = count_parameter(2000, "number of records n ≥ 2", 2)
    c = positive_parameter(2000.0, "centre c of the slopes y/x")
    alpha = positive_parameter(1.0, "prior precision α")
    beta = positive_parameter(1.0, "noise precision β")
    x_h = positive_parameter(1.8, "largest x, x_h")
    x_l = positive_parameter(0.9, "smallest x, x_l ≤ x_h")
    gamma1 = positive_parameter(0.01, "γ₁ ∈ (0, 1/2): |y/x − c| ≤ n^γ₁")

    def derive(self) -> None:
        if self.x_l > self.x_h:
            raise ValueError(f"x_l must be ≤ x_h, got x_l = {self.x_l:g} > x_h = {self.x_h:g}")
        if not self.gamma1 < 0.5:
            raise ValueError(f"gamma1 must lie in (0, 1/2) (eq. 5), got {self.gamma1:g}")

    # -- contract ---------------------------------------------------------------------------
    def claim(self):
        """The posterior's claim (:func:`.claim.posterior_claim`); ``ValueError`` when
        Lemma 4.2 allows no order (n too small) — such parameters can be simulated but not
        audited."""
        return _claim(self.n, self.c, self.alpha, self.beta, self.x_h, self.x_l, self.gamma1)

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "replace-one",
            "replace one record (x, y) of a dataset of n records from "
            "𝒟(n, γ₁, x_h, x_l, c): x_l ≤ x ≤ x_h, |y/x − c| ≤ n^γ₁ (eq. 5)", replace_one)

    def validate_dataset(self, dataset) -> np.ndarray:
        arr = expand_records(dataset)
        if arr.shape[0] != self.n:
            raise ValueError(f"dataset has {arr.shape[0]} records; the domain has n = {self.n}")
        bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
        if bad.size:
            raise ValueError(f"record {int(bad[0])} is not finite (NaN or inf): "
                             f"{arr[bad[0]].tolist()}")
        x, y = arr[:, 0], arr[:, 1]
        tol = 1e-12
        bad = np.flatnonzero((x < self.x_l * (1 - tol)) | (x > self.x_h * (1 + tol)))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"record {i}: x = {x[i]:g} is outside [x_l, x_h] = "
                             f"[{self.x_l:g}, {self.x_h:g}]")
        bad = np.flatnonzero(y <= 0)
        if bad.size:
            raise ValueError(f"record {int(bad[0])}: y = {y[bad[0]]:g} must be > 0 (eq. 5)")
        radius = self.n ** self.gamma1
        bad = np.flatnonzero(np.abs(y / x - self.c) > radius * (1 + tol))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"record {i}: |y/x − c| = {abs(y[i] / x[i] - self.c):g} exceeds "
                             f"n^γ₁ = {radius:g} (eq. 5)")
        return arr

    def worst_case_pairs(self) -> list[NeighbourPair]:
        if self.x_h / 2 < self.x_l * (1 - 1e-12):
            raise ValueError(f"the paper's pair (eq. 7) needs x_h/2 ≥ x_l (its odd record has "
                             f"x = x_h/2), got x_h = {self.x_h:g}, x_l = {self.x_l:g}")
        d1 = {"rows": [[self.x_h, self.c * self.x_h]], "counts": [self.n]}
        d2 = {"rows": [[self.x_h, self.c * self.x_h], [self.x_h / 2, self.c * self.x_h / 2]],
              "counts": [self.n - 1, 1]}
        return [NeighbourPair(
            "eq7", d1, d2,
            "the paper's D₁ (n records (x_h, c·x_h)) and D₂ (the last record replaced by "
            "(x_h/2, c·x_h/2)), eq. (7)")]

    def posterior_law(self, dataset) -> tuple[float, float]:
        """(μ, σ²) of p(θ|D), Lemma 4.1."""
        arr = self.validate_dataset(dataset)
        sxx = float(np.sum(arr[:, 0] ** 2))
        sxy = float(np.sum(arr[:, 0] * arr[:, 1]))
        return (POSTERIOR_MEAN(alpha=self.alpha, beta=self.beta, S_xx=sxx, S_xy=sxy),
                POSTERIOR_VARIANCE(alpha=self.alpha, beta=self.beta, S_xx=sxx))


@functools.lru_cache(maxsize=64)
def _claim(n, c, alpha, beta, x_h, x_l, gamma1):
    return posterior_claim(n, c, alpha, beta, x_h, x_l, gamma1)


class PosteriorSampling(LogDensity, ExactRenyi, LinearRegressionDomain):
    """One sample from the posterior N(μ, σ²) of Bayesian linear regression (Lemma 4.1)."""

    name = "posterior"

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        mu, var = self.posterior_law(dataset)
        return mu + math.sqrt(var) * rng.standard_normal(n)

    def log_density(self, dataset, outputs) -> np.ndarray:
        mu, var = self.posterior_law(dataset)
        y = np.asarray(outputs, dtype=float)
        return -0.5 * (y - mu) ** 2 / var - 0.5 * math.log(2 * math.pi * var)

    def _profile(self, d0, d1):
        (m0, v0), (m1, v1) = self.posterior_law(d0), self.posterior_law(d1)
        # privacy profiles are translation invariant: centre at m₀ for full precision
        return NormalPairProfile(0.0, math.sqrt(v0), m1 - m0, math.sqrt(v1)).symmetric()

    def exact_epsilon(self, d0, d1, delta: float = 0.0) -> float:
        return float(self._profile(d0, d1).epsilon(delta))

    def exact_renyi(self, d0, d1, alpha: float) -> float:
        """max of D_α in both directions between the two posteriors (Gil et al. 2013)."""
        (m0, v0), (m1, v1) = self.posterior_law(d0), self.posterior_law(d1)
        return max(gaussian_renyi(m0, v0, m1, v1, alpha), gaussian_renyi(m1, v1, m0, v0, alpha))


class SGLD(LogDensity, ExactRenyi, ClosedFormSeries, LinearRegressionDomain):
    """θ_T of stochastic gradient Langevin dynamics (eq. 3) on Bayesian linear regression."""

    name = "sgld"

    steps = count_parameter(26000, "number of SGLD steps T ≥ 0", 0)
    minibatch = choice_parameter("cyclic", SCHEMES, "minibatch scheme")
    batch_size = count_parameter(1, "batch size b (divides n for cyclic SGLD)", 1)
    #: the ``step_size`` parameter as given ("paper", None or η > 0); ``step_size`` is η
    step_size_choice = Parameter("paper", lambda name, v: v if v is None or v == "paper"
                                 else parameter_number(name, v),
                                 "step size η, or 'paper' for the paper's η", name="step_size")
    method = choice_parameter("auto", METHODS, "how the law of θ_T is computed")

    def derive(self) -> None:
        super().derive()
        b, minibatch = self.batch_size, self.minibatch
        if b > self.n or (minibatch == "cyclic" and self.n % b):
            raise ValueError(f"batch_size must divide n = {self.n} for cyclic SGLD "
                             f"(and be ≤ n), got {b}")
        if self.method == "exact" and minibatch != "cyclic":
            raise ValueError("method='exact' needs minibatch='cyclic' (the uniform scheme has "
                             "no finite closed form)")
        if self.step_size_choice is None or self.step_size_choice == "paper":
            self.step_size = STEP_SIZE_PAPER(alpha=self.alpha, beta=self.beta, n=self.n,
                                             x_h=self.x_h)
        else:
            self.step_size = self.step_size_choice
        self.model = LinearGaussianModel(self.alpha, self.beta)

    # -- exact law ------------------------------------------------------------------------------
    def _batch_step(self, sum_xx: float, sum_xy: float) -> GaussianStep:
        kw = dict(eta=self.step_size, alpha=self.alpha, beta=self.beta, n=self.n,
                  b=self.batch_size)
        return GaussianStep(SLOPE(B_xx=sum_xx, **kw), PUSH(B_xy=sum_xy, **kw), self.step_size,
                            ONE_MINUS_SLOPE(B_xx=sum_xx, **kw))

    def law(self, dataset) -> CyclicLaw | None:
        """The exact law of cyclic SGLD on ``dataset`` (:mod:`.sgld_law`), or None when the
        dataset has more than one record differing from the others (no closed form)."""
        if self.minibatch != "cyclic":
            return None
        return cyclic_law(self.validate_dataset(dataset), batch_size=self.batch_size,
                          step_size=self.step_size, alpha=self.alpha, beta=self.beta)

    def components(self, dataset, steps: int | None = None):
        """(weights, means, variances) of θ_T (T = ``steps``, default the mechanism's)."""
        law = self.law(dataset)
        if law is None:
            raise ValueError("no closed-form law: cyclic SGLD on a dataset whose records are all "
                             "equal except at most one")
        return law.components(self.steps if steps is None else steps)

    def _exact_available(self, dataset) -> bool:
        return self.method != "simulate" and self.law(dataset) is not None

    # -- contract ---------------------------------------------------------------------------------
    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        return draw_sgld(self.validate_dataset(dataset), steps=self.steps,
                         step_size=self.step_size, alpha=self.alpha, beta=self.beta, size=n,
                         rng=rng, batch_size=self.batch_size, scheme=self.minibatch,
                         method=self.method)

    @property
    def log_density(self):
        """White-box log-density of θ_T (cyclic scheme only, where the law is closed form)."""
        if self.minibatch != "cyclic" or self.method == "simulate":
            return None
        return self._log_density

    def _log_density(self, dataset, outputs) -> np.ndarray:
        law = self.law(dataset)
        if law is None:
            raise ValueError("no closed-form law for this dataset: audit it black-box "
                             "(white_box = false)")
        return _log_density_cached(law, self.steps)(np.asarray(outputs, dtype=float))

    def profile(self, d0, d1):
        """The exact (symmetric) privacy profile of the pair at T, or None."""
        l0, l1 = self.law(d0), self.law(d1)
        if l0 is None or l1 is None:
            return None
        return pair_profile(l0, l1, self.steps)

    def exact_epsilon(self, d0, d1, delta: float = 0.0):
        prof = self.profile(d0, d1)
        return None if prof is None else float(prof.epsilon(delta))

    def exact_renyi(self, d0, d1, alpha: float):
        prof = self.profile(d0, d1)
        return None if prof is None else float(prof.renyi(alpha))

    def khat(self) -> float:
        """k̂ of Lemma A.4 (the paper audits T = (⌈k̂⌉ + 1)n)."""
        return KHAT(alpha=self.alpha, beta=self.beta, n=self.n, x_h=self.x_h,
                    eta=self.step_size)

    def paper_steps(self) -> int:
        """T = (⌈k̂⌉ + 1)n, the step of Lemmas A.5 and A.6."""
        return (math.ceil(self.khat()) + 1) * self.n

    def series(self, quantity: str, d0, d1, steps, *, delta: float | None = None,
               target_epsilon: float | None = None):
        """Closed-form series over T for figures: ``"separation"`` is Figure 1's
        (1/K) Σ_r (μ_T − μ_T^r)²/(σ_T^r)² between the Gaussian of D₀ and the K components of
        D₁ (D₀ must be the dataset of equal records).  Facts: k̂ and T = (⌈k̂⌉+1)n (Lemma
        A.4), the paper's lower bound ε′ at δ (Lemma A.6), the posterior's Lemma 4.3 ε at δ
        with the best order and — given ``target_epsilon`` — with Claim D.29's order
        ν = 1 + 2 ln(1/δ)/target."""
        if quantity != "separation":
            raise ValueError(f"unknown series {quantity!r} (sgld offers 'separation')")
        l0, l1 = self.law(d0), self.law(d1)
        if l0 is None or l1 is None or l0.odd is not None:
            raise ValueError("the separation series needs d0 of equal records and d1 with one "
                             "odd record (the pair of eq. 7), under cyclic SGLD")
        out = []
        for t in steps:
            _, m0, _ = l0.components(int(t))
            _, m1, v1 = l1.components(int(t))
            out.append(float(np.mean((m0[0] - m1) ** 2 / v1)))
        paper_t = self.paper_steps()
        facts = {"n": self.n, "k̂ (Lemma A.4)": self.khat(),
                 "T = (⌈k̂⌉+1)n (Lemmas A.5, A.6)": paper_t}
        _, m0, _ = l0.components(paper_t)
        _, m1, v1 = l1.components(paper_t)
        facts["separation at T = (⌈k̂⌉+1)n"] = float(np.mean((m0[0] - m1) ** 2 / v1))
        if delta is not None and 0 < delta < 0.5:
            from dpaudit.mechanisms.sgld.claim import LEMMA_4_2, LEMMA_4_3, LEMMA_A6, paper_order
            facts["Lemma A.6 lower bound ε′ at δ (eq. 16)"] = LEMMA_A6(
                alpha=self.alpha, beta=self.beta, c=self.c, n=self.n, x_h=self.x_h, delta=delta)
            claim = self.claim()
            facts["posterior claim: Lemma 4.3 ε at δ, best order ν"] = claim.epsilon(delta)
            facts["best order ν"] = claim.best_order(delta)
            if target_epsilon is not None:
                nu = paper_order(float(target_epsilon), delta)
                e1 = LEMMA_4_2(nu=nu, n=self.n, c=self.c, alpha=self.alpha, beta=self.beta,
                               x_h=self.x_h, x_l=self.x_l, gamma1=self.gamma1)
                facts[f"Claim D.29 order ν = 1 + 2ln(1/δ)/{target_epsilon:g}"] = nu
                facts["posterior claim: Lemma 4.3 ε at δ with that ν"] = LEMMA_4_3(
                    epsilon_1=e1, delta=delta, nu=nu)
        return {"y": out, "label": "(1/n) Σ_r (μ_t − μ_t^r)² / (σ_t^r)²",
                "ylabel": "mean separation (Figure 1)", "facts": facts,
                "markers": [{"x": paper_t, "label": "T = (⌈k̂⌉+1)n"}]}


# -- the law of cyclic SGLD on a set of records (also used by Propose-Test-Sample) ----------------

def cyclic_law(records: np.ndarray, *, batch_size: int, step_size: float, alpha: float,
               beta: float) -> CyclicLaw | None:
    """Exact law of cyclic SGLD on ``records`` ((n, 2) array), or None without a closed form
    (more than one record differs from the others)."""
    arr = np.ascontiguousarray(records, dtype=float)
    return _law_from_records(arr.shape[0], int(batch_size), float(step_size), float(alpha),
                             float(beta), arr.tobytes())


def draw_sgld(records: np.ndarray, *, steps: int, step_size: float, alpha: float, beta: float,
              size: int, rng: np.random.Generator, batch_size: int = 1,
              scheme: str = "cyclic", method: str = "auto") -> np.ndarray:
    """``size`` outputs θ_T of SGLD on ``records``: from the exact law when cyclic and
    available (and ``method`` is not "simulate"), else simulated step by step."""
    if scheme == "cyclic" and method != "simulate":
        law = cyclic_law(records, batch_size=batch_size, step_size=step_size, alpha=alpha,
                         beta=beta)
        if law is not None:
            w, mean, var = _components_cached(law, int(steps))
            r = rng.integers(0, w.size, size=size) if w.size > 1 else np.zeros(size, dtype=int)
            return mean[r] + np.sqrt(var[r]) * rng.standard_normal(size)
        if method == "exact":
            raise ValueError("method='exact': this dataset has no closed-form law (more than "
                             "one record differs from the others)")
    return simulate_sgld(LinearGaussianModel(alpha, beta), records, steps=steps, chains=size,
                         step_size=step_size, batch_size=batch_size, scheme=scheme, rng=rng)


def pair_profile(law0: CyclicLaw, law1: CyclicLaw, steps: int):
    """Exact symmetric privacy profile of θ_T under two laws."""
    return _profile_cached(law0, law1, int(steps))


# -- caches (a sampler is called once per chunk of 65 536 outputs) -------------------------------

@functools.lru_cache(maxsize=32)
def _law_from_records(n, b, eta, alpha, beta, key: bytes) -> CyclicLaw | None:
    arr = np.frombuffer(key, dtype=float).reshape(n, 2)
    counts = Counter(map(tuple, arr.tolist()))
    if len(counts) > 2 or (len(counts) == 2 and min(counts.values()) != 1):
        return None
    (common, _), *rest = sorted(counts.items(), key=lambda kv: -kv[1])
    (x, y) = common
    kw = dict(eta=eta, alpha=alpha, beta=beta, n=n, b=b)

    def step(sxx, sxy):
        return GaussianStep(SLOPE(B_xx=sxx, **kw), PUSH(B_xy=sxy, **kw), eta,
                            ONE_MINUS_SLOPE(B_xx=sxx, **kw))
    normal = step(b * x * x, b * x * y)
    odd = None
    if rest:
        (xo, yo), _ = rest[0]
        odd = step((b - 1) * x * x + xo * xo, (b - 1) * x * y + xo * yo)
    return CyclicLaw(n // b, normal, odd, 0.0, 1.0 / alpha)


@functools.lru_cache(maxsize=64)
def _components_cached(law: CyclicLaw, steps: int):
    return law.components(steps)


def _merged(w, mean, var):
    """Equal components merged (weights added): e.g. every r ≥ T in the first epoch, where
    the odd batch has not run yet, gives the same Gaussian."""
    rows, inverse = np.unique(np.stack([mean, var], axis=1), axis=0, return_inverse=True)
    weights = np.bincount(inverse.ravel(), weights=w, minlength=rows.shape[0])
    return weights, rows[:, 0], rows[:, 1]


@functools.lru_cache(maxsize=16)
def _log_density_cached(law: CyclicLaw, steps: int) -> MixtureLogDensity:
    w, mean, var = _merged(*_components_cached(law, steps))
    return MixtureLogDensity(w, mean, np.sqrt(var))


@functools.lru_cache(maxsize=16)
def _profile_cached(l0: CyclicLaw, l1: CyclicLaw, steps: int):
    w0, m0, v0 = _merged(*_components_cached(l0, steps))
    w1, m1, v1 = _merged(*_components_cached(l1, steps))
    # privacy profiles are translation invariant: centre the means for full precision
    centre = float(np.average(m0, weights=w0))
    m0, m1 = m0 - centre, m1 - centre
    if w0.size == 1 and w1.size == 1:
        return NormalPairProfile(m0[0], math.sqrt(v0[0]), m1[0], math.sqrt(v1[0])).symmetric()
    return GaussianMixtureProfile(w0, m0, np.sqrt(v0), w1, m1, np.sqrt(v1)).symmetric()


__all__ = ["SGLD", "PosteriorSampling", "LinearRegressionDomain", "METHODS", "cyclic_law",
           "draw_sgld", "pair_profile", "expand_records"]
