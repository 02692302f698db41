"""Calibration: does the noise the sampler really draws have the parameter the claim states?

A mechanism declares its noise law with :meth:`~dpaudit.mechanisms.capabilities.CalibratedNoise.noise`
(a :class:`~dpaudit.mechanisms.base.Noise`: the law, and each parameter's value *as the claim
states it*).  :func:`check_calibration` samples the mechanism on one dataset (the declared
``probe``, else d0 of its first worst-case pair) and builds an exact — or conservative —
two-sided confidence interval for each parameter from the outputs alone:

=====================  =========================================================================
law                    interval (N residuals r = M(D) − query(D), or N outputs)
=====================  =========================================================================
laplace                Σ|r| ~ Gamma(N, scale b)  ⇒  b ∈ [Σ|r| / G⁻¹(1−α/2), Σ|r| / G⁻¹(α/2)]
gaussian               Σr² ~ σ²χ²_N              ⇒  σ ∈ [√(Σr²/χ²⁻¹(1−α/2)), √(Σr²/χ²⁻¹(α/2))]
l2-laplace             Σ‖r‖₂ ~ Gamma(N·d, a)     ⇒  a ∈ [Σ‖r‖ / G⁻¹(1−α/2), Σ‖r‖ / G⁻¹(α/2)]
geometric              #{r = 0} ~ Bin(N, (1−α)/(1+α)); Clopper–Pearson, mapped by the monotone
                       α = (1 − p₀)/(1 + p₀)
randomized-response    #{output = record} ~ Bin(N, p_true); Clopper–Pearson
exponential-mechanism  #{output ∈ argmax u} ~ Bin(N, p(β)), p increasing in β; Clopper–Pearson,
                       inverted for β
noisy-max-argmax       #{argmax ∈ argmax q} ~ Bin(N, p(b)), p decreasing in b (exact p by
                       quadrature, :mod:`dpaudit.mechanisms.noisy_max.exact`); Clopper–Pearson, inverted
noisy-max-value        #{max ≤ max q + b*} ~ Bin(N, Πᵢ F((t − qᵢ)/b)), decreasing in b
svt-patterns           every ⊤/⊥ pattern count ~ Bin(N, P(pattern)) with the exact P of
                       :mod:`dpaudit.mechanisms.sparse_vector.exact`; Clopper–Pearson, Bonferroni over patterns
=====================  =========================================================================

The check FAILs when a claimed value lies outside its interval (for the binomial laws: when
the claimed value's probability lies outside the Clopper–Pearson interval of its count, which
is the same statement because the map is monotone).  The default confidence is 0.999 so that
a correct mechanism fails rarely (at most 0.1 % of seeds); intervals of one law are
Bonferroni-split so the whole step holds at that confidence.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np
from scipy import integrate, optimize, stats

from dpaudit.util import validation
from dpaudit.mechanisms.capabilities import DeterministicQuery
from dpaudit.mechanisms.noise import NOISE_LAWS
from dpaudit.stats.intervals import clopper_pearson_lower, clopper_pearson_upper

DEFAULT_CONFIDENCE = 0.999


class CalibrationError(ValueError):
    """The noise declaration cannot be checked (unknown law, missing query(), bad output)."""


@dataclass(frozen=True)
class ParameterInterval:
    """One claimed value against its confidence interval."""

    name: str
    claimed: float
    estimate: float
    lower: float
    upper: float
    inside: bool
    #: what was counted or summed, and the interval used
    statistic: str = ""
    #: which dataset it was measured on (``dpaudit.check.calibration_sets``); "" for the probe
    dataset: str = ""


@dataclass(frozen=True)
class Calibration:
    """The result of :func:`check_calibration`."""

    law: str
    passed: bool
    intervals: tuple[ParameterInterval, ...]
    samples: int
    confidence: float
    probe: Any
    method: str
    details: dict = field(default_factory=dict)

    def worst(self) -> ParameterInterval:
        """The interval farthest (relative to its width) from containing its claimed value."""
        def score(iv: ParameterInterval) -> float:
            width = max(iv.upper - iv.lower, 1e-300) if math.isfinite(iv.upper) else math.inf
            if iv.claimed < iv.lower:
                return (iv.lower - iv.claimed) / width
            if iv.claimed > iv.upper:
                return (iv.claimed - iv.upper) / width
            return -abs(iv.claimed - iv.estimate) / width if math.isfinite(width) else -1.0
        return max(self.intervals, key=score)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["probe"] = np.asarray(self.probe).tolist() if self.probe is not None else None
        return out


# -- helpers -----------------------------------------------------------------------------------

def _cp(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval at level 1 − alpha."""
    return (float(clopper_pearson_lower(k, n, alpha / 2)),
            float(clopper_pearson_upper(k, n, alpha / 2)))


def _solve(fn: Callable[[float], float], target: float, claimed: float) -> float | None:
    """θ > 0 with fn(θ) = target for a monotone fn, searched in brackets claimed·[1/r, r]
    growing to r = 1000 (quadrature-based probabilities are unreliable far beyond); None when
    the target is not reached there."""
    def g(t: float) -> float:
        value = fn(math.exp(t))
        return (min(max(value, 0.0), 1.0) if math.isfinite(value) else math.nan) - target

    centre = math.log(claimed)
    g0 = g(centre)
    if g0 == 0:
        return claimed
    for r in (2.0, 8.0, 64.0, 1000.0):
        for t in (centre - math.log(r), centre + math.log(r)):
            gt = g(t)
            if math.isfinite(gt) and gt * g0 <= 0:
                a, b = sorted((centre, t))
                return math.exp(optimize.brentq(g, a, b, xtol=1e-12, rtol=1e-10))
    return None


def _binomial_parameter(name: str, p_of: Callable[[float], float], increasing: bool,
                        k: int, n: int, claimed: float, alpha: float,
                        event: str) -> ParameterInterval:
    """Interval for a parameter θ from k ~ Bin(n, p(θ)) with p monotone in θ (limits at the
    ends of (0, ∞) give 0 / ∞ when the probability interval reaches past them)."""
    p_lo, p_hi = _cp(k, n, alpha)
    p_claim = p_of(claimed)
    inside = p_lo <= p_claim <= p_hi
    hat = k / n
    # θ at the interval ends (the larger probability gives the larger θ iff p increases)
    t_plo = _solve(p_of, p_lo, claimed)
    t_phi = _solve(p_of, p_hi, claimed)
    t_hat = _solve(p_of, hat, claimed)
    if increasing:
        lower = t_plo if t_plo is not None else 0.0
        upper = t_phi if t_phi is not None else math.inf
    else:
        lower = t_phi if t_phi is not None else 0.0
        upper = t_plo if t_plo is not None else math.inf
    estimate = t_hat if t_hat is not None else (math.inf if (hat >= p_claim) == increasing
                                                else 0.0)
    return ParameterInterval(
        name, claimed, estimate, lower, upper, inside,
        f"{event}: {k}/{n} = {hat:.5g}, Clopper–Pearson [{p_lo:.5g}, {p_hi:.5g}]; the claimed "
        f"{name} = {claimed:.6g} gives probability {p_claim:.5g}")


def _sample(mechanism, probe, n: int, rng) -> np.ndarray:
    out = np.asarray(mechanism.sample(probe, n, rng))
    if out.shape[:1] != (n,):
        raise CalibrationError(f"sample(dataset, {n}, rng) returned shape {out.shape}, expected "
                               f"({n}, …)")
    return out


def _query(mechanism, probe, law: str) -> np.ndarray:
    if not isinstance(mechanism, DeterministicQuery):
        raise CalibrationError(f"noise law {law!r} needs the mechanism's deterministic "
                               f"query(dataset) (outputs are compared with it)")
    return np.asarray(mechanism.query(probe), dtype=float)


def _residuals(mechanism, probe, n, rng, law) -> tuple[np.ndarray, np.ndarray]:
    q = _query(mechanism, probe, law)
    out = _sample(mechanism, probe, n, rng).astype(float)
    try:
        r = (out - q).ravel() if out.ndim == 1 or q.ndim == 0 else (out - q[None, ...]).ravel()
    except ValueError:
        raise CalibrationError(f"outputs of shape {out.shape[1:]} do not match query(dataset) "
                               f"of shape {q.shape}") from None
    if not np.all(np.isfinite(r)):
        raise CalibrationError("the sampler returned non-finite outputs")
    return r, q


# -- the laws ----------------------------------------------------------------------------------

def _laplace(mech, noise, probe, n, rng, alpha):
    (name, claimed), = noise.parameters.items()
    r, _ = _residuals(mech, probe, n, rng, "laplace")
    s, big_n = float(np.abs(r).sum()), r.size
    lower = s / stats.gamma.isf(alpha / 2, big_n)
    upper = s / stats.gamma.ppf(alpha / 2, big_n)
    iv = ParameterInterval(name, claimed, s / big_n, lower, upper, lower <= claimed <= upper,
                           f"Σ|M(D) − q(D)| = {s:.6g} over N = {big_n} ~ Gamma(N, {name}); exact "
                           f"gamma interval")
    return [iv], "Σ|r| ~ Gamma(N, b): exact gamma interval for b"


def _gaussian(mech, noise, probe, n, rng, alpha):
    (name, claimed), = noise.parameters.items()
    r, _ = _residuals(mech, probe, n, rng, "gaussian")
    s, big_n = float(np.square(r).sum()), r.size
    lower = math.sqrt(s / stats.chi2.isf(alpha / 2, big_n))
    upper = math.sqrt(s / stats.chi2.ppf(alpha / 2, big_n))
    iv = ParameterInterval(name, claimed, math.sqrt(s / big_n), lower, upper,
                           lower <= claimed <= upper,
                           f"Σ(M(D) − q(D))² = {s:.6g} over N = {big_n} ~ {name}²·χ²_N; exact "
                           f"chi-square interval")
    return [iv], "Σr² ~ σ²χ²_N: exact chi-square interval for σ"


def _l2_laplace(mech, noise, probe, n, rng, alpha):
    (name, claimed), = noise.parameters.items()
    q = _query(mech, probe, "l2-laplace")
    out = _sample(mech, probe, n, rng).astype(float).reshape(n, -1)
    if out.shape[1] != q.size:
        raise CalibrationError(f"outputs of width {out.shape[1]} do not match query(dataset) "
                               f"of size {q.size}")
    radii = np.linalg.norm(out - q.ravel()[None, :], axis=1)
    if not np.all(np.isfinite(radii)):
        raise CalibrationError("the sampler returned non-finite outputs")
    s, shape = float(radii.sum()), n * q.size   # Σ‖r‖ ~ Gamma(N·d, a)
    lower = s / stats.gamma.isf(alpha / 2, shape)
    upper = s / stats.gamma.ppf(alpha / 2, shape)
    iv = ParameterInterval(name, claimed, s / shape, lower, upper, lower <= claimed <= upper,
                           f"Σ‖M(D) − q(D)‖₂ = {s:.6g} over N = {n} outputs of dimension "
                           f"d = {q.size} ~ Gamma(N·d, {name}); exact gamma interval")
    return [iv], "Σ‖r‖₂ ~ Gamma(N·d, a) (radius of the ℓ₂-Laplace law): exact gamma interval"


def _geometric(mech, noise, probe, n, rng, alpha):
    (name, claimed), = noise.parameters.items()
    r, _ = _residuals(mech, probe, n, rng, "geometric")
    if np.any(r != np.round(r)):
        raise CalibrationError("geometric noise must give integer residuals M(D) − query(D)")
    k, big_n = int(np.count_nonzero(r == 0)), r.size
    p_of = lambda a: (1.0 - a) / (1.0 + a)  # noqa: E731
    p_lo, p_hi = _cp(k, big_n, alpha)
    lower, upper = (1 - p_hi) / (1 + p_hi), (1 - p_lo) / (1 + p_lo)
    hat = k / big_n
    iv = ParameterInterval(name, claimed, (1 - hat) / (1 + hat), lower, upper,
                           p_lo <= p_of(claimed) <= p_hi,
                           f"#{{M(D) = q(D)}} = {k}/{big_n} ~ Bin(N, (1−α)/(1+α)); Clopper–"
                           f"Pearson [{p_lo:.5g}, {p_hi:.5g}] mapped by α = (1 − p)/(1 + p)")
    return [iv], "zero frequency ~ Bin(N, (1−α)/(1+α)): Clopper–Pearson, mapped to α"


def _randomized_response(mech, noise, probe, n, rng, alpha):
    claimed = noise.parameters["p_true"]
    record = _query(mech, probe, "randomized-response") if isinstance(
        mech, DeterministicQuery) else np.asarray(probe).ravel()[0]
    out = _sample(mech, probe, n, rng).ravel()
    k = int(np.count_nonzero(out == np.asarray(record).ravel()[0]))
    p_lo, p_hi = _cp(k, n, alpha)
    iv = ParameterInterval("p_true", claimed, k / n, p_lo, p_hi, p_lo <= claimed <= p_hi,
                           f"#{{output = record}} = {k}/{n} ~ Bin(N, p_true); Clopper–Pearson")
    return [iv], "keep frequency ~ Bin(N, p_true): Clopper–Pearson"


def _argmax_frequency(mech, probe, n, rng, alpha, *, scores, parameter, claimed, p_of,
                      increasing, what, constant):
    """One Clopper–Pearson interval for a noise parameter from how often the output lands in
    argmax(scores): the count is Bin(N, p(parameter)) with p monotone in the parameter.

    Raises:
      CalibrationError: every score is equal (``constant`` says why that is useless).
    """
    top = np.flatnonzero(scores == scores.max())
    if top.size == scores.size:
        raise CalibrationError(constant)
    out = _sample(mech, probe, n, rng).ravel()
    k = int(np.isin(out, top).sum())
    return _binomial_parameter(parameter, lambda v: p_of(v, top), increasing, k, n, claimed,
                               alpha, what)


def _exponential_mechanism(mech, noise, probe, n, rng, alpha):
    u = _query(mech, probe, "exponential-mechanism").ravel()
    gaps = u - u.max()
    iv = _argmax_frequency(
        mech, probe, n, rng, alpha, scores=u, parameter="beta",
        claimed=noise.parameters["beta"], increasing=True,
        p_of=lambda beta, top: top.size / float(np.exp(beta * gaps).sum()),
        what=f"#{{output ∈ argmax u}}, u = {u.tolist()}",
        constant="the probe's utilities are all equal: the output law does not depend on β; "
                 "declare a probe with distinct utilities")
    return [iv], "argmax frequency ~ Bin(N, p(β)), p increasing: Clopper–Pearson inverted for β"


def _noisy_max_argmax(mech, noise, probe, n, rng, alpha):
    from dpaudit.mechanisms.noisy_max import exact

    dist = noise.options.get("distribution", "laplace")
    probs = {"laplace": exact.laplace_argmax_probabilities,
             "exponential": exact.exponential_argmax_probabilities}.get(dist)
    if probs is None:
        raise CalibrationError(f"noisy-max distribution must be 'laplace' or 'exponential', "
                               f"got {dist!r}")
    q = _query(mech, probe, "noisy-max-argmax").ravel()
    iv = _argmax_frequency(
        mech, probe, n, rng, alpha, scores=q, parameter="b", claimed=noise.parameters["b"],
        increasing=False, p_of=lambda b, top: float(np.sum(probs(q, b)[top])),
        what=f"#{{argmax ∈ argmax q}}, q = {q.tolist()}, {dist} noise",
        constant="the probe's answers are all equal: the argmax law does not depend on b; "
                 "declare a probe with distinct answers")
    return [iv], "argmax frequency ~ Bin(N, p(b)), p decreasing: Clopper–Pearson inverted for b"


def _noisy_max_value(mech, noise, probe, n, rng, alpha):
    claimed = noise.parameters["b"]
    dist = noise.options.get("distribution", "laplace")
    q = _query(mech, probe, "noisy-max-value").ravel()
    t = float(q.max() + claimed)
    x = t - q  # all > 0
    if dist == "laplace":
        p_of = lambda b: float(np.prod(1.0 - 0.5 * np.exp(-x / b)))  # noqa: E731
    elif dist == "exponential":
        p_of = lambda b: float(np.prod(-np.expm1(-x / b)))  # noqa: E731
    else:
        raise CalibrationError(f"noisy-max distribution must be 'laplace' or 'exponential', "
                               f"got {dist!r}")
    out = _sample(mech, probe, n, rng).astype(float).ravel()
    k = int(np.count_nonzero(out <= t))
    iv = _binomial_parameter("b", p_of, False, k, n, claimed, alpha,
                             f"#{{max ≤ {t:.6g}}}, q = {q.tolist()}, {dist} noise")
    return [iv], "#{max ≤ max q + b*} ~ Bin(N, p(b)), p decreasing: Clopper–Pearson inverted"


def _pattern_codes(out: np.ndarray, c) -> np.ndarray:
    """int8 codes 1/0/−1 from either codes or released values (⊤ = finite value)."""
    if out.dtype.kind == "f":
        top = np.isfinite(out)
        answered = np.ones_like(top) if c is None else (np.cumsum(top, axis=1) - top) < c
        return np.where(answered, top, -1).astype(np.int8)
    return out.astype(np.int8)


def _svt_patterns(mech, noise, probe, n, rng, alpha):
    from dpaudit.mechanisms.sparse_vector import exact

    b_rho = noise.parameters["b_rho"]
    b_nu = noise.parameters.get("b_nu", 0.0)
    threshold, c = noise.options.get("threshold", 0.0), noise.options.get("c")
    q = _query(mech, probe, "svt-patterns").ravel()
    predicted = exact.pattern_probabilities(q, threshold, b_rho, b_nu, c)
    out = _sample(mech, probe, n, rng)
    if out.ndim != 2 or out.shape[1] != q.size:
        raise CalibrationError(f"svt outputs must have shape (n, {q.size}), got {out.shape}")
    patterns, counts = np.unique(_pattern_codes(out, c), axis=0, return_counts=True)
    observed = {tuple(int(v) for v in p): int(k) for p, k in zip(patterns, counts)}
    keys = sorted(set(predicted) | set(observed))
    each = alpha / len(keys)
    symbol = {1: "⊤", 0: "⊥", -1: "·"}
    intervals = []
    for key in keys:
        k, p = observed.get(key, 0), predicted.get(key, 0.0)
        lo, hi = _cp(k, n, each)
        label = "".join(symbol[v] for v in key)
        intervals.append(ParameterInterval(
            f"P({label})", p, k / n, lo, hi, lo <= p <= hi,
            f"count {k}/{n}; Clopper–Pearson at level 1 − α/{len(keys)}"))
    return intervals, (f"each of {len(keys)} pattern counts ~ Bin(N, P(pattern | b_rho = "
                       f"{b_rho:g}, b_nu = {b_nu:g})): Clopper–Pearson, Bonferroni over patterns")


LAWS: dict[str, Callable] = {
    "laplace": _laplace,
    "gaussian": _gaussian,
    "l2-laplace": _l2_laplace,
    "geometric": _geometric,
    "randomized-response": _randomized_response,
    "exponential-mechanism": _exponential_mechanism,
    "noisy-max-argmax": _noisy_max_argmax,
    "noisy-max-value": _noisy_max_value,
    "svt-patterns": _svt_patterns,
}
assert set(LAWS) == set(NOISE_LAWS)

_REQUIRED = {"laplace": None, "gaussian": None, "l2-laplace": None, "geometric": None, "randomized-response": "p_true",
             "exponential-mechanism": "beta", "noisy-max-argmax": "b", "noisy-max-value": "b",
             "svt-patterns": "b_rho"}


def default_probe(mechanism, noise):
    """The declared probe, else d0 of the mechanism's first worst-case pair."""
    if noise.probe is not None:
        return noise.probe
    pairs = mechanism.worst_case_pairs()
    if not pairs:
        raise CalibrationError("no probe dataset: declare Noise(probe=…) or give "
                               "worst_case_pairs()")
    return pairs[0].d0


def check_calibration(mechanism, noise, *, samples: int, rng: np.random.Generator,
                      confidence: float = DEFAULT_CONFIDENCE, probe=None) -> Calibration:
    """Sample ``mechanism`` ``samples`` times on ``probe`` (default :func:`default_probe`) and
    test every value in ``noise.parameters`` against its interval at ``confidence`` (see the
    module docstring)."""
    law = noise.law
    if law not in LAWS:
        raise CalibrationError(f"unknown noise law {law!r}; known: {', '.join(sorted(LAWS))}")
    params = dict(noise.parameters or {})
    if not params:
        raise CalibrationError(f"noise law {law!r} declares no parameter values")
    need = _REQUIRED[law]
    if need is None and len(params) != 1:
        raise CalibrationError(f"noise law {law!r} takes one parameter, got {sorted(params)}")
    if need is not None and need not in params:
        raise CalibrationError(f"noise law {law!r} needs the parameter {need!r}, got "
                               f"{sorted(params)}")
    for name, value in params.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise CalibrationError(f"claimed {name} must be a finite number > 0, got {value!r}")
    validation.confidence("confidence", confidence)
    probe = default_probe(mechanism, noise) if probe is None else probe
    with warnings.catch_warnings():  # quadrature accuracy notes from dpaudit.exact
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        intervals, method = LAWS[law](mechanism, noise, probe, int(samples), rng,
                                      1.0 - confidence)
    return Calibration(law=law, passed=all(iv.inside for iv in intervals),
                       intervals=tuple(intervals), samples=int(samples), confidence=confidence,
                       probe=probe, method=method,
                       details={"noise": noise.to_dict()})


__all__ = ["Calibration", "CalibrationError", "ParameterInterval", "check_calibration",
           "default_probe", "LAWS", "DEFAULT_CONFIDENCE"]
