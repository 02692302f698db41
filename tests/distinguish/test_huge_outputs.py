"""Outputs near float64's largest values (issue 39, item 12): a sampler whose outputs are near
1e300 failed with "cannot convert float NaN to integer" (the fitted normal laws' moments
overflowed); such a statistic now falls back to its counts."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.distinguish.parametric import fit_normal_pair


@pytest.mark.parametrize("scale", [1e300, 1e307])
def test_outputs_near_the_float_range_are_audited(scale):
    def sampler(d, n, rng):
        return (float(d[0]) + rng.laplace(size=n)) * scale

    result = estimate_epsilon_lower_bound(sampler, [0.0], [1.0], samples=5_000, seed=3)
    assert 0.0 <= result.epsilon <= 1.0 + 1e-9  # valid: never above the true ε = 1


def test_moments_beyond_float64_fit_no_normal_law():
    v = np.sort(np.random.default_rng(0).normal(size=2000) * 1e300)
    assert fit_normal_pair(v, v) is None
