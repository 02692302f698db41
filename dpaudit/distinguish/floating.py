"""Statistics of the float64 *representation* of continuous outputs (Mironov 2012).

A naive floating-point sampler ``x + Laplace`` returns doubles whose set depends on x: 1 + y is
always a multiple of 2⁻⁵³ (for y > −1 … ), 0 + y is not, so the output's granularity alone can
tell x = 0 from x = 1 — the true ε of such a sampler is infinite, whatever its claim.  These
statistics expose what a value-only distinguisher cannot see:

* :class:`LowestSetBit` — t(o) = log₂ of the largest power of two dividing o (the position of
  o's lowest set bit, exponent included): {t ≥ k} is "o is a multiple of 2ᵏ", a residue on the
  grid 2ᵏℤ; discrete, so every observed value is a threshold.
* :class:`MantissaTrailingZeros` — the number of trailing zero bits of the 53-bit significand
  (the low mantissa bits): {z ≥ k} is "the low k significand bits are zero".
* :class:`Exponent` — the binary exponent of o (its magnitude class), discrete.

0 maps to +2000 (a multiple of every power of two) and non-finite values to NaN (in no event).
Each is a fixed function of the output, so certifying its events is valid whatever was chosen;
they are members of the certificate's family like every other statistic.
:func:`representation_statistics` is what ``auto`` adds for continuous outputs when the audit
asks for the representation (``representation=True``): :data:`DEFAULT_STATISTICS`, the lowest
set bit only (the other two are available through its ``kinds`` argument).
"""

from __future__ import annotations

import numpy as np

from dpaudit.distinguish.statistics import Statistic

ZERO_BIT = 2000.0


def _parts(x):
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x) & (x != 0)
    m, e = np.frexp(np.where(finite, x, 1.0))  # x = m·2^e, 0.5 ≤ |m| < 1
    sig = np.abs(m * 2.0 ** 53).astype(np.int64)  # the 53-bit significand, an exact integer
    low = sig & -sig  # its lowest set bit
    tz = np.frexp(low.astype(np.float64))[1] - 1  # exact: low is a power of two
    return x, finite, e, tz


class LowestSetBit(Statistic):
    """t(o) = e − 53 + tz: o is a multiple of 2ᵗ and not of 2ᵗ⁺¹ (see the module docstring)."""

    discrete = True

    def __init__(self, index: int | None = None):
        self.index = index
        self.name = "lowest set bit of output" + ("" if index is None else f"[{index}]")

    def __call__(self, x):
        x = np.asarray(x)
        col = x if self.index is None else x[:, self.index]
        v, finite, e, tz = _parts(col)
        out = (e - 53 + tz).astype(float)
        out = np.where(v == 0, ZERO_BIT, out)
        return np.where(finite | (v == 0), out, np.nan)

    def definition(self):
        return {"statistic": "lowest-set-bit", "index": self.index,
                "meaning": "o is a multiple of 2^t and not of 2^(t+1); 0 -> 2000"}


class MantissaTrailingZeros(Statistic):
    """z(o) = number of trailing zero bits of o's 53-bit significand (0 … 52)."""

    discrete = True

    def __init__(self, index: int | None = None):
        self.index = index
        self.name = "trailing zero significand bits of output" + (
            "" if index is None else f"[{index}]")

    def __call__(self, x):
        x = np.asarray(x)
        col = x if self.index is None else x[:, self.index]
        v, finite, _, tz = _parts(col)
        return np.where(finite, tz.astype(float), np.nan)

    def definition(self):
        return {"statistic": "mantissa-trailing-zeros", "index": self.index}


class Exponent(Statistic):
    """The binary exponent e of o = m·2ᵉ (0.5 ≤ |m| < 1), signed by o's sign (±(e + 1100))."""

    discrete = True

    def __init__(self, index: int | None = None):
        self.index = index
        self.name = "signed binary exponent of output" + ("" if index is None else f"[{index}]")

    def __call__(self, x):
        x = np.asarray(x)
        col = x if self.index is None else x[:, self.index]
        v, finite, e, _ = _parts(col)
        out = np.sign(v) * (e + 1100.0)
        return np.where(finite | (v == 0), out, np.nan)

    def definition(self):
        return {"statistic": "signed-exponent", "index": self.index,
                "meaning": "sign(o)·(e + 1100) for o = m·2^e"}


def is_float_valued(x: np.ndarray) -> bool:
    """Whether the outputs are floating point and not all integers (a representation to read)."""
    if not np.issubdtype(np.asarray(x).dtype, np.floating):
        return False
    finite = x[np.isfinite(x)]
    return bool(finite.size) and not np.all(finite == np.round(finite))


#: the representation statistics ``auto`` offers per float-valued output (or coordinate).
#: Only the lowest set bit by default: it certified every leak found (benchmarks/RESULTS.md,
#: reports/external/README.md), while the trailing-zeros and exponent statistics never added a
#: violation and, scored over their ~50–100 discrete thresholds each, cost most of the
#: selection overhead (+41–53 % on the fastest audits with all three, see RESULTS.md)
DEFAULT_STATISTICS = (LowestSetBit,)
ALL_STATISTICS = (LowestSetBit, MantissaTrailingZeros, Exponent)


def representation_statistics(x0: np.ndarray, x1: np.ndarray, max_coordinates: int = 8,
                              kinds=DEFAULT_STATISTICS) -> list[Statistic]:
    """The representation statistics (``kinds``: classes of this module) for scalar outputs, or
    for each of the first ``max_coordinates`` float-valued coordinates of vector outputs."""
    if x0.ndim == 1:
        if not is_float_valued(np.concatenate([x0[:20_000], x1[:20_000]])):
            return []
        return [kind() for kind in kinds]
    out: list[Statistic] = []
    for j in range(min(x0.shape[1], max_coordinates)):
        if is_float_valued(np.concatenate([x0[:20_000, j], x1[:20_000, j]])):
            out.extend(kind(j) for kind in kinds)
    return out


__all__ = ["ALL_STATISTICS", "DEFAULT_STATISTICS", "Exponent", "LowestSetBit",
           "MantissaTrailingZeros", "is_float_valued", "representation_statistics"]
