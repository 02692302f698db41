"""Typed readers of an audit's values — a suite row's, the Python API's, ``dpaudit check``'s
(:mod:`dpaudit.spec.audit`): every one either returns a value of the stated type or raises
:class:`SpecError` whose message names where the value came from (a suite file and its audit,
by name or by index, or the API call), the key, what was expected and what was given.

* :class:`Where` — builds those messages;
* :func:`check_keys` — unknown keys (with a "did you mean" hint);
* :func:`read_string`, :func:`read_samples`, :func:`read_min_samples`, :func:`delta_value` —
  scalars;
* :func:`parse_sweep` — ``{ param = [v, ...] }`` or ``{ param = { start, stop, num, spacing } }``
  into a :class:`Sweep` (at most :data:`MAX_SWEEP_VALUES` distinct values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dpaudit.util.hints import did_you_mean
from dpaudit.util.validation import MAX_SAMPLES, MIN_SAMPLES

MAX_SWEEP_VALUES = 10_000
#: the most δ (``delta = [...]``) or α (``alphas = [...]``) values of one audit: each is one
#: certificate (one record) of every test of the audit, ~18 KB each while a run holds them
#: (200 000 δ took 3.6 GB), so 1000 δ cost ~18 MB per test
MAX_GRID_VALUES = 1000
RANGE_KEYS = {"start", "stop", "num", "spacing"}


class SpecError(ValueError):
    """A malformed audit: the message names where it came from, the audit, the key and the
    fix (a suite file's is :class:`dpaudit.suite.fields.SuiteError`, the same class).

    Attributes:
      problems: one line per problem (a suite file gathers every bad audit into one error;
        a single problem is the message itself).
    """

    def __init__(self, message: str, problems=None):
        super().__init__(message)
        self.problems = tuple(problems) if problems else (message,)



@dataclass(frozen=True)
class Sweep:
    """One mechanism parameter and the values it takes, in order."""

    parameter: str
    values: tuple

    def label(self, index: int) -> str:
        return f"{self.parameter}={value_text(self.values[index])}"


def value_text(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# -- scalars ----------------------------------------------------------------------------------

class Where:
    """Builds error messages that name the file, the audit and the key."""

    def __init__(self, path: str, audit: str | None = None):
        self.path = path
        self.audit = audit

    def error(self, key: str | None, expected: str, got: Any = ...) -> SpecError:
        parts = [self.path]
        if self.audit is not None:
            parts.append(self.audit)
        if key is not None:
            parts.append(f"key {key!r}")
        msg = ": ".join(parts) + f": expected {expected}"
        if got is not ...:
            msg += f", got {got!r}"
        return SpecError(msg)


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool))


def check_keys(table: dict, allowed: set, where: Where, what: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        key = unknown[0]
        hint = did_you_mean(key, sorted(allowed))
        raise where.error(key, f"a known {what} key; unknown key{hint}, allowed keys are "
                               f"{', '.join(sorted(allowed))}")


def read_string(table, key, where, *, required=False, default="") -> str:
    if key not in table:
        if required:
            raise where.error(key, "a string (this key is required)")
        return default
    value = table[key]
    if not isinstance(value, str) or (required and not value.strip()):
        raise where.error(key, "a non-empty string" if required else "a string", value)
    return value


def read_samples(table, key, where, default: int) -> int:
    if key not in table:
        return default
    value = table[key]
    if not is_int(value) or not MIN_SAMPLES <= value <= MAX_SAMPLES:
        raise where.error(key, f"an integer between {MIN_SAMPLES} and {MAX_SAMPLES:.0e} "
                               f"(samples per side)", value)
    return value


def read_min_samples(table, where, samples: int) -> int | None:
    """The audit's ``min_samples``: the floor of its samples under a scaled-down profile
    (``--profile quick``), an integer in [MIN_SAMPLES, samples]; None when absent."""
    if "min_samples" not in table:
        return None
    value = table["min_samples"]
    if not is_int(value) or not MIN_SAMPLES <= value <= samples:
        raise where.error("min_samples", f"an integer between {MIN_SAMPLES} and the audit's "
                                         f"samples ({samples}): the floor of its samples under "
                                         f"--profile quick", value)
    return value


def delta_value(value, where, key) -> float:
    if not is_number(value) or not math.isfinite(value) or not (0.0 <= value < 1.0):
        raise where.error(key, "a number in [0, 1)", value)
    return float(value)



# -- sweeps -----------------------------------------------------------------------------------

def parse_sweep(value, where: Where) -> Sweep:
    """``{ param = [v, ...] }`` or ``{ param = { start, stop, num, spacing } }``."""
    expected = ("a table with exactly one mechanism parameter, e.g. { steps = [0, 10, 100] } "
                "or { steps = { start = 0, stop = 100, num = 11 } }")
    if not isinstance(value, dict) or len(value) != 1:
        raise where.error("sweep", expected, value)
    (parameter, raw), = value.items()
    key = f"sweep.{parameter}"
    if isinstance(raw, dict):
        values = sweep_range(raw, where, key)
    elif isinstance(raw, list):
        if not raw:
            raise where.error(key, "a non-empty list of values", raw)
        kinds = {("number" if is_number(v) else type(v).__name__) for v in raw}
        if len(kinds) != 1 or kinds - {"number", "str", "bool"}:
            raise where.error(key, "a list of numbers, or of strings, or of booleans "
                                   "(one kind)", raw)
        if any(is_number(v) and not math.isfinite(v) for v in raw):
            raise where.error(key, "finite numbers", raw)
        values = tuple(raw)
    else:
        raise where.error(key, "a list of values or a range table { start, stop, num, "
                               "spacing }", raw)
    if len(set(values)) != len(values):
        raise where.error(key, "distinct values", list(values))
    if len(values) > MAX_SWEEP_VALUES:
        raise where.error(key, f"at most {MAX_SWEEP_VALUES} values", len(values))
    return Sweep(parameter, values)


def sweep_range(raw: dict, where: Where, key: str) -> tuple:
    check_keys(raw, RANGE_KEYS, where, f"{key} range")
    for k in ("start", "stop", "num"):
        if k not in raw:
            raise where.error(f"{key}.{k}", "a number (start, stop and num are required)")
    start, stop, num = raw["start"], raw["stop"], raw["num"]
    spacing = raw.get("spacing", "linear")
    if not (is_number(start) and is_number(stop) and math.isfinite(start)
            and math.isfinite(stop)):
        raise where.error(f"{key}.start", "finite numbers start and stop", [start, stop])
    if not is_int(num) or not 2 <= num <= MAX_SWEEP_VALUES:
        raise where.error(f"{key}.num", f"an integer between 2 and {MAX_SWEEP_VALUES}", num)
    if spacing not in ("linear", "log"):
        raise where.error(f"{key}.spacing", "'linear' or 'log'", spacing)
    if spacing == "log" and not (start > 0 and stop > 0):
        raise where.error(f"{key}.start", "start > 0 and stop > 0 for log spacing",
                          [start, stop])
    import numpy as np
    grid = (np.linspace(start, stop, num) if spacing == "linear"
            else np.geomspace(start, stop, num))
    if is_int(start) and is_int(stop):
        out = []
        for v in np.rint(grid).astype(int).tolist():
            if v not in out:
                out.append(v)
        return tuple(out)
    return tuple(float(v) for v in grid)


__all__ = ["MAX_GRID_VALUES", "MAX_SWEEP_VALUES", "MIN_SAMPLES", "RANGE_KEYS", "SpecError",
           "Sweep", "Where", "check_keys", "delta_value", "is_int", "is_number", "parse_sweep", "read_min_samples",
           "read_samples",
           "read_string", "sweep_range", "value_text"]
