"""The canary audit's figure, drawn from its evidence's JSON alone."""

from __future__ import annotations

import pytest

from dpaudit.claims import GDP
from dpaudit.mechanisms.canaries import CanaryPlan, run_canary_audit
from dpaudit.mechanisms.canaries.simulated import GaussianDiracRun

pytest.importorskip("matplotlib", reason="figures need matplotlib: pip install 'dpaudit[report]'")

from dpaudit.mechanisms.canaries.figure import canary_figure  # noqa: E402
from dpaudit.report.svg import figure_svg  # noqa: E402


@pytest.mark.slow
def test_figure_shows_scores_cuts_and_the_certificate():
    plan = CanaryPlan(400, 1e-5, seed=0)
    ev = run_canary_audit(plan, GDP(0.5), GaussianDiracRun(plan, 2.0)).to_json()
    fig = canary_figure(ev)
    ax = fig.axes[0]
    assert "ε_LB" in ax.get_title(loc="left") and "right" in ax.get_title(loc="left")
    labels = ax.get_legend_handles_labels()[1]
    assert "guessed in (≥ cut)" in labels and "guessed out (≤ cut)" in labels
    assert "<svg" in figure_svg(fig)


def test_the_evidence_draws_its_own_figure_for_the_report():
    plan = CanaryPlan(200, 1e-5, seed=1)
    ev = run_canary_audit(plan, GDP(0.5), GaussianDiracRun(plan, 1.0))
    assert ev.figure().axes[0].get_title(loc="left") == \
        canary_figure(ev.to_json()).axes[0].get_title(loc="left")
    import dataclasses

    assert dataclasses.replace(ev, histogram=None).figure() is None


def test_no_histogram_is_one_line():
    with pytest.raises(ValueError, match="no score histogram"):
        canary_figure({"histogram": None})
