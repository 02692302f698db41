"""Exact privacy curves of pairs whose output laws are known in closed form.

Contract: for two output laws P (on D₀) and Q (on D₁), the *hockey-stick divergence*

    δ_{P‖Q}(ε) = sup_S P(S) − e^ε Q(S) = ∫ (p − e^ε q)₊

is the smallest δ for which the pair satisfies P(S) ≤ e^ε Q(S) + δ for every event S.  Every
``*_delta(eps, …)`` function here returns that number (ε ≥ 0); every ``*_epsilon(delta, …)``
function returns its inverse, the smallest ε ≥ 0 with δ(ε) ≤ δ (``math.inf`` when no finite ε
works, e.g. δ = 0 for a Gaussian pair, or a support mismatch heavier than δ).  The values are
exact up to floating point (closed forms or a one-dimensional root find on a closed form), not
estimates; the auditor compares its certified lower bounds against them.

Modules: :mod:`~dpaudit.exact.gaussian` (Gaussian shift pairs, equivalently μ-GDP),
:mod:`~dpaudit.exact.laplace` (Laplace shift pairs and their two-fold product),
:mod:`~dpaudit.exact.discrete` (any pair of finite probability vectors).

Profile objects (:mod:`~dpaudit.exact.profile`): one :class:`PrivacyProfile` per ordered pair,
with ``delta(eps)``, ``epsilon(delta)``, ``renyi(alpha)``, a stated ``tolerance``,
``reversed()`` and ``symmetric()``.  Gaussian pairs of any dimension
(:mod:`~dpaudit.exact.gaussian_pairs`: equal covariance, isotropic with different variances;
:mod:`~dpaudit.exact.gaussian_general`: general covariances by characteristic-function
inversion), one-dimensional Gaussian mixtures (:mod:`~dpaudit.exact.mixtures`), Laplace pairs
with any locations and scales (:mod:`~dpaudit.exact.laplace_pairs`), Rényi closed forms
(:mod:`~dpaudit.exact.renyi`).  Profiles specific to one mechanism family live in that
family's package (e.g. :mod:`dpaudit.mechanisms.gaussian_mixing.sketch_profiles`,
:mod:`dpaudit.mechanisms.noisy_max.exact`, :mod:`dpaudit.mechanisms.sparse_vector.exact`).
"""

from dpaudit.exact.discrete import discrete_delta, discrete_epsilon
from dpaudit.exact.gaussian import gaussian_delta, gaussian_epsilon
from dpaudit.exact.gaussian_general import GaussianProfile
from dpaudit.exact.gaussian_pairs import (IsotropicGaussianProfile,
                                          equal_covariance_profile, mahalanobis)
from dpaudit.exact.laplace import (laplace_delta, laplace_epsilon, laplace_twofold_delta,
                                   laplace_twofold_epsilon)
from dpaudit.exact.laplace_pairs import LaplaceProfile
from dpaudit.exact.mixtures import GaussianMixtureProfile, NormalPairProfile
from dpaudit.exact.profile import (DiscreteProfile, GaussianShiftProfile, PrivacyCurve,
                                   PrivacyProfile, SymmetricProfile, Tolerance)
from dpaudit.exact.renyi import gaussian_renyi, isotropic_gaussian_renyi, laplace_shift_renyi

__all__ = ["discrete_delta", "discrete_epsilon", "gaussian_delta", "gaussian_epsilon",
           "laplace_delta", "laplace_epsilon", "laplace_twofold_delta",
           "laplace_twofold_epsilon", "PrivacyProfile", "PrivacyCurve", "SymmetricProfile",
           "Tolerance", "GaussianShiftProfile", "DiscreteProfile", "GaussianProfile",
           "IsotropicGaussianProfile", "equal_covariance_profile", "mahalanobis",
           "GaussianMixtureProfile", "LaplaceProfile", "NormalPairProfile", "gaussian_renyi",
           "isotropic_gaussian_renyi", "laplace_shift_renyi"]
