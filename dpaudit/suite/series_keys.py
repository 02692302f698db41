"""The ``[[series]]`` tables of a suite file: a closed-form quantity of a registered
mechanism over a swept parameter (:class:`SeriesSpec`, :func:`parse_series`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dpaudit.mechanisms.capabilities import ClosedFormSeries
from dpaudit.spec.fields import (Sweep, Where, check_keys, delta_value, parse_sweep,
                                  read_string)
from dpaudit.suite.target_keys import check_mechanism
from dpaudit.suite.targets import Target

_SERIES_KEYS = {"name", "mechanism", "params", "quantity", "sweep", "delta", "note",
                "options"}


@dataclass(frozen=True)
class SeriesSpec:
    """One ``[[series]]`` entry: a closed-form quantity over a swept parameter."""

    index: int
    name: str
    mechanism: str
    params: dict
    quantity: str
    sweep: Sweep
    delta: float | None = None
    note: str = ""
    options: dict = field(default_factory=dict)


def parse_series(table, index: int, path: str) -> SeriesSpec:
    where = Where(path, f"series #{index}")
    if not isinstance(table, dict):
        raise where.error(None, "a [[series]] table", table)
    if isinstance(table.get("name"), str) and table["name"].strip():
        where = Where(path, f"series #{index} {table['name']!r}")
    check_keys(table, _SERIES_KEYS, where, "[[series]]")
    name = read_string(table, "name", where, required=True)
    mechanism = read_string(table, "mechanism", where, required=True)
    quantity = read_string(table, "quantity", where, required=True)
    params = table.get("params", {})
    if not isinstance(params, dict):
        raise where.error("params", "a table of mechanism parameters", params)
    if "sweep" not in table:
        raise where.error("sweep", "a sweep (this key is required for a series)")
    sweep = parse_sweep(table["sweep"], where)
    if sweep.parameter in params:
        raise where.error("sweep", f"a parameter not also given in params "
                                   f"({sweep.parameter!r} is in both)", table["sweep"])
    delta = table.get("delta")
    if delta is not None:
        delta = delta_value(delta, where, "delta")
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise where.error("options", "a table of keyword arguments of series()", options)
    if ":" in mechanism:
        raise where.error("mechanism", "a registered mechanism (series take registry names "
                                       "only)", mechanism)
    check_mechanism(Target(mechanism), params, where)
    for i in (0, len(sweep.values) - 1):
        check_mechanism(Target(mechanism), {**params, sweep.parameter: sweep.values[i]}, where,
                        f" at sweep value {sweep.label(i)}")
    from dpaudit.mechanisms.registry import create_mechanism
    if not isinstance(create_mechanism(mechanism, **params), ClosedFormSeries):
        raise where.error("mechanism", f"a mechanism with a series() method ({mechanism} has "
                                       f"none)", mechanism)
    return SeriesSpec(index=index, name=name, mechanism=mechanism, params=dict(params),
                      quantity=quantity, sweep=sweep, delta=delta,
                      note=read_string(table, "note", where), options=dict(options))


__all__ = ["SeriesSpec", "parse_series"]
