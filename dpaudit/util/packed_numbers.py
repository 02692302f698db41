"""Long arrays of short numbers, packed losslessly for JSON.

A fitted statistic's parameters — a Gaussian log-ratio's two precision matrices, a projection's
weights — are stored rounded to six significant digits (:func:`dpaudit.distinguish.statistics.
rounded`), and a 100-dimensional output gives two 100 × 100 matrices: 20 000 numbers of about
ten characters each, per statistic.  :func:`pack` writes such arrays in a fraction of that, and
:func:`unpack` gives back exactly the values packed:

* a **symmetric matrix** (a list of ≥ 2 equal-length lists of numbers, equal to its transpose)
  becomes ``{"$symmetric": n, "upper": row-major upper triangle}`` — half the numbers;
* a **list of at least** :data:`MIN_PACKED` **numbers** that each have at most six significant
  digits becomes ``{"$float32x6": base64}``: the values as little-endian float32, read back as
  the float32 formatted to six significant digits.  A float32 holds 24 bits (7.2 decimal
  digits), so every number with ≤ 6 significant digits in float32's range is recovered
  exactly; a list with any other number (more digits, out of range, ±∞, NaN, a bool, a
  non-number), or whose packed text would not be shorter, is left as it is.

``unpack(pack(v)) == v`` for every plain JSON value ``v`` (``tests/util/test_packed_numbers.py``
checks it with hypothesis); values that fit neither rule pass through unchanged, in both
directions, so a reader accepts a document written unpacked.
"""

from __future__ import annotations

import base64
import json
import math

import numpy as np

#: the shortest list of numbers worth packing (shorter ones stay readable)
MIN_PACKED = 64
SYMMETRIC, FLOAT32 = "$symmetric", "$float32x6"
#: the largest magnitude a float32 holds
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _six_digits(x: float) -> float:
    return float(f"{x:.6g}")


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _packable(values: list) -> bool:
    if len(values) < MIN_PACKED or not all(_is_number(v) for v in values):
        return False
    for v in values:
        v = float(v)
        if not math.isfinite(v) or abs(v) > _FLOAT32_MAX or _six_digits(v) != v:
            return False
        if _six_digits(float(np.float32(v))) != v:
            return False
    # integers must come back as integers: only floats are packed
    return all(isinstance(v, float) for v in values)


def _symmetric(value) -> bool:
    n = len(value)
    if n < 2 or not all(isinstance(r, list) and len(r) == n for r in value):
        return False
    if not all(_is_number(x) for r in value for x in r):
        return False
    return all(value[i][j] == value[j][i] for i in range(n) for j in range(i + 1, n))


def pack(value):
    """``value`` (a plain JSON value) with its long arrays packed (module docstring)."""
    if isinstance(value, dict):
        return {k: pack(v) for k, v in value.items()}
    if isinstance(value, list):
        if _symmetric(value):
            n = len(value)
            upper = [value[i][j] for i in range(n) for j in range(i, n)]
            return {SYMMETRIC: n, "upper": pack(upper)}
        if _packable(value):
            raw = np.asarray(value, dtype="<f4").tobytes()
            packed = {FLOAT32: base64.b64encode(raw).decode("ascii")}
            if len(packed[FLOAT32]) < len(json.dumps(value, separators=(",", ":"))):
                return packed
            return list(value)
        return [pack(v) for v in value]
    return value


def unpack(value):
    """The inverse of :func:`pack`.

    Raises:
      ValueError: a packed array that is damaged (bad base64, a triangle of the wrong size).
    """
    if isinstance(value, dict):
        if set(value) == {FLOAT32}:
            try:
                raw = base64.b64decode(value[FLOAT32], validate=True)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"a packed array is not base64: {exc}") from None
            if len(raw) % 4:
                raise ValueError("a packed float32 array's length is not a multiple of 4")
            return [_six_digits(float(x)) for x in np.frombuffer(raw, dtype="<f4")]
        if set(value) == {SYMMETRIC, "upper"}:
            n, upper = value[SYMMETRIC], unpack(value["upper"])
            if not isinstance(n, int) or len(upper) != n * (n + 1) // 2:
                raise ValueError(f"a packed symmetric matrix of size {n!r} has "
                                 f"{len(upper)} upper-triangle entries")
            out = [[None] * n for _ in range(n)]
            k = 0
            for i in range(n):
                for j in range(i, n):
                    out[i][j] = out[j][i] = upper[k]
                    k += 1
            return out
        return {k: unpack(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unpack(v) for v in value]
    return value


__all__ = ["FLOAT32", "MIN_PACKED", "SYMMETRIC", "pack", "unpack"]
