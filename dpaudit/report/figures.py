"""Figures of full-curve audits, drawn from results.json's ``curves`` (the source of truth).

One PNG per (audit, pair) that certified a δ grid or Rényi orders: the claimed ε(δ) as a line,
the exact ε(δ) of the pair when known, and the certified black-box and white-box lower bounds
as markers (all holding jointly at the suite's confidence); a second panel does the same for
the RDP curve ε(α).  Needs matplotlib (``pip install 'dpaudit[report]'``); without it no
figure is written and the curve's ``figure`` stays null.
"""

from __future__ import annotations

import re
from pathlib import Path


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip("-") or "x"


def _pairs(xs, ys):
    pts = [(x, y) for x, y in zip(xs, ys) if x is not None and isinstance(y, (int, float))]
    return [p[0] for p in pts], [p[1] for p in pts]


def draw_curve(curve: dict, path: Path) -> Path:
    """Draw one curve figure to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [k for k in ("certified", "renyi_certified") if curve.get(k)]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.2), squeeze=False)
    for ax, key in zip(axes[0], panels):
        if key == "certified":
            ax.set_xscale("log")
            ax.set_xlabel("δ")
            ax.set_ylabel("ε(δ)")
            if curve.get("dense_delta"):
                ax.plot(*_pairs(curve["dense_delta"], curve.get("claimed", [])), "-",
                        color="tab:red", label="claimed ε(δ)")
                ax.plot(*_pairs(curve["dense_delta"], curve.get("exact", [])), "--",
                        color="black", label="exact ε(δ) of the pair")
            pts = [p for p in curve["certified"] if p[0] and p[0] > 0]
            zero = [p for p in curve["certified"] if not p[0]]
            rows = [(pts, "o")] + ([(zero, "s")] if zero else [])
            for points, marker in rows:
                xs = [p[0] if p[0] else min((q[0] for q in pts), default=1e-6) / 10
                      for p in points]
                ax.plot(xs, [p[1] for p in points], marker, color="tab:blue",
                        label="certified ε_LB (black-box)" + (" at δ=0" if marker == "s" else ""))
                white = [(x, p[2]) for x, p in zip(xs, points) if p[2] is not None]
                if white:
                    ax.plot([w[0] for w in white], [w[1] for w in white], marker + "",
                            mfc="none", color="tab:green", label="certified ε_LB (white-box)"
                            + (" at δ=0" if marker == "s" else ""))
        else:
            ax.set_xlabel("Rényi order α")
            ax.set_ylabel("ε(α)")
            if curve.get("dense_alpha"):
                ax.plot(*_pairs(curve["dense_alpha"], curve.get("claimed_renyi", [])), "-",
                        color="tab:red", label="claimed RDP ε(α)")
                if curve.get("exact_renyi"):
                    ax.plot(*_pairs(curve["dense_alpha"], curve["exact_renyi"]), "--",
                            color="black", label="exact D_α of the pair")
            pts = curve["renyi_certified"]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", color="tab:blue",
                    label="certified lower bound (black-box)")
            white = [p for p in pts if p[2] is not None]
            if white:
                ax.plot([p[0] for p in white], [p[2] for p in white], "o", mfc="none",
                        color="tab:green", label="certified lower bound (white-box)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{curve['suite']} / {curve['audit']} / pair {curve['pair']} "
                 f"({curve['mechanism']})", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_figures(report: dict, out_dir: str | Path) -> list[Path]:
    """Draw every curve of ``report`` under ``out_dir/figures`` and set each curve's
    ``figure`` (relative to ``out_dir``).  Returns the written paths ([] without matplotlib)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return []
    out_dir = Path(out_dir)
    written = []
    for curve in report.get("curves", []):
        name = "__".join(_slug(curve[k]) for k in ("suite", "audit", "pair")) + ".png"
        path = draw_curve(curve, out_dir / "figures" / name)
        curve["figure"] = str(path.relative_to(out_dir))
        written.append(path)
    return written
