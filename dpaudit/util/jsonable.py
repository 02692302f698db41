"""Plain JSON values from what the library computes (numpy scalars and arrays, tuples, ±∞).

JSON has no infinity: ``+∞``, ``−∞`` and NaN are written as the strings ``"inf"``, ``"-inf"``
and ``"nan"``; numpy scalars become Python numbers, tuples and arrays become lists, dict keys
become strings, and anything else becomes its ``str``.  Applying :func:`to_jsonable` twice
gives the same value as applying it once.  :func:`number_from_json` reads one such number
back (an integer stays an integer, so that writing it again gives the same text).

:func:`loads_json` is the one reader of JSON text for the files dpaudit reads back
(results.json, the lines of a run journal): it refuses a document nested deeper than
:data:`MAX_JSON_DEPTH` with one line (:class:`JsonNestingError`) instead of a
``RecursionError`` from the parser or from whatever later walks the value.
"""

from __future__ import annotations

import json
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


def number_from_json(value) -> int | float | None:
    """A number as :func:`to_jsonable` writes it, back: None stays None, an integer stays an
    integer, a float (or numpy scalar) is a float, ``"inf"``/``"-inf"``/``"nan"`` are ±∞/NaN;
    so ``to_jsonable(number_from_json(x)) == x`` for every number ``x`` it writes.

    Raises:
      TypeError: anything else (a boolean, another string, a list …), naming it.
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"expected a number, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    raise TypeError(f"expected a number, got {str(value)[:80]!r}")


#: How deeply :func:`loads_json` lets arrays and objects nest (the outermost one is level 1).
#: dpaudit writes at most 6 levels in a results.json (e.g. suites → record → pair → d0 as a
#: list of rows) and 9 in a journal line (a test's curve); a dataset is a numpy array, which
#: has at most 64 dimensions.  100 is well above all of that, and far below where Python's
#: recursion limit (1000 frames, shared with the code that reads and renders the value) bites,
#: so nothing that walks a value read back recursively — :func:`to_jsonable`, the records'
#: ``from_json``, the renderers — can run out of stack on it.
MAX_JSON_DEPTH = 100


class JsonNestingError(ValueError):
    """JSON text nested deeper than :data:`MAX_JSON_DEPTH` (a ``ValueError``, like the
    ``json.JSONDecodeError`` of text that is not JSON)."""


def json_depth(value) -> int:
    """How deeply the arrays and objects of a decoded JSON ``value`` nest (0 for a scalar),
    found without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in item if isinstance(child, (dict, list)))
    return deepest


def loads_json(text: str | bytes, max_depth: int = MAX_JSON_DEPTH):
    """``json.loads(text)``, refusing nesting deeper than ``max_depth``.

    Deeper text either makes the parser itself run out of recursion (from roughly 1000 levels
    on), or parses and is then measured by :func:`json_depth`; both are the same one-line
    :class:`JsonNestingError`.

    Raises:
      json.JSONDecodeError: not JSON.
      JsonNestingError: nested deeper than ``max_depth``.
    """
    too_deep = f"nested deeper than {max_depth} levels (dpaudit writes fewer than 10)"
    try:
        value = json.loads(text)
    except RecursionError:
        raise JsonNestingError(too_deep) from None
    if json_depth(value) > max_depth:
        raise JsonNestingError(too_deep)
    return value


__all__ = ["MAX_JSON_DEPTH", "JsonNestingError", "json_depth", "loads_json", "number_from_json",
           "to_jsonable"]
