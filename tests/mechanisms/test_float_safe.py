"""Noise on a grid: its outputs are grid points, and a scale too large for the grid is refused
with the grid to use (issue 36: Lap(2²⁰) on the default grid 2⁻³² leaked through its float64
representation, ε_LB 3.5 > 1, because numpy's sampler resolves it only to about 2⁻³³)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dpaudit import audit_sampler, gaussian_on_grid, laplace_on_grid
from dpaudit.mechanisms.float_safe import DEFAULT_GRID


@pytest.mark.parametrize("draw", [laplace_on_grid, gaussian_on_grid])
def test_outputs_are_grid_points_up_to_the_largest_scale_the_grid_allows(draw):
    rng = np.random.default_rng(0)
    for scale in (1.0, 2.0 ** 16):
        out = draw(0.3, scale, 1000, rng)
        assert np.all(out / DEFAULT_GRID == np.round(out / DEFAULT_GRID))


@pytest.mark.parametrize("draw, name", [(laplace_on_grid, "scale"), (gaussian_on_grid, "sigma")])
def test_a_scale_too_large_for_the_grid_is_refused_with_the_grid_to_use(draw, name):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=f"{name} = 1.04858e\\+06 is too large") as info:
        draw(0.0, 2.0 ** 20, 10, rng)
    power = int(re.search(r"grid=2\*\*(-?\d+)", str(info.value))[1])
    assert power == -28
    assert draw(0.0, 2.0 ** 20, 10, rng, grid=2.0 ** power).shape == (10,)


@pytest.mark.slow  # two audits of 200 000 samples per side
def test_the_grid_it_names_is_float_safe():
    def huge(dataset, n, rng):
        return laplace_on_grid(float(sum(dataset)) * 2.0 ** 20, 2.0 ** 20 + 2.0 ** -27, n, rng,
                               grid=2.0 ** -27)

    result = audit_sampler(huge, epsilon=1.0, pairs=[([0], [0, 1])], samples=200_000, seed=1)
    assert result.verdict == "consistent", result.explain()
