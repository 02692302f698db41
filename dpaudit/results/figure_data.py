"""A run's figure data: the entries of results.json's ``curves``, typed.

:data:`CurveFigure` is either kind of curve a run draws — a pair's privacy curve
(:class:`~dpaudit.results.privacy_curve.PrivacyCurveFigure`) or a swept audit's ε over its
parameter (:class:`~dpaudit.results.sweep_curve.SweepCurve`, ``"kind": "sweep"`` in its JSON);
:func:`curve_from_json` reads either back.  The ``[[series]]`` results are
:class:`~dpaudit.results.series.SeriesResult`.
"""

from __future__ import annotations

from typing import Union

from dpaudit.results.privacy_curve import PrivacyCurveFigure
from dpaudit.results.series import SeriesResult
from dpaudit.results.sweep_curve import SweepCurve

#: one entry of a run's ``curves``
CurveFigure = Union[PrivacyCurveFigure, SweepCurve]


def curve_from_json(data: dict) -> CurveFigure:
    """A ``curves`` entry of results.json (any schema) as its type: a sweep curve when its
    ``kind`` is ``"sweep"``, else a privacy-curve figure; a ``figure`` key is ignored.

    Raises:
      KeyError, TypeError, ValueError: a malformed entry (the caller names the file).
    """
    if not isinstance(data, dict):
        raise TypeError(f"a curve is an object, got {str(data)[:80]}")
    if data.get("kind") == SweepCurve.kind:
        return SweepCurve.from_json(data)
    if data.get("kind") is not None:
        raise ValueError(f"unknown kind of curve {data.get('kind')!r}")
    return PrivacyCurveFigure.from_json(data)


def series_from_json(data: dict) -> SeriesResult:
    """A ``series`` entry of results.json (any schema) as a :class:`SeriesResult`.

    Raises:
      KeyError, TypeError, ValueError: a malformed entry.
    """
    if not isinstance(data, dict):
        raise TypeError(f"a series is an object, got {str(data)[:80]}")
    return SeriesResult.from_json(data)


__all__ = ["CurveFigure", "curve_from_json", "series_from_json"]
