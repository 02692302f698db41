"""Propose-Test-Sample (Algorithm 1 of the SGLD-privacy paper) and its SGLD variant.

Algorithm 1, on D = {(xᵢ, yᵢ)}ᵢ₌₁^{n₁} with parameters ε, δ < ½, 0 < x_l < x_h, α > 0,
β ≥ 3/x_h², ρ₁ ∈ (1, 3/2), ρ₂ ∈ (0, ½), γ₁ ∈ (ρ₂, ½), a = ln(1/(2δ))/ε:

1-5.  clip xᵢ to [x_l, x_h] and yᵢ to [0, ∞);
6.    ň₁ = n₁ − a + Lap(1/ε);
7.    V = {(x, y) : y/x ≤ ň₁^ρ₁};
8-11. n₂ = |V| − a + Lap(1/ε); null if n₂ ≤ 1;
12.   m = Σ_V xy / Σ_V x²;
13.   m̌ = m + Lap((1/ε) ň₁^ρ₁ (2(n₂−1)x_h²x_l² + x_h⁴)/(n₂(n₂−1)x_l⁴));
14.   W = {(x, y) : |y/x − m̌| ≤ n₂^ρ₂};
15-18. n_W = |W| − a + Lap(1/ε); null if n_W < n_min;
19.   a sample from the posterior p(θ|W) (``propose-test-sample``), or — Claim 4.2 — from SGLD
      run on W for T steps with η = 1/(α + n₁x_h²β)² (``propose-test-sample-sgld``).

Claim 4.1: (5ε, 2δ)-DP, for both (the SGLD variant is what Claim 4.2 says breaks it).  The
output is θ, or ``-inf`` for null (an atom the black-box estimator treats as its own event).

Choices where the paper is silent or inconsistent (each in the derivation or here):

* n_min (eq. 26) uses the terms re-derived in ``proofs/sgld.py`` (section ``pts_n_min``): the
  printed last-but-one term is not what eq. (58) gives; the last term n₁^{ρ₂/γ₁} is kept as
  printed (n₁ is public under replace-one neighbours).
* ň₁ ≤ 0 gives V = ∅ (ň₁^ρ₁ is undefined); if V = ∅ but n₂ > 1, m is undefined and the output
  is null; W = ∅ gives null (the paper's "sample from p(θ|{}) returns null").
* SGLD on W uses W's size as n in eq. (3), cyclic batches of size 1, θ₀ from the prior, and
  T = (⌈k̂⌉ + 1)n₁ by default (k̂ of Lemma A.4 at this η): Claim 4.2's T(n₁).

Exact privacy.  When every record of both datasets has the same clipped ratio y/x and the same
n₁ (the paper's pair D₃, D₄, eq. 8), steps 6-18 see identical inputs (m = Σxy/Σx² is that
ratio), so both sides return null with the same probability p and otherwise sample the step-19
law Q_D of the whole dataset: δ_PTS(ε) = (1 − p)·δ_Q(ε), i.e. ε_PTS(δ) = ε_Q(δ/(1 − p)).
1 − p is computed by nested Gauss–Legendre quadrature over the three Laplace variables of
steps 6, 8 and 13 (split at their kinks and at the window edges of step 14, truncated at 60
scales) with the fourth (step 15) in closed form; ``pass_probability`` reports the change
when the node count is doubled.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from dpaudit.claims import ApproxDP
from dpaudit.claims.certificates import load_formula
from dpaudit.exact.mixtures import NormalPairProfile
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Parameter
from dpaudit.util import validation
from dpaudit.mechanisms.sgld.parameters import count_parameter, positive_parameter
from dpaudit.mechanisms.sgld.mechanisms import (cyclic_law, draw_sgld, expand_records,
                                                pair_profile)
from dpaudit.mechanisms.sgld.claim import (KHAT, POSTERIOR_MEAN, POSTERIOR_VARIANCE,
                                           STEP_SIZE_PTS)
from dpaudit.neighbours import NeighbourRelation, replace_one

PTS_EPSILON = load_formula("sgld", "pts_epsilon")     # 5ε
PTS_DELTA = load_formula("sgld", "pts_delta")         # 2δ
PTS_NU = load_formula("sgld", "pts_nu")               # 1 + 2 ln(1/δ)/ε
N_MIN_TERMS = [load_formula("sgld", f"pts_n_min_{i}") for i in range(1, 8)]
NULL = -math.inf


class ProposeTestSample(Mechanism):
    """Propose-Test-Sample (Algorithm 1): private outlier removal, then one posterior sample."""

    name = "propose-test-sample"
    family = "sgld"

    epsilon = positive_parameter(1.0, "privacy parameter ε")
    delta = positive_parameter(0.01, "δ ∈ (0, 1/2)")
    x_l = positive_parameter(0.5, "clipping bound x_l < x_h")
    x_h = positive_parameter(1.0, "clipping bound x_h")
    alpha = positive_parameter(1.0, "prior precision α")
    beta = positive_parameter(3.0, "noise precision β ≥ 3/x_h²")
    rho1 = positive_parameter(1.05, "ρ₁ ∈ (1, 3/2)")
    rho2 = positive_parameter(0.09, "ρ₂ ∈ (0, γ₁)")
    gamma1 = positive_parameter(0.1, "γ₁ ∈ (ρ₂, 1/2)")
    n1 = count_parameter(100000, "number of records n₁ ≥ 2", 2)
    rho3 = positive_parameter(1.02, "ρ₃ ∈ (1, ρ₁) of the paper's pair (eq. 8)")

    def derive(self) -> None:
        eps, dlt, x_l, x_h, beta = self.epsilon, self.delta, self.x_l, self.x_h, self.beta
        rho1, rho2, gamma1, rho3 = self.rho1, self.rho2, self.gamma1, self.rho3
        if not dlt < 0.5:
            raise ValueError(f"delta must be < 0.5 (Algorithm 1), got {dlt:g}")
        if not x_l < x_h:
            raise ValueError(f"Algorithm 1 needs x_l < x_h, got {x_l:g}, {x_h:g}")
        if beta < 3.0 / x_h ** 2:
            raise ValueError(f"Algorithm 1 needs β ≥ 3/x_h² = {3 / x_h ** 2:g}, got {beta:g}")
        if not 1.0 < rho1 < 1.5:
            raise ValueError(f"rho1 must lie in (1, 3/2), got {rho1:g}")
        if not 0.0 < rho2 < 0.5 or not rho2 < gamma1 < 0.5:
            raise ValueError(f"need 0 < rho2 < gamma1 < 1/2, got rho2 = {rho2:g}, "
                             f"gamma1 = {gamma1:g}")
        if not 1.0 < rho3 < rho1:
            raise ValueError(f"the paper's pair (eq. 8) needs 1 < rho3 < rho1, got {rho3:g}")
        self.shift = math.log(1.0 / (2.0 * dlt)) / eps   # a = ln(1/(2δ))/ε
        self.nu = PTS_NU(epsilon=eps, delta=dlt)

    # -- contract ---------------------------------------------------------------------------
    def claim(self) -> ApproxDP:
        import sympy as sp
        return ApproxDP(PTS_EPSILON(epsilon=self.epsilon), PTS_DELTA(delta=self.delta),
                        expression=sp.Tuple(sp.Eq(sp.Symbol(PTS_EPSILON.name),
                                                  PTS_EPSILON.expression),
                                            sp.Eq(sp.Symbol(PTS_DELTA.name),
                                                  PTS_DELTA.expression)),
                        substitutions={"epsilon": self.epsilon, "delta": self.delta})

    def relation(self) -> NeighbourRelation:
        return NeighbourRelation(
            "replace-one",
            "replace one record (x, y) of a dataset of n₁ records (any finite reals; "
            "Algorithm 1 clips them)", replace_one)

    def validate_dataset(self, dataset) -> np.ndarray:
        arr = expand_records(dataset)
        if arr.shape[0] < 2:
            raise ValueError(f"Algorithm 1 needs at least 2 records, got {arr.shape[0]}")
        bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
        if bad.size:
            raise ValueError(f"record {int(bad[0])} is not finite (NaN or inf): "
                             f"{arr[bad[0]].tolist()}")
        return arr

    def worst_case_pairs(self) -> list[NeighbourPair]:
        n, c = self.n1, self.n1 ** self.rho3
        d3 = {"rows": [[self.x_h, c * self.x_h]], "counts": [n]}
        d4 = {"rows": [[self.x_h, c * self.x_h], [self.x_h / 2, c * self.x_h / 2]],
              "counts": [n - 1, 1]}
        return [NeighbourPair("eq8", d3, d4,
                              f"the paper's D₃ (n₁ = {n} records (x_h, n₁^ρ₃·x_h)) and D₄ (one "
                              f"replaced by (x_h/2, n₁^ρ₃·x_h/2)), eq. (8), ρ₃ = {self.rho3:g}")]

    # -- Algorithm 1 ------------------------------------------------------------------------------
    def n_min(self, m_check, n2) -> np.ndarray:
        """n_min of eq. (26) (re-derived terms, see the module docstring), vectorised."""
        m_check = np.maximum(np.asarray(m_check, dtype=float), 1e-300)
        common = dict(nu=self.nu, epsilon=self.epsilon, alpha=self.alpha, beta=self.beta,
                      x_h=self.x_h, x_l=self.x_l, gamma1=self.gamma1)
        fixed = []
        for f in N_MIN_TERMS:
            if "m_check" not in f.inputs:
                fixed.append(f(**{k: v for k, v in common.items() if k in f.inputs}))
        t4, t6 = N_MIN_TERMS[3], N_MIN_TERMS[5]
        k4 = t4(m_check=1.0, **{k: v for k, v in common.items() if k in t4.inputs})
        k6 = t6(m_check=1.0, **{k: v for k, v in common.items() if k in t6.inputs})
        x2 = (self.x_h / self.x_l) ** 2
        nb2 = max(1 + x2 * 10 * self.nu / self.beta, 1 + self.nu * x2)
        out = np.maximum.reduce([
            np.full(m_check.shape, max(fixed + [nb2, self.n1 ** (self.rho2 / self.gamma1)])),
            k4 * m_check ** (1.0 / (2.0 - self.gamma1)),
            k6 * m_check ** (2.0 / 3.0)])
        return out

    def _prepare(self, dataset):
        arr = self.validate_dataset(dataset)
        x = np.clip(arr[:, 0], self.x_l, self.x_h)
        y = np.maximum(arr[:, 1], 0.0)
        ratio = y / x
        order = np.argsort(ratio, kind="stable")
        x, y, ratio = x[order], y[order], ratio[order]
        cxx = np.concatenate([[0.0], np.cumsum(x * x)])
        cxy = np.concatenate([[0.0], np.cumsum(x * y)])
        return x, y, ratio, cxx, cxy

    def run_tests(self, dataset, size, rng):
        """Steps 1-18 for ``size`` independent runs: (passed mask, W as [lo, hi) index ranges
        into the records sorted by clipped ratio, the sorted clipped records)."""
        x, y, ratio, cxx, cxy = self._prepare(dataset)
        n1, eps, a = x.size, self.epsilon, self.shift
        n1_check = n1 - a + rng.laplace(0.0, 1.0 / eps, size)
        with np.errstate(invalid="ignore"):
            tau = np.where(n1_check > 0, np.abs(n1_check) ** self.rho1, -np.inf)
        v_size = np.searchsorted(ratio, tau, side="right")
        n2 = v_size - a + rng.laplace(0.0, 1.0 / eps, size)
        ok = (n2 > 1) & (v_size > 0)
        sxx = cxx[v_size]
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.where(sxx > 0, cxy[v_size] / np.where(sxx > 0, sxx, 1.0), 0.0)
            n2s = np.where(ok, n2, 2.0)
            scale = (1.0 / eps) * np.where(ok, tau, 1.0) * (
                2 * (n2s - 1) * self.x_h ** 2 * self.x_l ** 2 + self.x_h ** 4) / (
                n2s * (n2s - 1) * self.x_l ** 4)
        m_check = m + rng.laplace(0.0, 1.0, size) * scale
        radius = np.where(ok, n2s, 1.0) ** self.rho2
        lo = np.searchsorted(ratio, m_check - radius, side="left")
        hi = np.searchsorted(ratio, m_check + radius, side="right")
        n_w = (hi - lo) - a + rng.laplace(0.0, 1.0 / eps, size)
        passed = ok & (hi > lo) & (n_w >= self.n_min(m_check, n2s))
        return passed, lo, hi, (x, y)

    def _release(self, records, n_out, rng, n1) -> np.ndarray:
        """Step 19 on the records W: n_out posterior samples (n1: the input size)."""
        x, y = records[:, 0], records[:, 1]
        sxx, sxy = float(np.sum(x * x)), float(np.sum(x * y))
        mu = POSTERIOR_MEAN(alpha=self.alpha, beta=self.beta, S_xx=sxx, S_xy=sxy)
        var = POSTERIOR_VARIANCE(alpha=self.alpha, beta=self.beta, S_xx=sxx)
        return mu + math.sqrt(var) * rng.standard_normal(n_out)

    def sample(self, dataset, n, rng) -> np.ndarray:
        n = validation.draw_request(n, rng)
        passed, lo, hi, (x, y) = self.run_tests(dataset, n, rng)
        out = np.full(n, NULL)
        idx = np.flatnonzero(passed)
        if idx.size:
            keys = np.stack([lo[idx], hi[idx]], axis=1)
            uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
            inverse = inverse.ravel()
            for k, (a, b) in enumerate(uniq):
                sel = idx[inverse == k]
                records = np.stack([x[a:b], y[a:b]], axis=1)
                out[sel] = self._release(records, sel.size, rng, x.size)
        return out

    # -- exact privacy ------------------------------------------------------------------------------
    def _common_ratio(self, dataset):
        x, y, ratio, _, _ = self._prepare(dataset)
        # equal up to rounding (c·x/2 over x/2 may differ from c in the last bit)
        if ratio[0] <= 0 or ratio[-1] - ratio[0] > 1e-12 * ratio[-1]:
            return None
        return float(ratio[0]), x.size

    def pass_probability(self, ratio: float, n1: int, nodes: int = 48) -> tuple[float, float]:
        """(P(step 19 is reached), |change when the nodes are doubled|) for a dataset of n₁
        records all with clipped ratio ``ratio`` (see the module docstring)."""
        p1 = _pass_probability(self, ratio, n1, nodes)
        p2 = _pass_probability(self, ratio, n1, 2 * nodes)
        return p2, abs(p2 - p1)

    def law_profile(self, d0, d1):
        """Exact profile of the step-19 laws of the whole datasets (symmetric)."""
        mu0, v0 = self._posterior(d0)
        mu1, v1 = self._posterior(d1)
        return NormalPairProfile(0.0, math.sqrt(v0), mu1 - mu0, math.sqrt(v1)).symmetric()

    def _posterior(self, dataset):
        x, y, _, cxx, cxy = self._prepare(dataset)
        return (POSTERIOR_MEAN(alpha=self.alpha, beta=self.beta, S_xx=cxx[-1], S_xy=cxy[-1]),
                POSTERIOR_VARIANCE(alpha=self.alpha, beta=self.beta, S_xx=cxx[-1]))

    def exact_epsilon(self, d0, d1, delta: float = 0.0):
        c0, c1 = self._common_ratio(d0), self._common_ratio(d1)
        if c0 is None or c1 is None or c0[1] != c1[1] or abs(c0[0] - c1[0]) > 1e-12 * c0[0]:
            return None
        p_pass, _ = self.pass_probability(*c0)
        if p_pass <= 0:
            return 0.0
        if delta >= p_pass:
            return 0.0
        return float(self.law_profile(d0, d1).epsilon(delta / p_pass))


@functools.lru_cache(maxsize=32)
def _pass_probability(mech: ProposeTestSample, ratio: float, n1: int, nodes: int) -> float:
    """Nested Gauss–Legendre over the Laplace noises L₁ (step 6), L₂ (step 8), L₃ (step 13);
    P(L₄ ≥ t) in closed form for step 15.  All records have clipped ratio ``ratio``."""
    eps, a = mech.epsilon, mech.shift
    b = 1.0 / eps
    gx, gw = np.polynomial.legendre.leggauss(nodes)

    def laplace_nodes(lo, hi, scale, kinks=()):
        """Nodes and weights of ∫ over [lo, hi] of the Lap(0, scale) density, split at 0 and
        at the given kinks."""
        cuts = sorted({lo, hi, *[k for k in (0.0, *kinks) if lo < k < hi]})
        xs, ws = [], []
        for u, v in zip(cuts[:-1], cuts[1:]):
            mid, half = 0.5 * (u + v), 0.5 * (v - u)
            pts = mid + half * gx
            xs.append(pts)
            ws.append(half * gw * np.exp(-np.abs(pts) / scale) / (2 * scale))
        return np.concatenate(xs), np.concatenate(ws)

    span = 60.0 * b
    l1, w1 = laplace_nodes(-span, span, b)
    n1c = n1 - a + l1
    v_full = (n1c > 0) & (ratio <= np.where(n1c > 0, np.abs(n1c), 0.0) ** mech.rho1)
    tau = np.where(n1c > 0, np.abs(n1c), 1.0) ** mech.rho1
    l2, w2 = laplace_nodes(-span, span, b)
    n2 = n1 - a + l2
    total = 0.0
    ok = n2 > 1
    n2s = np.where(ok, n2, 2.0)
    radius = n2s ** mech.rho2
    g3 = np.concatenate([(gx - 1) / 2, (gx + 1) / 2])      # nodes on [−1, 1], split at 0
    h3 = np.concatenate([gw, gw]) / 2
    for i in np.flatnonzero(v_full):    # V = ∅ gives null (V is all-or-nothing here)
        scale = b * tau[i] * (2 * (n2s - 1) * mech.x_h ** 2 * mech.x_l ** 2 + mech.x_h ** 4) / (
            n2s * (n2s - 1) * mech.x_l ** 4)
        # W = D iff |L₃|·scale ≤ radius (m = ratio); then P(n_W ≥ n_min(m̌, n₂)) in closed form
        half = radius / scale                                    # (J,)
        l3 = half[:, None] * g3[None, :]                         # (J, M)
        w3 = half[:, None] * h3[None, :] * np.exp(-np.abs(l3)) / 2.0   # Lap(0, 1) density
        m_check = ratio + l3 * scale[:, None]
        t = mech.n_min(m_check, np.broadcast_to(n2s[:, None], l3.shape)) - (n1 - a)
        tail = np.where(t <= 0, 1.0 - 0.5 * np.exp(-np.abs(t) / b), 0.5 * np.exp(-np.abs(t) / b))
        inner = np.where(ok, np.sum(w3 * tail, axis=1), 0.0)
        total += w1[i] * float(np.sum(w2 * inner))
    return float(min(1.0, total))


def _sgld_steps(name: str, steps):
    if not (steps == "paper" or (isinstance(steps, numbers.Integral)
                                 and not isinstance(steps, bool) and steps >= 0)):
        raise ValueError(f"{name} must be 'paper' (T = (⌈k̂⌉+1)n₁) or an integer ≥ 0, "
                         f"got {steps!r}")
    return steps


class ProposeTestSampleSGLD(ProposeTestSample):
    """Propose-Test-Sample with step 19 replaced by SGLD on W (Claim 4.2)."""

    name = "propose-test-sample-sgld"

    parameter_order = ("steps",)
    #: "paper" (T = (⌈k̂⌉+1)n₁) or a whole number of steps; read as ``_steps``
    _steps = Parameter("paper", _sgld_steps, "SGLD steps T, or 'paper' for (⌈k̂⌉+1)n₁",
                       name="steps")

    def step_size_for(self, n1: int) -> float:
        """η = 1/(α + n₁x_h²β)² (Claim 4.2)."""
        return STEP_SIZE_PTS(alpha=self.alpha, beta=self.beta, n=n1, x_h=self.x_h)

    def steps_for(self, n1: int) -> int:
        """T(n₁) = (⌈k̂⌉ + 1)n₁ with the variant's η (or the fixed ``steps``)."""
        if self._steps != "paper":
            return int(self._steps)
        khat = KHAT(alpha=self.alpha, beta=self.beta, n=n1, x_h=self.x_h,
                    eta=self.step_size_for(n1))
        return (math.ceil(khat) + 1) * n1

    def _release(self, records, n_out, rng, n1) -> np.ndarray:
        return draw_sgld(records, steps=self.steps_for(n1), step_size=self.step_size_for(n1),
                         alpha=self.alpha, beta=self.beta, size=n_out, rng=rng)

    def law_profile(self, d0, d1):
        laws = []
        for d in (d0, d1):
            x, y, _, _, _ = self._prepare(d)
            laws.append(cyclic_law(np.stack([x, y], axis=1), batch_size=1,
                                   step_size=self.step_size_for(x.size), alpha=self.alpha,
                                   beta=self.beta))
        if laws[0] is None or laws[1] is None:
            raise ValueError("no closed-form SGLD law for these datasets")
        return pair_profile(laws[0], laws[1], self.steps_for(self._prepare(d0)[0].size))


__all__ = ["ProposeTestSample", "ProposeTestSampleSGLD"]
