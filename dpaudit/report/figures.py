"""Figures of a run's ``curves`` and ``series`` (the typed values of :mod:`dpaudit.results`:
:class:`~dpaudit.results.privacy_curve.PrivacyCurveFigure`,
:class:`~dpaudit.results.sweep_curve.SweepCurve`, :class:`~dpaudit.results.series.SeriesResult`).

* One PNG per (audit, pair) that certified a δ grid or Rényi orders: the claimed ε(δ) as a
  line, the exact ε(δ) of the pair when known, and the certified black-box and white-box lower
  bounds as markers (all holding jointly at the suite's confidence); a second panel does the
  same for the RDP curve ε(α).
* One PNG per swept audit, pair and δ (a sweep curve): ε over the swept parameter — the
  claimed ε as a line, the exact ε (a line through the dense values and the swept ones), and
  the certified lower bounds as upward-pointing markers (each says "the true ε is above this",
  jointly for every point at the suite's family-wise confidence); points where the bound is
  above the claim (violations) are filled red.
* One PNG per ``[[series]]`` entry: the closed-form quantity over the swept parameter, with the
  mechanism's markers (e.g. the paper's T = (⌈k̂⌉+1)n) and the claim in the title.

Each kind has one drawing function returning a :class:`matplotlib.figure.Figure`
(:func:`curve_figure`, :func:`sweep_figure`, :func:`series_figure`): the PNGs here and the
inline SVGs of the HTML report (:mod:`dpaudit.report.svg`) are drawn by the same code.

Titles hold suite, audit and pair names as plain text (``parse_math=False``: a ``$`` in a
name is not typeset as math).  Needs matplotlib (``pip install 'dpaudit[report]'``); without it no figure is written and the
curves and series of results.json have no ``figure`` key.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dpaudit.evidence.vocabulary import Verdict
from dpaudit.results.figure_data import CurveFigure
from dpaudit.results.privacy_curve import PrivacyCurveFigure
from dpaudit.results.run import AuditRun
from dpaudit.results.series import SeriesResult
from dpaudit.results.sweep_curve import SweepCurve
from dpaudit.util.atomic import write_bytes_atomic
from dpaudit.util.jsonable import to_jsonable


#: longest slug of one name in a figure's file name (a file name is at most 255 bytes)
MAX_SLUG = 60


def _slug(text: str) -> str:
    """A file-name-safe form of a name; a long name is cut and made unique by a hash of it."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip("-") or "x"
    if len(slug) > MAX_SLUG:
        digest = hashlib.sha256(str(text).encode("utf-8")).hexdigest()[:10]
        slug = f"{slug[:MAX_SLUG - 11]}-{digest}"
    return slug


def _plottable(value) -> bool:
    """Whether ``value`` is drawn: a finite number (∞, NaN and None are not)."""
    return isinstance(value, (int, float)) and math.isfinite(value)


def _pairs(xs, ys):
    pts = [(x, y) for x, y in zip(xs, ys) if x is not None and _plottable(y)]
    return [p[0] for p in pts], [p[1] for p in pts]


def save_png(figure, path: Path) -> Path:
    """Write a matplotlib ``figure`` as a PNG to ``path`` atomically (parents created)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return write_bytes_atomic(path, buffer.getvalue())


def curve_figure(curve: PrivacyCurveFigure):
    """The :class:`matplotlib.figure.Figure` of one pair's privacy curve (a δ grid or Rényi
    orders, see the module docstring); the PNG of :func:`draw_curve` and the inline SVG of the
    HTML report are both drawn by it."""
    from matplotlib.figure import Figure

    panels = [p for p in ("dp", "rdp") if (curve.certified if p == "dp"
                                             else curve.renyi_certified)]
    fig = Figure(figsize=(6.2 * len(panels), 4.2))
    axes = fig.subplots(1, len(panels), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        if panel == "dp":
            ax.set_xscale("log")
            ax.set_xlabel("δ")
            ax.set_ylabel("ε(δ)")
            dense = curve.dense_delta
            if dense is not None and dense.grid:
                ax.plot(*_pairs(dense.grid, dense.claimed), "-",
                        color="tab:red", label="claimed ε(δ)")
                ax.plot(*_pairs(dense.grid, dense.exact or ()), "--",
                        color="black", label="exact ε(δ) of the pair")
            pts = [p for p in curve.certified if p.at and p.at > 0]
            zero = [p for p in curve.certified if not p.at]
            rows = [(pts, "o")] + ([(zero, "s")] if zero else [])
            for points, marker in rows:
                xs = [p.at if p.at else min((q.at for q in pts), default=1e-6) / 10
                      for p in points]
                ax.plot(xs, [p.black_box for p in points], marker, color="tab:blue",
                        label="certified ε_LB (black-box)" + (" at δ=0" if marker == "s" else ""))
                white = [(x, p.white_box) for x, p in zip(xs, points) if p.white_box is not None]
                if white:
                    ax.plot([x for x, _ in white], [y for _, y in white], marker + "",
                            mfc="none", color="tab:green", label="certified ε_LB (white-box)"
                            + (" at δ=0" if marker == "s" else ""))
        else:
            ax.set_xlabel("Rényi order α")
            ax.set_ylabel("ε(α)")
            dense = curve.dense_alpha
            if dense is not None and dense.grid:
                ax.plot(*_pairs(dense.grid, dense.claimed), "-",
                        color="tab:red", label="claimed RDP ε(α)")
                if dense.exact:
                    ax.plot(*_pairs(dense.grid, dense.exact), "--",
                            color="black", label="exact D_α of the pair")
            pts = curve.renyi_certified
            ax.plot([p.at for p in pts], [p.black_box for p in pts], "o", color="tab:blue",
                    label="certified lower bound (black-box)")
            white = [p for p in pts if p.white_box is not None]
            if white:
                ax.plot([p.at for p in white], [p.white_box for p in white], "o", mfc="none",
                        color="tab:green", label="certified lower bound (white-box)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{curve.suite} / {curve.audit} / pair {curve.pair} "
                 f"({curve.mechanism})", fontsize=10, parse_math=False)
    fig.tight_layout()
    return fig


def draw_curve(curve: PrivacyCurveFigure, path: Path) -> Path:
    """Draw one curve figure (:func:`curve_figure`) to ``path`` as a PNG."""
    return save_png(curve_figure(curve), path)


def _symlog_axis(ax, values):
    """Log x-axis when the positive values span > 2 decades (symlog when 0 is included)."""
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    positive = [v for v in nums if v > 0]
    if positive and min(nums) >= 0 and max(positive) / min(positive) > 100:
        if min(nums) == 0:
            ax.set_xscale("symlog", linthresh=min(positive))
        else:
            ax.set_xscale("log")


def sweep_figure(curve: SweepCurve):
    """The figure of an ε-over-sweep curve: ε over the swept parameter (see the module
    docstring)."""
    from matplotlib.figure import Figure

    points = curve.points
    numeric = all(isinstance(p.value, (int, float)) and not isinstance(p.value, bool)
                  for p in points)
    xs = [p.value for p in points] if numeric else list(range(len(points)))
    fig = Figure(figsize=(7.4, 4.4))
    ax = fig.subplots()
    dense = curve.dense
    line = sorted([(x, p.claimed) for x, p in zip(xs, points)]
                  + ([(d.value, d.claimed) for d in dense] if numeric else []))
    claimed = [b for _, b in line if _plottable(b)]
    same = claimed and max(claimed) - min(claimed) <= 1e-9 * max(1.0, abs(max(claimed)))
    ax.plot(*_pairs([a for a, _ in line], [b for _, b in line]), "-", color="tab:red",
            label=f"claimed ε = {claimed[0]:.3g}" if same else "claimed ε")
    exact = sorted([(x, p.exact) for x, p in zip(xs, points)]
                   + ([(d.value, d.exact) for d in dense] if numeric else []))
    if any(_plottable(e) for _, e in exact):
        ax.plot(*_pairs([a for a, _ in exact], [b for _, b in exact]), "--", color="black",
                label="exact ε of the pair")
    conf = curve.confidence
    for bound, colour, marker, label in ((lambda p: p.certified, "tab:blue", "^", "black-box"),
                                         (lambda p: p.white_box, "tab:green", "d", "white-box")):
        pts = [(x, bound(p)) for x, p in zip(xs, points) if _plottable(bound(p))]
        if not pts:
            continue
        computed = all(p.computed for p in points if _plottable(bound(p)))
        text = ("the pair's exact ε (its bracket's lower end; no sampling)" if computed
                else f"certified ε_LB ({label}; true ε ≥ it, jointly at {conf:g} confidence)"
                if conf else f"certified ε_LB ({label})")
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker, mfc="none", color=colour,
                ms=8, label=text)
        above = [(x, y) for x, y in pts
                 if y > (next(p.claimed for xx, p in zip(xs, points) if xx == x) or 0)]
        if above:
            ax.plot([a for a, _ in above], [b for _, b in above], marker, color="tab:red",
                    ms=8)
    if any(p.verdict == Verdict.VIOLATION for p in points):
        what = "ε" if all(p.computed for p in points) else "ε_LB"
        ax.plot([], [], "^", color="tab:red", label=f"{what} above the claim: violation")
    if numeric:
        _symlog_axis(ax, xs)
    else:
        ax.set_xticks(xs, [str(p.value) for p in points])
    ax.set_xlabel(curve.parameter)
    ax.set_ylabel(f"ε at δ = {curve.delta:g}")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5)
    ax.set_title(f"{curve.suite} / {curve.audit} / pair {curve.pair} "
                 f"({curve.mechanism}): ε over {curve.parameter}", fontsize=9.5,
                 parse_math=False)
    fig.tight_layout()
    return fig


def draw_sweep(curve: SweepCurve, path: Path) -> Path:
    """Draw :func:`sweep_figure` to ``path`` as a PNG."""
    return save_png(sweep_figure(curve), path)


def series_figure(series: SeriesResult):
    """The figure of a closed-form series over its swept parameter (see the module
    docstring)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.4, 4.2))
    ax = fig.subplots()
    xs, ys = _pairs(series.values, series.y or ())
    ax.plot(xs, ys, "-", color="tab:purple", label=series.label or series.quantity)
    for m in series.markers:
        ax.axvline(m.x, color="grey", ls=":", lw=1)
        ax.annotate(m.label if m.label is not None else "", (m.x, max(ys) if ys else 0),
                    fontsize=7.5, rotation=90, va="top", ha="right")
    ax.set_xlabel(series.parameter)
    ax.set_ylabel(series.ylabel or series.quantity)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    title = f"{series.suite} / {series.name} ({series.mechanism})"
    if series.claimed_epsilon is not None:
        title += f"; claim ε = {series.claimed_epsilon:.3g} at δ = {series.delta:g}"
    ax.set_title(title, fontsize=9.5, parse_math=False)
    fig.tight_layout()
    return fig


def draw_series(series: SeriesResult, path: Path) -> Path:
    """Draw :func:`series_figure` to ``path`` as a PNG."""
    return save_png(series_figure(series), path)


@dataclass(frozen=True)
class Figures:
    """What :func:`write_figures` drew: the path of each curve's and each series' figure
    (relative to the output directory; None when none was drawn), in the run's order, and the
    written files."""

    curves: tuple[str | None, ...] = ()
    series: tuple[str | None, ...] = ()
    written: tuple[Path, ...] = ()

    def for_curves(self, curves: list) -> list[str | None]:
        return list(self.curves) + [None] * (len(curves) - len(self.curves))

    def for_series(self, series: list) -> list[str | None]:
        return list(self.series) + [None] * (len(series) - len(self.series))


class FigurePathError(OSError):
    """``figures/`` (or a directory it passes through) is a symbolic link that leads outside
    the output directory: no figure is written through it."""


def figures_dir(out_dir: str | Path) -> Path:
    """``out_dir/figures``, after checking that it does not lead outside ``out_dir``.

    Raises:
      FigurePathError: ``figures`` is a symbolic link (or under one) whose target is outside
        ``out_dir`` (a planted ``figures -> /elsewhere`` would otherwise be followed).
    """
    out_dir = Path(out_dir)
    folder = out_dir / "figures"
    root = out_dir.resolve()
    target = folder.resolve()
    if not target.is_relative_to(root):
        raise FigurePathError(f"{folder} is a symbolic link to {target}, outside {out_dir}: "
                              "not writing figures through it (remove the link)")
    return folder


def figure_names(keys: list[tuple[str, tuple]]) -> list[str]:
    """A file name (``STEM.png``) for each figure, unique within the run.

    ``keys`` holds, per figure, its readable stem (the slugs of its names joined by ``__``,
    as the figures have always been named) and the exact names it was made from.  A stem
    shared by no other figure — compared case-insensitively, since macOS and Windows disks
    are — stays as it is: the shipped suites' figure names do not change, and a name that
    loses characters to the slug but collides with nothing keeps its readable name.  Stems
    that collide (``lap 1`` and ``lap/1``, ``ε=1`` and ``δ=1``, ``Lap`` and ``lap``, or
    ``a__b``/``c`` and ``a``/``b__c``) each get ``-`` and 8 hex digits of the SHA-256 of their
    exact names, so that which audit gets which name does not depend on the run's order;
    figures whose names are exactly equal (two suite files with one suite name) are then told
    apart by ``-2``, ``-3``… in the run's order.  Only collisions are hashed, not every lossy
    slug, so that readable names stay readable wherever they are unambiguous.
    """
    import json

    counts: dict[str, int] = {}
    for stem, _ in keys:
        counts[stem.casefold()] = counts.get(stem.casefold(), 0) + 1
    names, used = [], set()
    for stem, exact in keys:
        if counts[stem.casefold()] > 1:
            digest = hashlib.sha256(json.dumps(exact, ensure_ascii=False).encode("utf-8"))
            stem = f"{stem}-{digest.hexdigest()[:8]}"
        name, n = stem, 1
        while name.casefold() in used:
            n += 1
            name = f"{stem}-{n}"
        used.add(name.casefold())
        names.append(name + ".png")
    return names


def _curve_key(curve: CurveFigure) -> tuple[str, tuple]:
    """(readable stem, exact names) of a curve's figure, from its names as results.json holds
    them (:func:`figure_names`)."""
    exact = tuple(str(to_jsonable(name)) for name in (curve.suite, curve.audit, curve.pair))
    parts = [_slug(x) for x in exact]
    if isinstance(curve, SweepCurve):
        return "__".join(parts + [f"delta-{curve.delta:g}", "sweep"]), (
            "sweep", *exact, str(curve.parameter), repr(curve.delta))
    sweep = curve.sweep
    if sweep:
        value = to_jsonable(sweep.value)
        parts.append(_slug(f"{sweep.parameter}-{value}"))
        exact += (str(sweep.parameter), repr(value))
    return "__".join(parts), ("curve", *exact)


def _series_key(series: SeriesResult) -> tuple[str, tuple]:
    """(readable stem, exact names) of a series' figure."""
    return ("__".join(_slug(name) for name in (series.suite, series.name)) + "__series",
            ("series", str(series.suite), str(series.name)))


def write_figures(run: AuditRun, out_dir: str | Path,
                  on_figure: Callable[[], None] | None = None) -> Figures:
    """Draw every curve and series of ``run`` (an :class:`dpaudit.results.run.AuditRun`)
    under ``out_dir/figures``, one file each (names from :func:`figure_names`).  Returns
    their paths (none without matplotlib).  ``on_figure`` is called once per curve and once
    per series (drawn or not), for progress.

    Raises:
      FigurePathError: ``out_dir/figures`` leads outside ``out_dir`` (:func:`figures_dir`);
        nothing is drawn.
    """
    out_dir = Path(out_dir)
    folder = figures_dir(out_dir)
    if not matplotlib_available():
        remove_stale_figures(folder, ())
        return Figures()
    keys = ([_curve_key(c) for c in run.curves]
            + [_series_key(s) for s in run.series if s.has_figure])
    names = iter(figure_names(keys))
    written, curve_paths, series_paths = [], [], []
    for curve in run.curves:
        draw = draw_sweep if isinstance(curve, SweepCurve) else draw_curve
        path = draw(curve, folder / next(names))
        curve_paths.append(str(path.relative_to(out_dir)))
        written.append(path)
        if on_figure:
            on_figure()
    for series in run.series:
        if on_figure:
            on_figure()
        if not series.has_figure:
            series_paths.append(None)
            continue
        path = draw_series(series, folder / next(names))
        series_paths.append(str(path.relative_to(out_dir)))
        written.append(path)
    remove_stale_figures(folder, written)
    return Figures(curves=tuple(curve_paths), series=tuple(series_paths),
                   written=tuple(written))


def remove_stale_figures(folder: Path, written) -> list[Path]:
    """Remove the ``*.png`` files of ``folder`` that this run did not write: an earlier run's
    figures would otherwise sit beside the new reports, linked by none of them (a symbolic
    link is removed, never followed).  Returns what was removed."""
    keep = {Path(p).name for p in written}
    removed = []
    try:
        entries = list(folder.iterdir()) if folder.is_dir() else []
    except OSError:
        return removed
    for entry in entries:
        if entry.suffix == ".png" and entry.name not in keep and (
                entry.is_symlink() or entry.is_file()):
            try:
                entry.unlink()
                removed.append(entry)
            except OSError:
                pass
    return removed


def matplotlib_available() -> bool:
    """Whether matplotlib (the ``report`` extra) can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


__all__ = ["FigurePathError", "Figures", "curve_figure", "draw_curve", "draw_series", "draw_sweep",
           "figure_names", "figures_dir", "remove_stale_figures",
           "matplotlib_available", "save_png", "series_figure", "sweep_figure",
           "write_figures"]
