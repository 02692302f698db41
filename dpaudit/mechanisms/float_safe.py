"""Noise on a grid: samplers whose float64 outputs carry nothing but the noisy value.

``q + rng.laplace(0, b)`` computed in double precision is not differentially private for any ε
(Mironov, CCS 2012): the set of doubles it can return depends on q, so the low bits of one
output can tell q = 0 from q = 1 (dpaudit reads them: :mod:`dpaudit.distinguish.floating`).
The remedy of Mironov's snapping mechanism, of OpenDP's and of Google's samplers is to release
a point of a fixed grid gℤ (g a power of two): every output is then an exact multiple of g,
whatever q, and its representation is a function of its value alone.

:func:`laplace_on_grid` and :func:`gaussian_on_grid` return ``round(q/g)·g + g·round(Y/g)``
for Y ~ Lap(b) or N(0, σ²):

* both terms are exact doubles (powers of two scale exactly; ``round`` of a double is exact),
  and their sum is exact while |output| < 2⁵³·g (for g = 2⁻³², about 2·10⁶); beyond that the
  addition rounds the exact grid value to the nearest double, a function of that value alone
  (post-processing), so nothing of q's representation leaks either way;
* rounding q to the grid moves it by at most g/2, so two datasets whose q differ by at most Δ
  give rounded values that differ by at most Δ + g: calibrate b = (Δ + g)/ε (σ likewise);
* the rounded noise is a discretised Laplace (Gaussian): the probability of a grid cell
  shifted by s ∈ gℤ changes by a factor of at most e^{s/b}, the continuous law's bound.

The noise Y is drawn with numpy's double-precision samplers, whose values near y are spaced
about scale·2⁻⁵³ apart (the resolution of the uniform draw they transform), so a cell of the
grid holds about g/(scale·2⁻⁵³) of them and its probability is that of the continuous law up
to that many parts.  When the scale is so large that this resolution approaches the grid, the
cells no longer smooth the sampler's own grid, whose points shift with q: the outputs leak
again (measured: Lap(2²⁰) on the default grid 2⁻³² is a floating-point violation, ε_LB 3.5 > 1
at 200 000 samples per side; Lap(2¹⁶) is consistent).  Both functions therefore refuse a grid
finer than :data:`RESOLUTION_MARGIN` × scale·2⁻⁵³ and name the smallest grid that works (for
the default grid: scales up to 2¹⁶ = 65 536).  An implementation that needs an exact discrete
sampler should use OpenDP's.
"""

from __future__ import annotations

import numpy as np

from dpaudit.util import validation

#: the default grid: outputs are multiples of 2⁻³²
DEFAULT_GRID = 2.0 ** -32
#: the grid must be at least this many times the samplers' resolution scale·2⁻⁵³
RESOLUTION_MARGIN = 32.0


def _check_grid(scale: float, grid: float, what: str) -> None:
    """A ValueError naming the smallest grid that works when ``grid`` is finer than
    :data:`RESOLUTION_MARGIN` × ``scale``·2⁻⁵³ (see the module docstring)."""
    needed = RESOLUTION_MARGIN * float(scale) * 2.0 ** -53
    if grid < needed:
        power = int(np.ceil(np.log2(needed)))
        raise ValueError(f"{what} = {scale:g} is too large for the grid {grid!r}: numpy draws "
                         f"the noise with a resolution of about {what}·2⁻⁵³ = "
                         f"{scale * 2.0 ** -53:.3g}, so the grid must be at least 2**{power} "
                         f"for the rounding to hide where the noise came from; pass "
                         f"grid=2**{power} and calibrate to (Δ + grid)/ε")


def _on_grid(center, noise: np.ndarray, grid: float) -> np.ndarray:
    if not (grid > 0 and float(np.frexp(grid)[0]) == 0.5):
        raise ValueError(f"grid must be a positive power of two (e.g. 2**-32), got {grid!r}")
    snapped = np.round(np.asarray(center, dtype=float) / grid) * grid
    return snapped + np.round(noise / grid) * grid


def laplace_on_grid(center, scale: float, n: int, rng: np.random.Generator,
                    grid: float = DEFAULT_GRID) -> np.ndarray:
    """``n`` draws of ``round(center/g)·g + g·round(Y/g)``, Y ~ Lap(``scale``), g = ``grid``
    (see the module docstring; calibrate ``scale`` to (Δ + g)/ε).

    Raises:
      ValueError: a bad ``n``, ``scale`` ≤ 0, a grid that is not a power of two, or a
        grid finer than numpy's sampler resolves at this scale (the message names the grid
        to use).
    """
    n = validation.draw_request(n, rng)
    validation.positive("scale", scale)
    _check_grid(scale, grid, "scale")
    return _on_grid(center, rng.laplace(0.0, scale, size=n), grid)


def gaussian_on_grid(center, sigma: float, n: int, rng: np.random.Generator,
                     grid: float = DEFAULT_GRID) -> np.ndarray:
    """``n`` draws of ``round(center/g)·g + g·round(Y/g)``, Y ~ N(0, ``sigma``²), g = ``grid``
    (see the module docstring; calibrate ``sigma`` to a sensitivity of Δ + g).

    Raises:
      ValueError: a bad ``n``, ``sigma`` ≤ 0, a grid that is not a power of two, or a
        grid finer than numpy's sampler resolves at this sigma (the message names the grid
        to use).
    """
    n = validation.draw_request(n, rng)
    validation.positive("sigma", sigma)
    _check_grid(sigma, grid, "sigma")
    return _on_grid(center, rng.normal(0.0, sigma, size=n), grid)


__all__ = ["DEFAULT_GRID", "gaussian_on_grid", "laplace_on_grid"]
