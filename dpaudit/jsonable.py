"""Plain JSON values from what the library computes (numpy scalars and arrays, tuples, ±∞).

JSON has no infinity: ``+∞``, ``−∞`` and NaN are written as the strings ``"inf"``, ``"-inf"``
and ``"nan"``; numpy scalars become Python numbers, tuples and arrays become lists, dict keys
become strings, and anything else becomes its ``str``.  Applying :func:`to_jsonable` twice
gives the same value as applying it once.
"""

from __future__ import annotations

import math

import numpy as np


def to_jsonable(value):
    """Plain JSON values: numpy → Python, tuples → lists, ±inf/nan → "inf"/"-inf"/"nan"."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if value is None or isinstance(value, str):
        return value
    return str(value)


__all__ = ["to_jsonable"]
