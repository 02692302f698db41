"""Derivation: the Adaptive Batch Linear Queries (ABLQ) mechanism of DP-SGD under Poisson,
shuffled and deterministic batches, in the one-dimensional gradient-canary abstraction.

Sources: Mironov, Talwar & Zhang, "Rényi Differential Privacy of the Sampled Gaussian
Mechanism" (2019, arXiv 1908.10530; Section 3.3, integer orders); Chua, Ghazi, Kamath, Kumar,
Manurangsi, Sinha & Zhang, "How Private are DP-SGD Implementations?" (ICML 2024, arXiv
2403.17673: the ABLQ mechanism, the deterministic pair and the shuffle lower-bound pair with
its cube events {max_t x_t > C}); Mironov, "Rényi differential privacy" (CSF 2017, Prop. 1,
composition); van Erven & Harremoës 2014 (Thm 3, D_α nondecreasing in α).

In units of the clipping norm C (noise N(0, σ²) per step, σ the noise multiplier):

* ``subsampled_ratio`` — one Poisson-subsampled step releases μ₁ = (1−q)N(0, σ²) + qN(1, σ²)
  when the canary is present and μ₀ = N(0, σ²) when it is replaced by the zero record; the
  density ratio is μ₁/μ₀ = (1−q) + q·exp((2x − 1)/(2σ²)) (checked).
* ``gaussian_mgf`` — E_{μ₀}[exp(k(2x − 1)/(2σ²))] = exp((k² − k)/(2σ²)) (sympy integral).
* ``binomial_expansion`` — for an integer order α, E_{μ₀}[(μ₁/μ₀)^α] =
  Σ_{k=0}^{α} C(α, k)(1−q)^{α−k} q^k exp((k² − k)/(2σ²)) =: A_α (the binomial theorem,
  checked symbolically at α = 2, 3, 4, then by linearity of expectation), so
  D_α(μ₁‖μ₀) = ln(A_α)/(α − 1), MTZ 2019 Sec. 3.3.  That this direction dominates
  D_α(μ₀‖μ₁) is shown in MTZ 2019 Sec. 3 (``given``).  The certified entry is ln of the k-th term,
  ``mtz_log_term``; the mechanism sums the terms with logsumexp.
* ``composition`` — T steps compose to T·ε(α) (Mironov 2017, Prop. 1); D_α is nondecreasing
  in α, so T·ε(⌈α⌉) bounds the curve at a fractional α (``given``).  The q = 1 limit is the
  Gaussian mechanism's α/(2σ²) (checked).
* ``deterministic`` — with deterministic batches the canary is in one batch per epoch: E
  epochs release a Gaussian shift of norm √E·Δ, so the pair is μ-GDP with μ = √E·Δ/σ
  (checked: the squared norm of E unit shifts Δ is EΔ²).
* ``shuffle_max`` — Chua et al.'s shuffle pair MoG(μ) = (1/T)Σ_t N(μe_t, σ²I_T): the law of
  M = max_t x_t has CDF Φ((c − μ)/σ)Φ(c/σ)^{T−1} (condition on the step holding the canary:
  the coordinates are then independent; every step gives the same CDF by symmetry), whose
  derivative (checked) is the density the exact curve integrates.
* ``mixture_density`` — the log-density of MoG(μ) is the isotropic Gaussian's plus
  ln((1/T)Σ_t exp((2μx_t − μ²)/(2σ²))) (checked per component), the white-box statistic.
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp

from dpaudit.proofs.framework import Derivation

FAMILY = "dpsgd"


def derive() -> Derivation:
    d = Derivation(FAMILY, Path(__file__), "ABLQ / DP-SGD batch sampling: the Poisson-subsampled "
                   "Gaussian's integer-order RDP, the deterministic pair, the shuffle cube pair",
                   references=("Mironov, Talwar & Zhang, Rényi Differential Privacy of the "
                               "Sampled Gaussian Mechanism, 2019 (Sec. 3.3)",
                               "Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, How "
                               "Private are DP-SGD Implementations?, ICML 2024",
                               "Mironov, Rényi differential privacy, CSF 2017 (Prop. 1)",
                               "van Erven & Harremoës, Rényi divergence and Kullback-Leibler "
                               "divergence, IEEE Trans. IT 2014 (Thm 3)"))
    s = {
        "q": d.symbol("q", "sampling rate q = b/n, 0 < q < 1", positive=True),
        "sigma": d.symbol("sigma", "noise multiplier σ (noise N(0, σ²C²), units of C)",
                          positive=True),
        "alpha": d.symbol("alpha", "integer Rényi order α ≥ 2", positive=True, integer=True),
        "k": d.symbol("k", "summation index 0 ≤ k ≤ α", nonnegative=True, integer=True),
        "E": d.symbol("E", "number of epochs", positive=True),
        "Delta": d.symbol("Delta", "clipped canary difference Δ (units of C)", positive=True),
        "T": d.symbol("T", "steps per epoch", positive=True),
        "c": d.symbol("c", "threshold of the cube event {max_t x_t ≤ c}", real=True),
        "mu": d.symbol("mu", "shift of the canary's batch", real=True),
    }
    _subsampled_ratio(d, s)
    _gaussian_mgf(d, s)
    _binomial_expansion(d, s)
    _composition(d, s)
    _deterministic(d, s)
    _shuffle_max(d, s)
    _mixture_density(d, s)
    return d


def _phi(x, m, sigma):
    return sp.exp(-(x - m) ** 2 / (2 * sigma ** 2)) / sp.sqrt(2 * sp.pi * sigma ** 2)


def _subsampled_ratio(d, s):
    q, sigma = s["q"], s["sigma"]
    x = sp.Symbol("x", real=True)
    d.section("subsampled_ratio")
    d.given("one Poisson-subsampled step with the canary (gradient C, i.e. 1 in units of C) "
            "releases μ₁ = (1−q)N(0, σ²) + qN(1, σ²); with the canary replaced by the zero "
            "record μ₀ = N(0, σ²) (the other records' contributions are independent of the "
            "canary's inclusion and are post-processing)", "MTZ 2019 Sec. 3; Chua et al. 2024 "
            "Sec. 2 (ABLQ_P)")
    d.identity("μ₁(x)/μ₀(x) = (1−q) + q·exp((2x − 1)/(2σ²))",
               ((1 - q) * _phi(x, 0, sigma) + q * _phi(x, 1, sigma)) / _phi(x, 0, sigma),
               (1 - q) + q * sp.exp((2 * x - 1) / (2 * sigma ** 2)))
    d.entry("poisson_step_log_ratio", "L_step",
            sp.log((1 - q) + q * sp.exp((2 * x - 1) / (2 * sigma ** 2))),
            "privacy loss ln(μ₁/μ₀)(x) of one Poisson-subsampled Gaussian step",
            sections=["subsampled_ratio"])


def _gaussian_mgf(d, s):
    sigma, k = s["sigma"], s["k"]
    x = sp.Symbol("x", real=True)
    d.section("gaussian_mgf")
    d.integral("E_{N(0,σ²)}[exp(k(2x − 1)/(2σ²))] = exp((k² − k)/(2σ²))",
               _phi(x, 0, sigma) * sp.exp(k * (2 * x - 1) / (2 * sigma ** 2)),
               (x, -sp.oo, sp.oo), sp.exp((k ** 2 - k) / (2 * sigma ** 2)))


def _binomial_expansion(d, s):
    q, sigma, alpha, k = s["q"], s["sigma"], s["alpha"], s["k"]
    y = sp.Symbol("y", positive=True)
    d.section("binomial_expansion")
    steps = []
    for a in (2, 3, 4):
        steps.append(d.identity(
            f"((1−q) + q·y)^{a} = Σ_k C({a}, k)(1−q)^({a}−k) q^k y^k (binomial theorem at α = {a})",
            ((1 - q) + q * y) ** a,
            sum(sp.binomial(a, j) * (1 - q) ** (a - j) * q ** j * y ** j for j in range(a + 1))))
    d.given("binomial theorem for every integer α ≥ 0: ((1−q) + q·y)^α = Σ_k C(α, k)(1−q)^{α−k}"
            " q^k y^k", "binomial theorem")
    d.deduce("E_{μ₀}[(μ₁/μ₀)^α] = Σ_k C(α, k)(1−q)^{α−k} q^k exp((k² − k)/(2σ²)) = A_α, with "
             "y = exp((2x − 1)/(2σ²)) and linearity of expectation",
             [d.step("subsampled_ratio.2"), d.step("gaussian_mgf.1"), *steps],
             "substitute the density ratio, expand, integrate term by term")
    d.given("D_α(μ₀‖μ₁) ≤ D_α(μ₁‖μ₀) for the Poisson-subsampled Gaussian, so ε(α) = "
            "ln(A_α)/(α − 1) bounds both directions (add/remove and zero-out neighbours)",
            "Mironov, Talwar & Zhang 2019, Sec. 3 (the direction D_α(μ₁‖μ₀) dominates "
            "for the sampled Gaussian)")
    # over assumption-free symbols: with integer assumptions sympy rewrites lnΓ(α + 1) as
    # ln(Γ(α + 1)), which overflows in floating point beyond α = 170
    a_, k_, q_, s_ = (sp.Symbol(v.name) for v in (alpha, k, q, sigma))
    term = (sp.loggamma(a_ + 1) - sp.loggamma(k_ + 1) - sp.loggamma(a_ - k_ + 1)
            + (a_ - k_) * sp.log(1 - q_) + k_ * sp.log(q_) + (k_ ** 2 - k_) / (2 * s_ ** 2))
    d.identity("ln C(α, k) = lnΓ(α + 1) − lnΓ(k + 1) − lnΓ(α − k + 1) (checked at α = 4, k = 2)",
               sp.log(sp.binomial(4, 2)),
               (sp.loggamma(5) - sp.loggamma(3) - sp.loggamma(3)))
    d.entry("mtz_log_term", "log_a_k", term,
            "ln of the k-th term of A_α = Σ_k C(α,k)(1−q)^{α−k}q^k exp((k²−k)/(2σ²)) (MTZ 2019 "
            "Sec. 3.3); ε(α) = ln(Σ_k exp(log_a_k))/(α − 1) per step",
            sections=["subsampled_ratio", "gaussian_mgf", "binomial_expansion"],
            relations=[sp.Ge(alpha, 2), sp.Le(k, alpha), sp.Lt(q, 1)])


def _composition(d, s):
    sigma, alpha = s["sigma"], s["alpha"]
    d.section("composition")
    d.given("T adaptive steps compose: ε_T(α) = T·ε(α)", "Mironov 2017, Prop. 1")
    d.given("D_α is nondecreasing in α, so T·ε(⌈α⌉) bounds D_α at a fractional order α ≥ 1",
            "van Erven & Harremoës 2014, Thm 3")
    d.identity("at q = 1 only k = α contributes: ln(exp((α² − α)/(2σ²)))/(α − 1) = α/(2σ²), "
               "the Gaussian mechanism's RDP",
               ((alpha ** 2 - alpha) / (2 * sigma ** 2)) / (alpha - 1), alpha / (2 * sigma ** 2))


def _deterministic(d, s):
    E, Delta, sigma = s["E"], s["Delta"], s["sigma"]
    d.section("deterministic")
    d.given("with deterministic batches the canary is in one fixed batch per epoch, so the two "
            "output laws are N(m, σ²I) and N(m + Δ·Σ_e e_{t_e}, σ²I)", "Chua et al. 2024, ABLQ_D")
    e = sp.Symbol("e", positive=True, integer=True)
    d.summation("‖Δ·Σ_{e=1}^{E} e_{t_e}‖² = Σ_{e=1}^{E} Δ² = EΔ² (distinct coordinates)",
                Delta ** 2, (e, 1, E), E * Delta ** 2)
    d.entry("deterministic_mu", "mu", sp.sqrt(E) * Delta / sigma,
            "GDP parameter μ = √E·Δ/σ of deterministic batches (a Gaussian shift of norm √E·Δ)",
            sections=["deterministic"])


def _shuffle_max(d, s):
    T, sigma, c, mu = s["T"], s["sigma"], s["c"], s["mu"]
    d.section("shuffle_max")
    d.given("Chua et al.'s shuffle pair: one epoch of T steps, the canary's batch uniform over "
            "the T steps; with the other records' gradients −C the two datasets give "
            "MoG(2) vs MoG(1), MoG(μ) = (1/T)Σ_t N(μe_t, σ²I_T) (after removing the common "
            "shift); the max M = max_t x_t is a post-processing, so the pair of laws of M "
            "lower-bounds the mechanism's privacy curve", "Chua et al. 2024, Sec. 4 (cube "
            "events E_C = {max_t x_t > C})")
    Phi = lambda z: sp.erfc(-z / sp.sqrt(2)) / 2  # noqa: E731
    cdf = Phi((c - mu) / sigma) * Phi(c / sigma) ** (T - 1)
    density = (_phi(c, mu, sigma) * Phi(c / sigma) ** (T - 1)
               + (T - 1) * _phi(c, 0, sigma) * Phi((c - mu) / sigma) * Phi(c / sigma) ** (T - 2))
    d.identity("d/dc [Φ((c−μ)/σ)Φ(c/σ)^{T−1}] = φ_σ(c − μ)Φ(c/σ)^{T−1} + "
               "(T−1)φ_σ(c)Φ((c−μ)/σ)Φ(c/σ)^{T−2}", sp.diff(cdf, c), density)
    d.entry("shuffle_max_log_cdf", "log_F",
            sp.log(Phi((c - mu) / sigma)) + (T - 1) * sp.log(Phi(c / sigma)),
            "ln P[max_t x_t ≤ c] under MoG(μ) (one epoch of T steps)",
            sections=["shuffle_max"])


def _mixture_density(d, s):
    sigma, mu = s["sigma"], s["mu"]
    x = sp.Symbol("x", real=True)
    d.section("mixture_density")
    d.identity("−(x − μ)²/(2σ²) = −x²/(2σ²) + (2μx − μ²)/(2σ²): each component of MoG(μ) is the "
               "centred Gaussian times exp((2μx_t − μ²)/(2σ²)) in its own coordinate",
               -(x - mu) ** 2 / (2 * sigma ** 2),
               -x ** 2 / (2 * sigma ** 2) + (2 * mu * x - mu ** 2) / (2 * sigma ** 2))
    d.sign("the component factor exp((2μx − μ²)/(2σ²)) is positive (the log of the mixture sum "
           "is finite)", sp.exp((2 * mu * x - mu ** 2) / (2 * sigma ** 2)), ">")
    d.entry("mixture_component_log_factor", "log_w_t", (2 * mu * x - mu ** 2) / (2 * sigma ** 2),
            "ln of the factor of component t of MoG(μ) relative to N(0, σ²I)",
            sections=["mixture_density"])
