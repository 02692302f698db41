"""The suite keys of a test's stopping rule (:class:`dpaudit.stats.sequential.StoppingRule`).

In ``[suite]`` (every audit of the file) and in an ``[[audit]]`` (that audit only):

* ``sequential = true`` (default): draw in rounds and stop once the verdict is decided;
  ``false``: fixed n, one look at ``samples`` (the numbers dpaudit gave before issue 24).
* ``power = 1.1`` (default): a consistent ε(δ) certificate must be able to detect 1.1 × its
  claim (its detectable ε ≤ 1.1 × claimed ε), else it is reported *underpowered*; a number
  > 1, or ``false`` for no target.
* ``require_power = false`` (default): ``true`` makes an underpowered certificate fail its
  audit point.

An audit's keys override the suite's, key by key.
"""

from __future__ import annotations

import dataclasses

from dpaudit.stats.sequential import StoppingRule
from dpaudit.spec.fields import Where

#: the keys this module reads, in [suite] and in [[audit]]
STOPPING_KEYS = frozenset(("sequential", "power", "require_power"))


def parse_stopping(table: dict, where: Where, default: StoppingRule) -> StoppingRule:
    """The rule of ``table``'s stopping keys over ``default`` (the suite's, for an audit).

    Raises:
      SuiteError: a key of the wrong type or value (the message names the key).
    """
    changes = {}
    for key in ("sequential", "require_power"):
        if key in table:
            if not isinstance(table[key], bool):
                raise where.error(key, "true or false", table[key])
            changes[key] = table[key]
    if "power" in table:
        value = table["power"]
        if value is False:
            changes["power"] = None
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 1:
            raise where.error("power", "a number > 1 (a multiple of the claim a consistent "
                                       "test must be able to detect, e.g. 1.1) or false",
                              value)
        else:
            changes["power"] = float(value)
    if not changes:
        return default
    try:
        return dataclasses.replace(default, **changes)
    except ValueError as exc:
        raise where.error("require_power", f"a power target with it ({exc})",
                          table.get("require_power")) from None


__all__ = ["STOPPING_KEYS", "parse_stopping"]
