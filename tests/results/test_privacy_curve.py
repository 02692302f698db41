"""A pair's privacy-curve figure (dpaudit.results.privacy_curve): plain values in, the JSON that
results.json and the journal have always held out, and back to an equal value."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpaudit.results.hierarchy import TestResult
from dpaudit.results.privacy_curve import CertifiedBound, DenseCurve, PrivacyCurveFigure
from dpaudit.results.records import SweepPoint


def figure(**changes) -> PrivacyCurveFigure:
    values = dict(
        suite="s", suite_file="s.toml", audit="gauss", pair="adjacent", mechanism="gaussian",
        sweep=SweepPoint("sigma", 2, 1),
        certified=[CertifiedBound(0, np.float64(0.8), None),
                   CertifiedBound(1e-5, 1.5, math.inf)],
        renyi_certified=[CertifiedBound(2.0, 0.3, 0.35)],
        dense_delta=DenseCurve(grid=[1e-6, 1e-2], claimed=[2.0, None], exact=[1.9, 1.0]),
        dense_alpha=DenseCurve(grid=[2.0, 4.0], claimed=[0.5, 1.0]))
    values.update(changes)
    return PrivacyCurveFigure(**values)


def test_the_json_has_the_keys_and_order_results_json_holds():
    data = figure().to_json()
    assert list(data) == ["suite", "suite_file", "audit", "pair", "mechanism", "sweep",
                          "certified", "renyi_certified", "dense_delta", "claimed", "exact",
                          "dense_alpha", "claimed_renyi"]  # no exact_renyi: not known
    # an integer δ stays an integer, numpy becomes Python, ∞ is the string "inf"
    assert data["certified"] == [[0, 0.8, None], [1e-5, 1.5, "inf"]]
    assert type(data["certified"][0][1]) is float
    assert data["sweep"] == {"parameter": "sigma", "value": 2, "index": 1}
    json.dumps(data, allow_nan=False)


def test_it_reads_back_to_an_equal_value_and_the_same_text():
    value = figure()
    data = value.to_json()
    back = PrivacyCurveFigure.from_json(json.loads(json.dumps(data)))
    assert back == value
    assert back.certified[1].white_box == math.inf and back.certified[0].at == 0
    assert json.dumps(back.to_json()) == json.dumps(data)
    assert back.dense_alpha.exact is None and back.dense_delta.exact == (1.9, 1.0)


def test_curves_without_a_delta_grid_or_without_orders_leave_their_keys_out():
    only_renyi = figure(certified=[], dense_delta=None)
    data = only_renyi.to_json()
    assert "dense_delta" not in data and "claimed" not in data and data["certified"] == []
    assert PrivacyCurveFigure.from_json(data) == only_renyi
    assert PrivacyCurveFigure.from_json(None) is None


def test_a_test_result_carries_its_figure_through_the_journal_form():
    test = TestResult(pair=None, pair_index=0, claim=None, true_epsilon=None, samples=10,
                      seed=1, seconds=0.5, warnings=(), error=None, certificates=(),
                      curve=figure())
    back = TestResult.from_json(json.loads(json.dumps(test.to_json())))
    assert back.curve == test.curve and isinstance(back.curve, PrivacyCurveFigure)
    assert "curve" not in test.to_json(curve=False)


@pytest.mark.parametrize("row", [[0.1, 0.2], "0.1", [0.1, "x", None], [True, 0.2, None]])
def test_a_malformed_certified_row_is_refused(row):
    data = figure().to_json()
    data["certified"] = [row]
    with pytest.raises((TypeError, ValueError)):
        PrivacyCurveFigure.from_json(data)


def test_a_curve_without_its_names_is_refused():
    data = figure().to_json()
    del data["pair"]
    with pytest.raises(KeyError):
        PrivacyCurveFigure.from_json(data)
