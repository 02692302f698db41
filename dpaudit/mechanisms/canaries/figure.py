"""The figure of a canary audit: in/out canary scores and the guesses that certified.

Drawn from a canary evidence's JSON form alone (``CanaryEvidence.to_json()``: its
``histogram`` — the scores of included and excluded canaries binned on one grid — the cut
points of the best guesses, the bounds and the claim), so it renders results only, like every
figure of the reports: two step histograms (included canaries above,
excluded below the axis), the "in" guesses' region right of the upper cut and the "out"
guesses' left of the lower cut shaded, and the title giving the certifying statistic, its
counts, its bound and the claim.  :func:`canary_figure` returns the matplotlib figure;
:meth:`~dpaudit.mechanisms.canaries.evidence.CanaryEvidence.figure` hands it to report.html,
which inlines it as SVG (the renderers know no evidence kind).  Needs matplotlib (the
``report`` extra).
"""

from __future__ import annotations


def canary_figure(evidence: dict):
    """The figure of module docstring for one canary evidence's JSON form.

    Raises:
      ValueError: the evidence has no histogram.
    """
    hist = evidence.get("histogram")
    if not hist:
        raise ValueError("this canary evidence has no score histogram to draw")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    edges = hist["edges"]
    fig = Figure(figsize=(6.4, 3.6))
    ax = fig.add_subplot(1, 1, 1)
    ax.stairs(hist["counts_in"], edges, fill=True, alpha=0.55, color="#c0392b",
              label="included canaries")
    ax.stairs([-c for c in hist["counts_out"]], edges, fill=True, alpha=0.55,
              color="#2c7fb8", label="excluded canaries")
    ax.axhline(0.0, color="black", linewidth=0.6)
    lo, hi = edges[0], edges[-1]
    if hist.get("cut_in") is not None:
        ax.axvspan(hist["cut_in"], hi, color="#c0392b", alpha=0.08)
        ax.axvline(hist["cut_in"], color="#c0392b", linestyle="--", linewidth=1,
                   label="guessed in (≥ cut)")
    if hist.get("cut_out") is not None:
        ax.axvspan(lo, hist["cut_out"], color="#2c7fb8", alpha=0.08)
        ax.axvline(hist["cut_out"], color="#2c7fb8", linestyle="--", linewidth=1,
                   label="guessed out (≤ cut)")
    ax.set_xlabel("canary score (higher: looks included)")
    ax.set_ylabel("canaries (excluded below 0)")
    ax.legend(fontsize=7, loc="upper left")
    best = max(evidence["results"], key=lambda r: r["bound"]) if evidence["results"] else None
    title = f"claimed ε = {evidence['claimed']:.4g} at δ = {evidence['delta']:g}"
    if best is not None:
        counts = (f"{best['correct']} of {sum(best['guesses'])} right, "
                  if best.get("guesses") else "")
        title = f"{best['statistic']}: {counts}ε_LB = {best['bound']:.4g}; {title}"
    ax.set_title(title, fontsize=9, loc="left")
    fig.tight_layout()
    return fig


__all__ = ["canary_figure"]
