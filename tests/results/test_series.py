"""A ``[[series]]`` result (dpaudit.results.series): typed values, the JSON results.json has
always held (``pair`` and ``facts`` only when known, ``seconds`` last), and back."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpaudit.results.series import Marker, SeriesResult


def result(**changes) -> SeriesResult:
    values = dict(
        suite="sgld", suite_file="audits/sgld.toml", name="figure-1", mechanism="sgld",
        params={"n": 10, "x_h": (1.0, 2.0)}, quantity="separation", parameter="steps",
        values=[0, 10, 20], y=np.array([0.0, 1.5, math.inf]), label="sep", ylabel="mean",
        markers=[Marker(np.int64(12), "T")], claim={"notion": "rdp", "text": "ε(α) = α"},
        delta=1e-5, claimed_epsilon=0.14, note="", error=None, options={"target": 1.6},
        pair="eq7", facts={"n": np.int64(10), "k̂": np.float64(2.5), "why": "Lemma A.4"},
        seconds=1.25)
    values.update(changes)
    return SeriesResult(**values)


def test_the_json_has_the_keys_and_order_results_json_holds():
    data = result().to_json()
    assert list(data) == ["suite", "suite_file", "name", "mechanism", "params", "quantity",
                          "parameter", "values", "y", "label", "ylabel", "markers", "claim",
                          "delta", "claimed_epsilon", "note", "error", "options", "pair",
                          "facts", "seconds"]
    assert data["y"] == [0.0, 1.5, "inf"] and data["params"] == {"n": 10, "x_h": [1.0, 2.0]}
    assert data["markers"] == [{"x": 12, "label": "T"}] and type(data["markers"][0]["x"]) is int
    assert data["facts"] == {"n": 10, "k̂": 2.5, "why": "Lemma A.4"}
    json.dumps(data, allow_nan=False)


def test_a_series_that_failed_before_its_pair_has_no_pair_nor_facts_key():
    failed = result(pair=None, facts=None, y=None, markers=(), error="ValueError: no")
    data = failed.to_json()
    assert "pair" not in data and "facts" not in data and list(data)[-1] == "seconds"
    assert data["y"] is None and not failed.has_figure
    assert SeriesResult.from_json(data) == failed


def test_it_reads_back_to_an_equal_value_and_the_same_text():
    value = result()
    text = json.dumps(value.to_json(), ensure_ascii=False)
    back = SeriesResult.from_json(json.loads(text))
    assert back == value and json.dumps(back.to_json(), ensure_ascii=False) == text
    assert back.y[2] == math.inf and back.facts["n"] == 10 and type(back.facts["n"]) is int
    assert back.has_figure and back.claim_text == "ε(α) = α"
    assert result(claim=None).claim_text is None


def test_a_marker_needs_a_number_x():
    assert Marker.from_json({"x": 3}) == Marker(3, None)
    assert Marker(3).to_json() == {"x": 3}  # no label written when there is none
    for bad in ({"label": "T"}, {"x": "three"}, [3, "T"]):
        with pytest.raises((KeyError, TypeError)):
            Marker.from_json(bad)


def test_a_malformed_entry_is_refused():
    data = result().to_json()
    data["facts"] = ["not", "an", "object"]
    with pytest.raises(TypeError):
        SeriesResult.from_json(data)
    data = result().to_json()
    data["y"] = [1.0, "high"]
    with pytest.raises(TypeError):
        SeriesResult.from_json(data)
    data = result().to_json()
    del data["name"]
    with pytest.raises(KeyError):
        SeriesResult.from_json(data)
