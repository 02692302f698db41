"""Privacy notions a mechanism can claim, and the (ε, δ) each implies.

Contract (:mod:`dpaudit.claims.base`): a claim is an immutable statement "mechanism M
satisfies notion N with parameters P for its neighbouring relation".  ``claim.epsilon(delta)``
returns the smallest ε such that the claim implies (ε, δ)-DP, using only exact or provably
conservative conversions (the conversion used is named in each class docstring).  It returns
``math.inf`` when the claim implies nothing at that δ (e.g. an (ε₀, δ₀) claim asked about
δ < δ₀).  The meaning of an existing claim class must not change.

Notions: :class:`PureDP`, :class:`ApproxDP`, :class:`RDP` (a curve ε(α) on a range of α),
:class:`ZCDP`, :class:`TCDP` (truncated CDP), :class:`GDP` (Gaussian DP), :class:`PrivacyProfile`
(a curve δ(ε)), and :class:`AllOf`.  :class:`RDP`, :class:`ZCDP` and :class:`TCDP` state a
Rényi curve ``rdp(α)`` (the :class:`~dpaudit.claims.capabilities.RenyiCurve` mixin).
Conversions live in :mod:`dpaudit.claims.conversions`, composition in
:mod:`dpaudit.claims.composition`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import sys

from dpaudit.claims import conversions as conv
from dpaudit.claims.base import Claim, jsonable
from dpaudit.claims.capabilities import ProfileCurve, RenyiCurve

#: the symbols of a curve, made on first use (PEP 562) so that building, printing and
#: evaluating a numeric claim imports no sympy: ALPHA, the order α of an RDP curve (matched by
#: name, so assumptions on the symbol do not matter); EPSILON, the argument ε of a privacy
#: profile δ(ε); RHO, zCDP's ρ
_SYMBOLS = {"ALPHA": "alpha", "EPSILON": "epsilon", "RHO": "rho"}


def __getattr__(name: str):
    if name not in _SYMBOLS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import sympy as sp

    value = sp.Symbol(_SYMBOLS[name])
    globals()[name] = value
    return value


def _is_symbolic(value) -> bool:
    """Whether ``value`` is a sympy object (never, while sympy has not been imported)."""
    sp = sys.modules.get("sympy")
    return sp is not None and isinstance(value, sp.Basic)


def _sympify(value):
    import sympy as sp

    return sp.sympify(value)


def _check_epsilon(value: float, what: str = "epsilon") -> float:
    return conv.check_positive(value, what)


def _check_delta(value: float, what: str = "delta") -> float:
    return conv.check_delta(value, what)


def _init_claim(claim, expression, substitutions, **values) -> None:
    """Set a frozen claim's fields (the constructors below take ``epsilon=`` like every other
    dpaudit API, while the field is ``eps`` because ``epsilon(δ)`` is the conversion)."""
    for name, value in values.items():
        object.__setattr__(claim, name, value)
    object.__setattr__(claim, "expression", expression)
    object.__setattr__(claim, "substitutions", dict(substitutions or {}))


@dataclass(frozen=True, init=False)
class PureDP(Claim):
    """ε-DP: P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] for all S and neighbours D, D′.

    Implies (ε, δ)-DP for every δ ≥ 0 (pure → approximate is the identity on ε).  Built as
    ``PureDP(epsilon)``; the value is the field ``eps``."""

    eps: float = 1.0
    notion = "pure-dp"

    def __init__(self, epsilon: float = 1.0, *, expression: Any = None,
                 substitutions: dict | None = None):
        _init_claim(self, expression, substitutions, eps=_check_epsilon(epsilon))

    def epsilon(self, delta: float) -> float:
        _check_delta(delta)
        return self.eps

    def parameters(self) -> dict:
        return {"epsilon": self.eps}


@dataclass(frozen=True, init=False)
class ApproxDP(Claim):
    """(ε₀, δ₀)-DP: P[M(D) ∈ S] ≤ e^ε₀ P[M(D′) ∈ S] + δ₀.

    Implies (ε₀, δ)-DP for δ ≥ δ₀ and nothing (ε = ∞) for δ < δ₀.  Built as
    ``ApproxDP(epsilon, delta)``; the values are the fields ``eps`` and ``delta``."""

    eps: float = 1.0
    delta: float = 1e-5
    notion = "approx-dp"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, *, expression: Any = None,
                 substitutions: dict | None = None):
        _init_claim(self, expression, substitutions, eps=_check_epsilon(epsilon),
                    delta=_check_delta(delta))

    def epsilon(self, delta: float) -> float:
        _check_delta(delta)
        return self.eps if delta >= self.delta else math.inf

    def parameters(self) -> dict:
        return {"epsilon": self.eps, "delta": self.delta}


@dataclass(frozen=True)
class ZCDP(RenyiCurve, Claim):
    """ρ-zCDP (Bun & Steinke 2016): D_α(M(D)‖M(D′)) ≤ ρα for all α > 1.

    Conversion to (ε, δ): the smaller of Bun & Steinke 2016, Prop. 1.3, ε = ρ + 2√(ρ ln(1/δ)),
    and Canonne, Kamath & Steinke 2020, Prop. 12 on the RDP curve ρα optimised over α (both
    conservative, both valid, see :func:`~dpaudit.claims.conversions.zcdp_to_dp`); ∞ at δ = 0.
    For the Gaussian mechanism itself the exact curve is
    :func:`~dpaudit.claims.conversions.gaussian_mechanism_zcdp_to_dp` (not used here: a
    zCDP claim alone does not say the mechanism is Gaussian)."""

    rho: float = 0.5
    notion = "zcdp"

    def __post_init__(self):
        object.__setattr__(self, "rho", _check_epsilon(self.rho, "rho"))

    def epsilon(self, delta: float) -> float:
        return conv.zcdp_to_dp(self.rho, _check_delta(delta))

    def rdp(self, alpha: float) -> float:
        """ε(α) = ρα for α > 1; ``ValueError`` outside."""
        return self.rho * _alpha_in(alpha, 1.0, math.inf)

    def to_rdp(self) -> "RDP":
        return RDP(__getattr__("RHO") * __getattr__("ALPHA"), {"rho": self.rho})

    def parameters(self) -> dict:
        return {"rho": self.rho}


@dataclass(frozen=True)
class AllOf(Claim):
    """Several claims that all hold; the implied ε at δ is the smallest of theirs."""

    claims: tuple = ()
    notion = "all-of"

    def __post_init__(self):
        if not self.claims:
            raise ValueError("AllOf needs at least one claim")

    def epsilon(self, delta: float) -> float:
        return min(c.epsilon(delta) for c in self.claims)

    def parameters(self) -> dict:
        out = {}
        for c in self.claims:
            for k, v in c.parameters().items():
                out[f"{c.notion}.{k}"] = v
        return out

    def describe(self) -> str:
        return " and ".join(c.describe() for c in self.claims)

    def to_dict(self) -> dict:
        return {"notion": self.notion, "text": self.describe(),
                "claims": [c.to_dict() for c in self.claims]}


# -- curves given as sympy expressions (or callables) ----------------------------------------

def _json_number(value):
    """JSON-able number: ±inf → "inf"/"-inf" (JSON has no infinity), others via jsonable."""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return jsonable(value)


def _curve_function(curve, variable: str, values: dict, what: str) -> Callable[[float], float]:
    """A float function of ``variable`` from a sympy expression (other symbols from ``values``)
    or from a Python callable (returned as is)."""
    if callable(curve) and not _is_symbolic(curve):
        return curve
    import sympy as sp

    try:
        expr = sp.sympify(curve)
    except (sp.SympifyError, TypeError):
        raise ValueError(f"{what} must be a sympy expression in {variable} or a callable, "
                         f"got {curve!r}") from None
    subs = {s: sp.Float(values[str(s)]) for s in expr.free_symbols if str(s) in values}
    expr = expr.subs(subs)
    var = [s for s in expr.free_symbols if str(s) == variable]
    missing = sorted(str(s) for s in expr.free_symbols if str(s) != variable)
    if missing:
        raise ValueError(f"{what} {curve} needs values for {', '.join(missing)}")
    fn = sp.lambdify(var or [sp.Symbol(variable)], expr, modules="math")
    return lambda x: float(fn(x))


def _values(values) -> dict:
    return {str(k): float(v) for k, v in dict(values or {}).items()}


def _alpha_in(alpha: float, lo: float, hi: float, hi_inclusive: bool = True) -> float:
    alpha = float(alpha)
    if not conv.alpha_in_range(alpha, lo, hi, hi_inclusive):
        closing = "]" if hi_inclusive and math.isfinite(hi) else ")"
        raise ValueError(f"alpha={alpha!r} lies outside the valid range ({lo:g}, {hi:g}{closing}")
    return alpha


class _CompiledCurve:
    """Pickling for claims holding a lambdified ``_fn``: drop it, rebuild it on load."""

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_fn"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__post_init__()


@dataclass(frozen=True)
class RDP(_CompiledCurve, RenyiCurve, Claim):
    """(α, ε(α))-Rényi DP for every α in its valid range (Mironov 2017):

        D_α(M(D)‖M(D′)) = 1/(α−1) · ln E_{M(D′)}[(p/q)^α] ≤ ε(α)    for all α ∈ (lo, hi].

    ``curve`` is a sympy expression in the symbol ``alpha`` (:data:`ALPHA`; other symbols take
    their numbers from ``values``) or a callable α ↦ ε(α).  ``alpha_range = (lo, hi)`` with
    lo ≥ 1 and hi possibly ∞; hi is excluded when ``alpha_max_inclusive`` is False (e.g. a
    GaussMix curve valid on α ∈ (1, γ)).  ``epsilon(delta)`` is Canonne, Kamath & Steinke
    2020, Prop. 12 minimised over α (conservative; see
    :func:`~dpaudit.claims.conversions.optimal_rdp_to_dp`); ∞ at δ = 0."""

    curve: Any = None
    values: dict = field(default_factory=dict)
    alpha_range: tuple = (1.0, math.inf)
    alpha_max_inclusive: bool = True
    _fn: Any = field(default=None, init=False, repr=False, compare=False)
    notion = "rdp"

    def __post_init__(self):
        if self.curve is None:
            raise ValueError("curve must be given (a sympy expression in alpha or a callable)")
        if isinstance(self.curve, str):
            object.__setattr__(self, "curve", _sympify(self.curve))
        object.__setattr__(self, "values", _values(self.values))
        object.__setattr__(self, "alpha_range", conv.check_alpha_range(self.alpha_range))
        object.__setattr__(self, "_fn", _curve_function(self.curve, "alpha", self.values,
                                                        "RDP curve"))

    def range_text(self) -> str:
        lo, hi = self.alpha_range
        return f"({lo:g}, {hi:g}{']' if self.alpha_max_inclusive and math.isfinite(hi) else ')'}"

    def rdp(self, alpha: float) -> float:
        """ε(α); ``ValueError`` when α is outside the valid range."""
        return self._fn(_alpha_in(alpha, *self.alpha_range, self.alpha_max_inclusive))

    def conversion(self, delta: float, *, method: str = "cks",
                   orders=None) -> conv.RdpConversion:
        """The (ε, α) of the best conversion found (``orders`` restricts α to a list)."""
        return conv.optimal_rdp_to_dp(self._fn, delta, alpha_range=self.alpha_range,
                                      alpha_max_inclusive=self.alpha_max_inclusive,
                                      method=method, orders=orders)

    def epsilon(self, delta: float) -> float:
        return self.conversion(delta).epsilon

    def parameters(self) -> dict:
        lo, hi = self.alpha_range
        return {**self.values, "alpha_min": lo, "alpha_max": hi}

    def describe(self) -> str:
        curve = self.curve if _is_symbolic(self.curve) else "<callable>"
        vals = "".join(f", {k}={v:g}" for k, v in self.values.items())
        return f"rdp(ε(α) = {curve}, α ∈ {self.range_text()}{vals})"

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["parameters"] = {k: _json_number(v) for k, v in out["parameters"].items()}
        symbolic = _is_symbolic(self.curve)
        out["curve"] = str(self.curve) if symbolic else "<callable>"
        if symbolic:
            import sympy as sp

            out["curve_latex"] = sp.latex(self.curve)
        out["values"] = dict(self.values)
        out["alpha_range"] = [_json_number(a) for a in self.alpha_range]
        out["alpha_max_inclusive"] = self.alpha_max_inclusive
        return out


@dataclass(frozen=True)
class TCDP(RenyiCurve, Claim):
    """(ρ, ω)-truncated CDP (Bun, Dwork, Rothblum & Steinke 2018):
    D_α(M(D)‖M(D′)) ≤ ρα for all α ∈ (1, ω), ρ > 0, ω > 1 (ω = ∞ is ρ-zCDP).

    By lower semicontinuity of D_α in α (van Erven & Harremoës 2014, Thm 15) the bound also
    holds at α = ω, as Lemma 6 of the paper uses.  ``epsilon(delta)`` is the smaller of the
    paper's two-case formula (:func:`~dpaudit.claims.conversions.tcdp_to_dp`) and the CKS
    conversion of the curve ρα optimised over α ∈ (1, ω] (both conservative)."""

    rho: float = 0.5
    omega: float = 2.0
    notion = "tcdp"

    def __post_init__(self):
        object.__setattr__(self, "rho", _check_epsilon(self.rho, "rho"))
        object.__setattr__(self, "omega", conv.check_omega(self.omega))

    def to_rdp(self) -> RDP:
        return RDP(__getattr__("RHO") * __getattr__("ALPHA"), {"rho": self.rho},
                   alpha_range=(1.0, self.omega))

    def rdp(self, alpha: float) -> float:
        """ε(α) = ρα on (1, ω]; ``ValueError`` outside."""
        return self.rho * _alpha_in(alpha, 1.0, self.omega)

    def epsilon(self, delta: float) -> float:
        delta = _check_delta(delta)
        return min(conv.tcdp_to_dp(self.rho, self.omega, delta),
                   self.to_rdp().epsilon(delta))

    def parameters(self) -> dict:
        return {"rho": self.rho, "omega": self.omega}

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["parameters"] = {k: _json_number(v) for k, v in out["parameters"].items()}
        return out


@dataclass(frozen=True)
class GDP(ProfileCurve, Claim):
    """μ-Gaussian DP (Dong, Roth & Su 2019/2022): the trade-off function of every neighbouring
    pair is at least G_μ = T(N(0, 1), N(μ, 1)).

    Equivalent (their Cor. 2.13) to (ε, δ(ε))-DP for all ε ≥ 0 with
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2); ``delta`` evaluates it and ``epsilon`` inverts it
    (exact, :mod:`dpaudit.exact.gaussian`).  The Gaussian mechanism with ℓ₂-sensitivity Δ and
    noise σ is (Δ/σ)-GDP."""

    mu: float = 1.0
    notion = "gdp"

    def __post_init__(self):
        object.__setattr__(self, "mu", _check_epsilon(self.mu, "mu"))

    def epsilon(self, delta: float) -> float:
        return conv.gdp_to_dp_epsilon(self.mu, _check_delta(delta))

    def delta(self, eps: float) -> float:
        return conv.gdp_to_dp_delta(self.mu, eps)

    def parameters(self) -> dict:
        return {"mu": self.mu}


@dataclass(frozen=True)
class PrivacyProfile(_CompiledCurve, ProfileCurve, Claim):
    """(ε, δ(ε))-DP for every ε ≥ 0, with δ(ε) a given nonincreasing function (a privacy
    profile, Balle, Barthe & Gaboardi 2018).

    ``profile`` is a sympy expression in the symbol ``epsilon`` (:data:`EPSILON`; other symbols
    from ``values``) or a callable ε ↦ δ.  ``epsilon(delta)`` inverts it: the smallest ε ≥ 0 with
    δ(ε) ≤ δ, by ``brentq`` on a doubling bracket, stepped up until δ(ε) ≤ δ holds at the
    returned ε (exact up to floating point, never below the true inverse for a monotone
    profile); ∞ when δ(ε) > δ up to ε = 10⁶."""

    profile: Any = None
    values: dict = field(default_factory=dict)
    _fn: Any = field(default=None, init=False, repr=False, compare=False)
    notion = "privacy-profile"

    def __post_init__(self):
        if self.profile is None:
            raise ValueError("profile must be given (a sympy expression in epsilon or a callable)")
        if isinstance(self.profile, str):
            object.__setattr__(self, "profile", _sympify(self.profile))
        object.__setattr__(self, "values", _values(self.values))
        object.__setattr__(self, "_fn", _curve_function(self.profile, "epsilon", self.values,
                                                        "privacy profile"))

    def delta(self, eps: float) -> float:
        eps = conv.check_target_epsilon(eps)
        try:
            d = float(self._fn(eps))
        except OverflowError:
            raise ValueError(f"privacy profile overflows at eps={eps!r}") from None
        if not (0.0 <= d <= 1.0):
            raise ValueError(f"privacy profile gives delta={d!r} ∉ [0, 1] at eps={eps!r}")
        return d

    def epsilon(self, delta: float) -> float:
        delta = _check_delta(delta)
        f = lambda e: self.delta(e) - delta  # noqa: E731  (nonincreasing)
        if f(0.0) <= 0:
            return 0.0
        hi = 1.0
        while f(hi) > 0:
            hi *= 2.0
            if hi > 1e6:
                return math.inf
        lo = hi / 2.0 if hi > 1.0 else 0.0
        from scipy.optimize import brentq

        e = float(brentq(f, lo, hi, xtol=1e-15, rtol=4 * 2.0 ** -52, maxiter=500))
        step = max(e, 1e-300) * 2.0 ** -52
        while e < hi and f(e) > 0:  # conservative side of the root
            e, step = min(e + step, hi), step * 2.0
        return e

    def parameters(self) -> dict:
        return dict(self.values)

    def describe(self) -> str:
        prof = self.profile if _is_symbolic(self.profile) else "<callable>"
        vals = "".join(f", {k}={v:g}" for k, v in self.values.items())
        return f"privacy-profile(δ(ε) = {prof}{vals})"

    def to_dict(self) -> dict:
        out = super().to_dict()
        symbolic = _is_symbolic(self.profile)
        out["profile"] = str(self.profile) if symbolic else "<callable>"
        if symbolic:
            import sympy as sp

            out["profile_latex"] = sp.latex(self.profile)
        out["values"] = dict(self.values)
        return out
