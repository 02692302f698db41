"""The power figure of one pair: how large a true ε its test would have caught.

One figure per pair of an audit point (not per certificate): for each of the pair's
consistent ε(δ) certificates (:class:`~dpaudit.results.hierarchy.Certificate`, or a flat
record, with ``notion = "dp"`` and an estimator certificate) it plots P(certify) — the
probability that the same test (same events, certification samples, per-bound significance
and δ) certifies ε_LB > claimed ε — against the true ε(δ), from
:meth:`dpaudit.evidence.base.Evidence.power_curve` of its evidence (the larger of the black-
and white-box tests' curves), with vertical lines at the claimed ε (solid), the certified ε_LB (the larger
of black- and white-box; dotted), the certificate's ``detectable_epsilon`` (dashed: where the
curve crosses 1/2) and the pair's exact ε when known (dash-dot) — in red, blue, purple and
black for a pair with one δ; for a pair with several, one colour per δ for its curve and its
marks.  Every marked value is read from the certificate; only the curve is computed,
with the same pure-shift assumption ``detectable_epsilon`` is defined by.  A certificate
whose detectable ε is ∞ has no curve (no event of its test could certify a violation at
these samples: the curve is 0 everywhere); the page says so in words instead.

Speed: a report has a power figure for every pair with a consistent certificate (about 150
in the default run), so :class:`PowerPlot` draws them all on one reused matplotlib figure —
its axes, ticks and fonts are built once; each figure only replaces the curves and marks —
and the key is the HTML caption (:func:`power_caption`), not a legend drawn per figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit.util.numbers import format_number

#: one colour per δ of a pair with several (a pair has at most a handful of δs)
COLOURS = ("tab:purple", "tab:green", "tab:orange", "tab:blue", "tab:brown", "tab:olive",
           "tab:cyan", "tab:pink", "tab:gray", "tab:red")
COLOUR_NAMES = ("purple", "green", "orange", "blue", "brown", "olive", "cyan", "pink", "grey",
                "red")
#: (what, line style, colour and its name when the pair has one δ) of the vertical marks, in
#: the order the caption names them
MARKS = (("claimed ε", "-", "tab:red", "red"), ("certified ε_LB", ":", "tab:blue", "blue"),
         ("detectable ε", "--", "tab:purple", "purple"),
         ("exact ε", "-.", "black", "black"))
_STYLE_NAMES = {"-": "solid", ":": "dotted", "--": "dashed", "-.": "dash-dot"}


def _finite(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def power_curve(record, points: int = 81) -> tuple[np.ndarray, np.ndarray] | None:
    """(true ε grid, P(certify)) for a dp certificate (``record``: a
    :class:`~dpaudit.results.hierarchy.Certificate` or a flat record) with evidence that has a
    power curve and a finite claim, else None.  The grid runs from 0.8 × the smallest marked
    value to past the detectable ε, the exact ε and the bounds, with ``points`` more points
    within ±15 % of the detectable ε (where the curve rises)."""
    claimed = _finite(record.claimed_epsilon)
    if record.notion != "dp" or not record.evidence or claimed is None:
        return None
    marks = [claimed, _finite(record.detectable_epsilon), _finite(record.exact_epsilon),
             _finite(record.epsilon_lower_bound),
             _finite(record.white_box_epsilon_lower_bound)]
    top = max(m for m in marks if m is not None)
    detectable = _finite(record.detectable_epsilon)
    top = max(top * 1.15, (detectable or claimed) + 0.25 * max(claimed, 0.2))
    bottom = 0.8 * min(m for m in marks if m is not None)
    grid = np.linspace(bottom, top, points)
    if detectable is not None:
        grid = np.union1d(grid, np.linspace(0.85 * detectable, min(top, 1.15 * detectable),
                                            points))
    curves = [c for c in (e.power_curve(claimed, grid) for e in record.evidence)
              if c is not None]
    if not curves:
        return None
    return grid, np.max(curves, axis=0)


def has_power(certificate) -> bool:
    """Whether a certificate gets a curve in its pair's power figure: a consistent ε(δ)
    certificate with evidence whose detectable ε is known and not ∞."""
    return (certificate.verdict == "consistent" and certificate.notion == "dp"
            and bool(certificate.evidence) and certificate.detectable_epsilon is not None
            and certificate.detectable_epsilon != math.inf)


def undetectable(certificate) -> bool:
    """A consistent ε(δ) certificate whose test could certify no violation at these samples
    (detectable ε = ∞)."""
    return (certificate.verdict == "consistent" and certificate.notion == "dp"
            and certificate.detectable_epsilon == math.inf)


@dataclass(frozen=True)
class PowerCurve:
    """One certificate's curve in its pair's power figure."""

    certificate: object
    grid: np.ndarray
    power: np.ndarray


def pair_power_curves(certificates) -> list[PowerCurve]:
    """The curves of a pair's certificates that have one (:func:`has_power`), in order."""
    out = []
    for c in certificates:
        if has_power(c):
            curve = power_curve(c)
            if curve is not None:
                out.append(PowerCurve(c, *curve))
    return out


def _marks(certificate) -> list[float | None]:
    """The values of :data:`MARKS` for one certificate (None where unknown or infinite)."""
    return [_finite(certificate.claimed_epsilon), _finite(certificate.bound),
            _finite(certificate.detectable_epsilon), _finite(certificate.exact_epsilon)]


def power_caption(curves: list[PowerCurve]) -> str:
    """The figure's key and values in words: which line is which (one δ: a colour per mark;
    several: a colour per δ, a line style per mark), then per δ the marked values."""
    if len(curves) == 1:
        key = ", ".join(f"{what} ({colour}, {_STYLE_NAMES[style]})"
                        for what, style, _, colour in MARKS)
    else:
        key = ", ".join(f"{what} ({_STYLE_NAMES[style]})" for what, style, _, _ in MARKS)
        key += "; one colour per δ"
    parts = []
    for i, curve in enumerate(curves):
        c = curve.certificate
        values = ", ".join(f"{mark[0]} {format_number(v)}" for mark, v
                           in zip(MARKS, _marks(c)) if v is not None)
        colour = f" ({COLOUR_NAMES[i % len(COLOUR_NAMES)]})" if len(curves) > 1 else ""
        parts.append(f"δ = {format_number(c.delta)}{colour}: {values}")
    return f"vertical lines: {key}. " + "; ".join(parts)


class PowerPlot:
    """Draws power figures on one reused :class:`matplotlib.figure.Figure` (see the module
    docstring).  :meth:`figure` returns that same figure each time, redrawn: turn it into SVG
    (:func:`dpaudit.report.svg.figure_svg`) before asking for the next."""

    def __init__(self) -> None:
        from matplotlib.figure import Figure
        from matplotlib.ticker import FixedLocator, MaxNLocator

        self.fig = Figure(figsize=(5.6, 2.5))
        ax = self.ax = self.fig.subplots()
        ax.axhline(0.5, color="grey", lw=0.6)
        ax.set_ylim(-0.02, 1.02)
        ax.yaxis.set_major_locator(FixedLocator([0.0, 0.5, 1.0]))
        ax.xaxis.set_major_locator(MaxNLocator(7))
        ax.set_xlabel("true ε(δ)")
        ax.set_ylabel("P(certify)")
        ax.grid(alpha=0.3)
        self.fig.subplots_adjust(left=0.11, right=0.98, bottom=0.2, top=0.96)  # no layout pass
        self._drawn: list = []

    def figure(self, curves: list[PowerCurve]):
        """The figure of one pair's ``curves`` (non-empty), replacing the previous pair's."""
        ax = self.ax
        for artist in self._drawn:
            artist.remove()
        self._drawn = []
        low = min(float(c.grid[0]) for c in curves)
        high = max(float(c.grid[-1]) for c in curves)
        lines = []
        for i, curve in enumerate(curves):
            colour = COLOURS[i % len(COLOURS)]
            (line,) = ax.plot(curve.grid, curve.power, "-", color=colour, lw=1.6)
            lines.append(line)
            self._drawn.append(line)  # tracked at once: a failure never leaves it behind
            for (_, style, one, _), x in zip(MARKS, _marks(curve.certificate)):
                if x is not None and low <= x <= high:
                    self._drawn.append(ax.axvline(x, color=one if len(curves) == 1 else colour,
                                                  ls=style, lw=1.1))
        if len(curves) > 1:
            self._drawn.append(ax.legend(
                lines, [f"δ = {format_number(c.certificate.delta)}" for c in curves],
                fontsize=7, loc="lower right", frameon=False))
        ax.set_xlim(low, high)
        return self.fig


__all__ = ["COLOURS", "MARKS", "PowerCurve", "PowerPlot", "has_power", "pair_power_curves",
           "power_caption", "power_curve", "undetectable"]
