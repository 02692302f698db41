"""The ε-over-sweep curve (dpaudit.results.sweep_curve): typed rows, the JSON results.json has
always held, and back."""

from __future__ import annotations

import json
import math

import pytest

from dpaudit.evidence.vocabulary import Expectation, Verdict
from dpaudit.results.sweep_curve import DenseRow, SweepCurve, SweepValue


def curve(**changes) -> SweepCurve:
    values = dict(
        suite="s", suite_file="s.toml", audit="lap", audit_index=0, pair="adjacent",
        pair_index=0, mechanism="laplace", parameter="epsilon", delta=0.0, confidence=0.95,
        per_certificate_confidence=0.99,
        samples=1000,
        points=[SweepValue(0.5, 0.5, 0.41, None, 0.5, "consistent", "consistent"),
                SweepValue(2, math.inf, 2.3, 2.2, None, Verdict.VIOLATION,
                           Expectation.VIOLATION)],
        dense=[DenseRow(1.0, 1.0, 1.0)], dense_errors=["epsilon=3: ValueError: no"])
    values.update(changes)
    return SweepCurve(**values)


def test_the_json_has_the_keys_and_order_results_json_holds():
    data = curve().to_json()
    assert list(data) == ["kind", "suite", "suite_file", "audit", "audit_index", "pair",
                          "pair_index", "mechanism", "parameter", "delta", "confidence",
                          "per_certificate_confidence", "samples", "points", "dense",
                          "dense_errors"]
    assert data["kind"] == "sweep"
    assert list(data["points"][0]) == ["value", "claimed", "certified", "white_box", "exact",
                                       "verdict", "expect"]
    assert data["points"][1] == {"value": 2, "claimed": "inf", "certified": 2.3,
                                 "white_box": 2.2, "exact": None, "verdict": "violation",
                                 "expect": "violation"}
    assert data["dense"] == [{"value": 1.0, "claimed": 1.0, "exact": 1.0}]
    json.dumps(data, allow_nan=False)


def test_it_reads_back_to_an_equal_value_and_the_same_text():
    value = curve()
    text = json.dumps(value.to_json())
    back = SweepCurve.from_json(json.loads(text))
    assert back == value and json.dumps(back.to_json()) == text
    assert back.points[1].claimed == math.inf and back.points[1].verdict is Verdict.VIOLATION
    assert back.points[1].value == 2 and type(back.points[1].value) is int


def test_a_row_with_an_unknown_verdict_or_no_bound_is_refused():
    data = curve().to_json()
    data["points"][0]["verdict"] = "maybe"
    with pytest.raises(ValueError):
        SweepCurve.from_json(data)
    data = curve().to_json()
    del data["points"][0]["certified"]
    with pytest.raises(KeyError):
        SweepCurve.from_json(data)
    data = curve().to_json()
    data["points"][0]["claimed"] = "lots"
    with pytest.raises(TypeError):
        SweepCurve.from_json(data)


def test_only_a_sweep_kind_reads_as_a_sweep_curve():
    data = curve().to_json()
    data["kind"] = "other"
    with pytest.raises(ValueError, match="not a sweep curve"):
        SweepCurve.from_json(data)


def test_a_computed_point_says_so_and_reads_back():
    """An exact-curve point's ε is computed, not a sampled bound: the row says ``computed``
    (only then: a sampled row keeps the keys it always had) and the figure's legend says
    "exact ε", not "certified ε_LB"."""
    pytest.importorskip("matplotlib")
    from dpaudit.report.figures import sweep_figure

    computed = SweepValue(2.0, 2.166, 4.377, None, 4.377, Verdict.VIOLATION,
                          Expectation.VIOLATION, computed=True)
    value = curve(points=[SweepValue(5.0, 0.79, 1.55, None, 1.55, "violation", "violation",
                                     computed=True), computed], dense=[], dense_errors=[])
    data = value.to_json()
    assert data["points"][1]["computed"] is True
    assert "computed" not in curve().to_json()["points"][0]
    assert SweepCurve.from_json(json.loads(json.dumps(data))) == value
    labels = [t.get_text() for t in sweep_figure(value).axes[0].get_legend().get_texts()]
    assert any("exact ε (its bracket's lower end; no sampling)" in t for t in labels)
    assert not any("certified ε_LB" in t for t in labels)
    assert "ε above the claim: violation" in labels
