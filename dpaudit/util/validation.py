"""Validation of user-supplied numbers: one rule set and one message format for the package.

Every number check raises :class:`ValueError` with the message ``"<name> must be
<requirement>, got <value>"``, so a bad parameter in a suite file, a claim or a mechanism is
named in words the user wrote — never a numpy traceback.  The rules: booleans are not numbers
(``True`` is not ε = 1); strings are not numbers (no silent ``float("1e-5")``); NaN and ±inf are
always refused; integers must be whole numbers (``3.0`` is accepted as 3, ``3.5`` is not).
:func:`draw_request` checks a sampler call's arguments (a wrong ``rng`` type is a TypeError).
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where used: dpaudit --help imports this module
    import numpy as np


def _requirement(minimum, maximum, strict_minimum, strict_maximum, integer) -> str:
    kind = "an integer" if integer else "a finite number"
    if minimum is not None and maximum is not None:
        left = "(" if strict_minimum else "["
        right = ")" if strict_maximum else "]"
        return f"{kind} in {left}{minimum:g}, {maximum:g}{right}"
    if minimum is not None:
        return f"{kind} {'>' if strict_minimum else '≥'} {minimum:g}"
    if maximum is not None:
        return f"{kind} {'<' if strict_maximum else '≤'} {maximum:g}"
    return kind


def number(name: str, value, *, minimum: float | None = None, maximum: float | None = None,
           strict_minimum: bool = False, strict_maximum: bool = False,
           integer: bool = False) -> float:
    """``value`` as a float satisfying the stated bounds, or a ValueError naming ``name``."""
    requirement = _requirement(minimum, maximum, strict_minimum, strict_maximum, integer)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be {requirement}, got {value!r}")
    x = float(value)
    if (not math.isfinite(x) or (integer and not x.is_integer())
            or (minimum is not None and (x < minimum or (strict_minimum and x == minimum)))
            or (maximum is not None and (x > maximum or (strict_maximum and x == maximum)))):
        shown = "NaN" if math.isnan(x) else repr(value)
        raise ValueError(f"{name} must be {requirement}, got {shown}")
    return x


def positive(name: str, value) -> float:
    """A finite number > 0 (ε, a scale, a sensitivity …)."""
    return number(name, value, minimum=0.0, strict_minimum=True)


def nonnegative(name: str, value) -> float:
    """A finite number ≥ 0."""
    return number(name, value, minimum=0.0)


def positive_int(name: str, value, minimum: int = 1) -> int:
    """A whole number ≥ ``minimum`` (numpy integers and whole floats accepted)."""
    return int(number(name, value, minimum=minimum, integer=True))


def delta(name: str, value, *, allow_zero: bool = True) -> float:
    """A δ: in [0, 1), or in (0, 1) when ``allow_zero`` is False."""
    return number(name, value, minimum=0.0, maximum=1.0, strict_minimum=not allow_zero,
                  strict_maximum=True)


def choice(name: str, value, choices):
    """One of ``choices`` (compared with ``==``), returned unchanged."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def draw_request(n, rng) -> int:
    """The arguments of ``sample(dataset, n, rng)``: n a non-negative integer (not a bool, not a
    float), rng a :class:`numpy.random.Generator` — a legacy ``RandomState`` or an int seed would
    silently break the reproducibility contract of the runner's streams."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    import numpy as np

    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    return int(n)


def finite_entries(name: str, array: np.ndarray) -> np.ndarray:
    """``array`` unchanged if every entry is finite, else a ValueError naming the first bad entry
    ("dataset contains NaN at index [3]", "… an infinite value at index [0, 2]") and how many
    there are."""
    import numpy as np

    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        idx = tuple(int(i) for i in bad[0])
        kind = "NaN" if np.isnan(array[idx]) else "an infinite value"
        more = f" ({len(bad)} non-finite entries)" if len(bad) > 1 else ""
        raise ValueError(f"{name} contains {kind} at index {list(idx)}{more}")
    return array


#: The fewest outputs per side that any audit draws — a suite's ``samples``, ``--samples``, the
#: Python API, ``dpaudit check`` and the estimators alike.  Why 1000: a fifth of them (200 per
#: side) is the selection split that fits the statistics and chooses the events, and the
#: certification split keeps 800, enough for a Clopper–Pearson bound to separate two event
#: rates at all; fewer gives a test with no power that only looks like an audit.
MIN_SAMPLES = 1000
#: The most outputs per side a suite or the command line may ask for: 10¹² per side is ~9 CPU-days
#: at the measured 32 ns per sample (benchmarks/RESULTS.md, "Scale-out on Dask"); a larger
#: count is a typo.
MAX_SAMPLES = 10**12


def samples(name: str, value) -> int:
    """Outputs per side: a whole number in [:data:`MIN_SAMPLES`, :data:`MAX_SAMPLES`]."""
    return int(number(name, value, minimum=MIN_SAMPLES, maximum=MAX_SAMPLES, integer=True))


def seed(name: str, value) -> int:
    """A seed: a whole number ≥ 0 of any size (it seeds a :class:`numpy.random.SeedSequence`);
    not a bool, not a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def confidence(name: str, value) -> float:
    """A confidence level: a number in the open interval (0, 1)."""
    return number(name, value, minimum=0.0, maximum=1.0, strict_minimum=True,
                  strict_maximum=True)


__all__ = ["MAX_SAMPLES", "MIN_SAMPLES", "choice", "confidence", "delta", "draw_request",
           "finite_entries", "nonnegative", "number", "positive", "positive_int", "samples",
           "seed"]
