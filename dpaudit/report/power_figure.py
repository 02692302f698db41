"""The power figure of one ε(δ) certificate: how large a true ε its test would have caught.

For a certificate (:class:`~dpaudit.results.hierarchy.Certificate`, or a flat record) with
``notion = "dp"`` and an estimator certificate, the figure plots P(certify) — the
probability that the same test (same events, certification samples, per-bound significance
and δ) certifies ε_LB > claimed ε — against the true ε(δ), from
:func:`dpaudit.stats.power.certificate_power_curve` (the larger of the black- and white-box
tests' curves), with vertical lines at the claimed ε, the certified ε_LB (black-box and, when
there is one, white-box), the record's ``detectable_epsilon`` (where the curve crosses 1/2)
and the pair's exact ε when known.  Every marked value is read from the certificate; only the
curve is computed, with the same pure-shift assumption ``detectable_epsilon`` is defined by.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.stats.power import certificate_power_curve


def _finite(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def power_curve(record, points: int = 81) -> tuple[np.ndarray, np.ndarray] | None:
    """(true ε grid, P(certify)) for a dp certificate (``record``: a
    :class:`~dpaudit.results.hierarchy.Certificate` or a flat record) with an estimator
    certificate and a finite claim, else None.  The grid runs from 0.8 × the smallest marked
    value to past the detectable ε, the exact ε and the bounds, with ``points`` more points
    within ±15 % of the detectable ε (where the curve rises)."""
    claimed = _finite(record.claimed_epsilon)
    if record.notion != "dp" or record.certificate is None or claimed is None:
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
    curves = [c for c in (certificate_power_curve(cert, claimed, grid)
                          for cert in (record.certificate, record.white_box_certificate))
              if c is not None]
    if not curves:
        return None
    return grid, np.max(curves, axis=0)


def power_figure(record, *, audit: str, pair: str | None):
    """The :class:`matplotlib.figure.Figure` of :func:`power_curve` with the certificate's
    marked values (see the module docstring), titled with its ``audit`` and ``pair`` names, or
    None when the certificate has no power curve."""
    curve = power_curve(record)
    if curve is None:
        return None
    from matplotlib.figure import Figure

    grid, power = curve
    fig = Figure(figsize=(5.6, 2.9))
    ax = fig.subplots()
    ax.plot(grid, power, "-", color="tab:purple", lw=1.6, label="P(certify) at true ε")
    marks = (("claimed ε", record.claimed_epsilon, "tab:red", "-"),
             ("ε_LB black-box", record.epsilon_lower_bound, "tab:blue", ":"),
             ("ε_LB white-box", record.white_box_epsilon_lower_bound, "tab:green", ":"),
             ("detectable ε", record.detectable_epsilon, "tab:purple", "--"),
             ("exact ε", record.exact_epsilon, "black", "-."))
    for label, value, colour, style in marks:
        x = _finite(value)
        if x is not None and grid[0] <= x <= grid[-1]:
            ax.axvline(x, color=colour, ls=style, lw=1.1, label=f"{label} = {x:.3g}")
    ax.axhline(0.5, color="grey", lw=0.6)
    ax.set_xlim(grid[0], grid[-1])
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(f"true ε at δ = {record.delta:g}")
    ax.set_ylabel("P(certify)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.set_title(f"power: {audit} / {pair}", fontsize=8.5,
                 parse_math=False)
    fig.subplots_adjust(left=0.11, right=0.66, bottom=0.17, top=0.9)  # fixed: no layout pass
    return fig


__all__ = ["power_curve", "power_figure"]
