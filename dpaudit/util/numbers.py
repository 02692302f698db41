"""Numbers as dpaudit prints them: the one formatter of every report, progress line and message.

:func:`format_number` is the bottom of the package (it imports nothing from dpaudit), so the
progress lines (:mod:`dpaudit.audit.progress`), every renderer (:mod:`dpaudit.report`), the
CLI and ``dpaudit check`` share one spelling.  The variants the outputs need are parameters,
not copies:

* **reports** (summary.md, report.html, junit.xml messages, ``dpaudit diff``): the default,
  ``digits`` significant digits (4; 3 for ratios, 6 for confidences), ``"—"`` for an unknown
  value, ``∞``/``−∞``;
* **plain text** (progress lines, :mod:`dpaudit.report.explain`): ``none="-"`` and
  ``infinity=PLAIN_INFINITY`` (``inf``/``-inf``);
* **machine-readable** (junit.xml ``<property>`` values): ``digits=None``, the shortest text
  that reads back as the same float (:func:`repr`), with ``PLAIN_INFINITY``.

Contract, for ``format_number(value, digits, none=…, infinity=(pos, neg), nan=…)``:

* ``None`` → ``none``;
* a string → itself, except the JSON spellings of infinity ``"inf"``/``"-inf"`` (how
  results.json writes ∞) → ``pos``/``neg``;
* a bool → ``"True"``/``"False"``; an integer (Python or numpy) → ``str`` of it, every digit;
* any other real number: NaN → ``nan``; +∞/−∞ → ``pos``/``neg``; else ``f"{x:.{digits}g}"``
  (``repr(float(x))`` when ``digits`` is None);
* anything else (a list, a dict) → ``str`` of it.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

#: how the reports write +∞ and −∞
REPORT_INFINITY = ("∞", "−∞")
#: how plain text and machine-readable values write them (what ``float()`` reads back)
PLAIN_INFINITY = ("inf", "-inf")


def format_number(value, digits: int | None = 4, *, none: str = "—",
                  infinity: tuple[str, str] = REPORT_INFINITY, nan: str = "nan") -> str:
    """``value`` as text (the rules are in the module docstring).

    Args:
      value: a number, None, a string (``"inf"``/``"-inf"`` read as ±∞) or anything else.
      digits: significant digits of a non-integer number; None: full precision (``repr``).
      none: the text of None.
      infinity: the texts of +∞ and −∞.
      nan: the text of NaN.
    """
    if value is None:
        return none
    if isinstance(value, str):
        return {"inf": infinity[0], "-inf": infinity[1]}.get(value, value)
    if isinstance(value, (bool, Integral)):
        return str(value)
    if isinstance(value, Real):
        x = float(value)
        if math.isnan(x):
            return nan
        if math.isinf(x):
            return infinity[0] if x > 0 else infinity[1]
        return repr(x) if digits is None else f"{x:.{digits}g}"
    return str(value)


__all__ = ["PLAIN_INFINITY", "REPORT_INFINITY", "format_number"]
