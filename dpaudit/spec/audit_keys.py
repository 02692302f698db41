"""The keys of an ``[[audit]]`` table that say *what* is audited: its explicit pairs, the pair
search and the float64 representation (:mod:`dpaudit.spec.coverage`).

``pairs`` is ``"worst-case"`` (the mechanism's ``worst_case_pairs()``) or an array of
``[[audit.pairs]]`` tables (``name``, ``d0``, ``d1``, ``description``).  ``search`` is
``true`` (the default: a pair search wherever the mechanism has a dataset space), ``false``,
or a table ``{ candidates = 16, keep = 2, screen_samples = 20000, proposals = false }``
(:class:`~dpaudit.spec.coverage.SearchBudget`).  ``representation`` is ``true`` or ``false``; left
out, it is on for code that is the implementation and off for dpaudit's own paper families
(:func:`~dpaudit.spec.coverage.representation_default`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dpaudit.spec.coverage import (FAIL, FLOATING_POINT_GATES, REPLAY_GATES, SearchBudget,
                                   search_budget)
from dpaudit.util.hints import did_you_mean
from dpaudit.spec.fields import Where, check_keys

_PAIR_KEYS = {"name", "d0", "d1", "description"}


@dataclass(frozen=True)
class PairSpec:
    """An explicit neighbouring pair written in the suite file."""

    name: str
    d0: Any
    d1: Any
    description: str = ""


def parse_pairs(value, where: Where):
    if isinstance(value, str):
        if value != "worst-case":
            raise where.error("pairs", '"worst-case" or an array of [[audit.pairs]] tables'
                              + did_you_mean(value, ["worst-case"]), value)
        return value
    if not isinstance(value, list) or not value:
        raise where.error("pairs", '"worst-case" or a non-empty array of [[audit.pairs]] tables',
                          value)
    pairs: list[PairSpec] = []
    names: set[str] = set()
    for i, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise where.error(f"pairs[{i}]", "a table with keys d0, d1 (and optional name, "
                                             "description)", entry)
        check_keys(entry, _PAIR_KEYS, where, f"pairs[{i}]")
        for side in ("d0", "d1"):
            if side not in entry:
                raise where.error(f"pairs[{i}].{side}", "a dataset (this key is required)")
        name = entry.get("name", f"pair-{i}")
        if not isinstance(name, str) or not name.strip():
            raise where.error(f"pairs[{i}].name", "a non-empty string", name)
        if name in names:
            raise where.error(f"pairs[{i}].name", "a pair name unique within the audit", name)
        names.add(name)
        description = entry.get("description", "")
        if not isinstance(description, str):
            raise where.error(f"pairs[{i}].description", "a string", description)
        pairs.append(PairSpec(name=name, d0=entry["d0"], d1=entry["d1"],
                              description=description))
    return tuple(pairs)



def parse_search(table: dict, where: Where) -> SearchBudget | None:
    """The audit's ``search`` key (default ``true``) as a budget, or None when off."""
    value = table.get("search", True)
    try:
        return search_budget(value)
    except (TypeError, ValueError) as exc:
        raise where.error("search", f"true, false or a table {{ candidates = 16, keep = 2, "
                                    f"screen_samples = 20000, proposals = false }} ({exc})",
                          value) from None


def parse_floating_point(table: dict, where: Where) -> str:
    """The audit's ``floating_point`` key: ``"fail"`` (default) or ``"warn"``
    (:data:`dpaudit.spec.coverage.FLOATING_POINT_GATES`)."""
    value = table.get("floating_point", FAIL)
    if value not in FLOATING_POINT_GATES:
        raise where.error("floating_point", '"fail" (a float64-representation finding fails '
                                            'the audit) or "warn" (it is a warning)', value)
    return value


def parse_replay(table: dict, where: Where) -> str:
    """The audit's ``replay`` key: ``"fail"`` (default), ``"warn"`` or ``"off"``
    (:data:`dpaudit.spec.coverage.REPLAY_GATES`)."""
    value = table.get("replay", FAIL)
    if value not in REPLAY_GATES:
        raise where.error("replay", '"fail" (a grey-box replay finding fails the audit), '
                                    '"warn" (it is a warning) or "off" (no replay)', value)
    return value


def parse_representation(table: dict, where: Where) -> bool | None:
    """The audit's ``representation`` key: True, False, or None when left out (the
    default then depends on the code, :func:`dpaudit.spec.coverage.representation_default`)."""
    value = table.get("representation")
    if value is not None and not isinstance(value, bool):
        raise where.error("representation", "true or false", value)
    return value


__all__ = ["PairSpec", "parse_floating_point", "parse_pairs", "parse_replay",
           "parse_representation",
           "parse_search"]
