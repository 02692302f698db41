"""The claims DP-SGD users state: the Poisson-subsampled Gaussian composed over the steps.

Every DP-SGD accountant (Opacus, TF Privacy, dp_accounting) analyses Poisson subsampling at
rate q = b/n with noise multiplier σ over all E·n/b steps; a pipeline that shuffles and reports
that number claims *this*, whatever its sampler does.  Three claims (the mechanisms'
``accountant`` parameter):

* :class:`PoissonRDP` (``"rdp"``) — the integer-order RDP of Mironov, Talwar & Zhang 2019
  (Sec. 3.3): ε(α) = T·ln(Σ_{k=0}^{α} C(α,k)(1−q)^{α−k}q^k e^{(k²−k)/(2σ²)})/(α − 1), each term
  the certified formula ``mtz_log_term`` (proofs/dpsgd.py), at fractional α the value at ⌈α⌉
  (D_α is nondecreasing); (ε, δ) by the project's CKS conversion minimised over the integer
  orders :data:`ORDERS` (dp_accounting's RdpAccountant does the same over its order list).
* :class:`PLDAccountantClaim` (``"pld"``) — ε(δ) of ``dp_accounting.pld.PLDAccountant``
  (add/remove neighbours, pessimistic discretisation ``value_discretization_interval``) after
  composing ``PoissonSampledDpEvent(q, GaussianDpEvent(σ))`` T times: the accountant users
  actually call, recorded with its source and version.  Needs the ``dpsgd`` extra.
* ``"gaussian"`` — the deterministic-batches analysis: μ-GDP with μ = √E/σ (certified
  ``deterministic_mu``): the canary is in one batch per epoch.  Valid for deterministic,
  shuffled and balls-and-bins batches (each is a mixture over deterministic assignments, so its
  hockey-stick divergence is at most the deterministic one, by joint convexity), not for
  Poisson.
* ``"library:method"`` (``"opacus:gdp"``, ``"dp_accounting:rdp"``, …: every name of
  :data:`dpaudit.claims.accountants.ACCOUNTANTS`) — that library's accountant for Poisson
  sampling at q = b/n over the T steps (:mod:`dpaudit.claims.accountants`, the run as
  :func:`dpaudit.mechanisms.dpsgd.run.accounting_parameters` states it): the number a
  pipeline built on that library reports.

Under the **replace-one** relation (the mechanisms' ``relation = "replace-one"``: one record's
gradient replaced by another, so the clipped sum moves by up to 2C, not C) the claims are
stated for that relation: ``"pld"`` composes the same event in a ``PLDAccountant`` with
``NeighboringRelation.REPLACE_ONE`` (whose Poisson pair is (1−q)N(0, σ²) + qN(∓1, σ²) in units
of C: dp_accounting's REPLACE adjacency); ``"gaussian"`` is the certified μ = √E·Δ/σ at
Δ = 2 (the two records' clipped gradients C and −C are 2C apart); a library accountant is asked
with ``relation = "replace-one"`` (it answers, or rejects the run in its own words); the MTZ
RDP claim analyses add/remove only and refuses the relation.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import sympy as sp

from dpaudit.util import validation
from dpaudit.claims import GDP, RDP, Claim, claim_expression
from dpaudit.claims.capabilities import ProfileCurve
from dpaudit.claims.accountants import ACCOUNTANTS as LIBRARY_ACCOUNTANTS
from dpaudit.claims.accountants import accountant_claim as library_accountant_claim
from dpaudit.claims.certificates import load_formula

MTZ_LOG_TERM = load_formula("dpsgd", "mtz_log_term")
DETERMINISTIC_MU = load_formula("dpsgd", "deterministic_mu")
#: the integer orders the RDP claim converts over (2 … 256)
ORDERS = tuple(range(2, 257))
#: dp_accounting's default discretisation of the privacy loss (PLDAccountant)
PLD_DISCRETIZATION = 1e-4
ACCOUNTANTS = ("pld", "rdp", "gaussian", *LIBRARY_ACCOUNTANTS)


@functools.lru_cache(maxsize=4096)
def mtz_epsilon(alpha: int, q: float, sigma: float) -> float:
    """ε(α) of one Poisson-subsampled Gaussian step at an integer order α ≥ 2 (MTZ 2019)."""
    if q >= 1.0:
        return alpha / (2 * sigma * sigma)
    logs = np.array([MTZ_LOG_TERM(alpha=alpha, k=k, q=q, sigma=sigma)
                     for k in range(alpha + 1)])
    top = logs.max()
    return float((top + math.log(np.exp(logs - top).sum())) / (alpha - 1))


@dataclass(frozen=True)
class ComposedMTZCurve:
    """α ↦ steps·ε(⌈α⌉) (picklable, so the claim travels to worker processes)."""

    q: float
    sigma: float
    steps: int

    def __call__(self, alpha: float) -> float:
        return self.steps * mtz_epsilon(max(2, math.ceil(alpha - 1e-12)), self.q, self.sigma)


@dataclass(frozen=True)
class PoissonRDP(RDP):
    """The Poisson-subsampled Gaussian's RDP composed over T steps (module docstring);
    ``epsilon(δ)`` minimises the CKS conversion over the integer :data:`ORDERS`."""

    def epsilon(self, delta: float) -> float:
        return self.conversion(delta, orders=ORDERS).epsilon

    def describe(self) -> str:
        v = self.values
        return (f"rdp(Poisson-subsampled Gaussian, MTZ 2019 integer orders 2…{ORDERS[-1]}: "
                f"q={v['q']:g}, σ={v['sigma']:g}, T={v['steps']:g} steps)")


def poisson_rdp_claim(q: float, sigma: float, steps: int) -> PoissonRDP:
    expr = sp.Eq(sp.Symbol(MTZ_LOG_TERM.name), MTZ_LOG_TERM.expression)
    return PoissonRDP(ComposedMTZCurve(q, sigma, steps), {"q": q, "sigma": sigma,
                                                         "steps": steps},
                      alpha_range=(1.0, float(ORDERS[-1])),
                      expression=sp.Tuple(expr),
                      substitutions={"q": q, "sigma": sigma, "steps": steps})


def require_dp_accounting():
    try:
        import dp_accounting
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the dpsgd family's 'pld' claim and numerical Poisson curve need "
                          "dp_accounting: pip install 'dpaudit[dpsgd]'") from exc
    return dp_accounting


def dp_accounting_version() -> str:
    from importlib import metadata
    try:
        return metadata.version("dp-accounting")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


@functools.lru_cache(maxsize=16)
def _composed_pld_accountant(sigma: float, q: float, steps: int, discretization: float):
    dpa = require_dp_accounting()
    from dp_accounting.pld import pld_privacy_accountant
    acc = pld_privacy_accountant.PLDAccountant(
        dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=discretization)
    acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), int(steps))
    return acc


@functools.lru_cache(maxsize=4096)
def pld_accountant_delta(sigma: float, q: float, steps: int, eps: float,
                         discretization: float = PLD_DISCRETIZATION) -> float:
    """δ(ε) of the same composed ``PLDAccountant`` (pessimistic), its composition cached."""
    return float(_composed_pld_accountant(sigma, q, int(steps), discretization)
                 .get_delta(float(eps)))


@functools.lru_cache(maxsize=256)
def pld_accountant_epsilon(sigma: float, q: float, steps: int, delta: float,
                           discretization: float = PLD_DISCRETIZATION,
                           relation: str = "add-remove") -> float:
    """ε(δ) of ``dp_accounting.pld.PLDAccountant`` after ``steps`` Poisson-subsampled
    Gaussian events (``GaussianDpEvent`` alone at q = 1), under ``relation`` (add-remove or
    replace-one), pessimistic estimate."""
    dpa = require_dp_accounting()
    from dp_accounting.pld import pld_privacy_accountant
    rel = (dpa.NeighboringRelation.ADD_OR_REMOVE_ONE if relation == "add-remove"
           else dpa.NeighboringRelation.REPLACE_ONE)
    acc = pld_privacy_accountant.PLDAccountant(rel, value_discretization_interval=discretization)
    event = dpa.GaussianDpEvent(sigma)
    acc.compose(event if q == 1.0 else dpa.PoissonSampledDpEvent(q, event), int(steps))
    return float(acc.get_epsilon(delta))


@dataclass(frozen=True)
class PLDAccountantClaim(ProfileCurve, Claim):
    """(ε(δ), δ)-DP for every δ, ε(δ) from dp_accounting's PLD accountant (module docstring).

    The accountant rounds the privacy loss pessimistically, so its ε(δ) is an upper bound on
    the Poisson-subsampled Gaussian's; ``source`` and ``version`` say which code computed it."""

    noise_multiplier: float = 1.0
    sampling_prob: float = 0.01
    steps: int = 100
    discretization: float = PLD_DISCRETIZATION
    source: str = "dp_accounting.pld.PLDAccountant"
    version: str = ""
    relation: str = "add-remove"
    notion = "pld-accountant"

    def epsilon(self, delta: float) -> float:
        delta = validation.delta("delta", delta)
        if delta == 0.0:
            return math.inf
        return pld_accountant_epsilon(self.noise_multiplier, self.sampling_prob, self.steps,
                                      float(delta), self.discretization, self.relation)

    def delta(self, eps: float) -> float:
        """δ(ε) of the same accountant (pessimistic: an upper bound)."""
        return pld_accountant_delta(self.noise_multiplier, self.sampling_prob, self.steps,
                                    float(eps), self.discretization)

    def parameters(self) -> dict:
        out = {"noise_multiplier": self.noise_multiplier, "sampling_prob": self.sampling_prob,
               "steps": self.steps, "discretization": self.discretization}
        if self.relation != "add-remove":
            out["relation"] = self.relation
        return out

    def describe(self) -> str:
        relation = "add/remove" if self.relation == "add-remove" else self.relation
        return (f"{self.source} {self.version} (PoissonSampledDpEvent(q={self.sampling_prob:g}, "
                f"GaussianDpEvent(σ={self.noise_multiplier:g})) × {self.steps}, {relation}, "
                f"discretisation {self.discretization:g})")

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["source"], out["version"] = self.source, self.version
        return out


def pld_claim(q: float, sigma: float, steps: int,
              relation: str = "add-remove") -> PLDAccountantClaim:
    require_dp_accounting()
    return PLDAccountantClaim(sigma, q, int(steps), version=dp_accounting_version(),
                              relation=relation)


def gaussian_claim(sigma: float, epochs: int, relation: str = "add-remove") -> GDP:
    delta = 1.0 if relation == "add-remove" else 2.0  # replace-one: C against −C
    mu = DETERMINISTIC_MU(E=epochs, Delta=delta, sigma=sigma)
    return GDP(mu, expression=claim_expression(DETERMINISTIC_MU),
               substitutions={"E": epochs, "Delta": delta, "sigma": sigma, "mu": mu})


def accountant_claim(accountant: str, *, q: float, sigma: float, steps: int,
                     epochs: int, relation: str = "add-remove") -> Claim:
    """The claim named ``accountant`` (one of :data:`ACCOUNTANTS`) under ``relation``
    (module docstring)."""
    from dpaudit.mechanisms.dpsgd.run import accounting_parameters

    if accountant == "pld":
        return pld_claim(q, sigma, steps, relation)
    if accountant == "rdp":
        if relation != "add-remove":
            raise ValueError("accountant 'rdp' (MTZ 2019) analyses add/remove neighbours; "
                             "under replace-one use 'pld' or a library's accountant")
        return poisson_rdp_claim(q, sigma, steps)
    if accountant == "gaussian":
        return gaussian_claim(sigma, epochs, relation)
    if accountant in LIBRARY_ACCOUNTANTS:
        return library_accountant_claim(accountant, accounting_parameters(
            accountant, sigma=sigma, q=q, steps=steps, relation=relation))
    raise ValueError(f"accountant must be one of {', '.join(ACCOUNTANTS)}, got {accountant!r}")


__all__ = ["ACCOUNTANTS", "require_dp_accounting", "ComposedMTZCurve", "DETERMINISTIC_MU", "MTZ_LOG_TERM", "ORDERS",
           "PLDAccountantClaim", "PoissonRDP", "accountant_claim", "dp_accounting_version",
           "gaussian_claim", "mtz_epsilon", "pld_accountant_epsilon", "pld_claim",
           "poisson_rdp_claim"]
