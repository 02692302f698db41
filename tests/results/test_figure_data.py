"""A run's figure data read from the committed results.json files (dpaudit.results.figure_data):
every ``curves`` and ``series`` entry of the committed schema-4 reports reads as its type and
writes back the same JSON text; schema-3 and schema-2 entries read too; what the types write
is what results.schema.json describes; a malformed entry is refused."""

from __future__ import annotations

import json

import jsonschema
import pytest

from dpaudit.results.figure_data import curve_from_json, series_from_json
from dpaudit.results.privacy_curve import PrivacyCurveFigure
from dpaudit.results.records import SCHEMA_FILE
from dpaudit.results.series import SeriesResult
from dpaudit.results.sweep_curve import SweepCurve
from tests.support import REPO, TEST_DATA

#: the committed schema-4 reports (their figure data: privacy curves with and without Rényi
#: orders and exact Rényi curves, a sweep curve with dense exact rows, a [[series]] entry)
SCHEMA_4 = [REPO / "reports" / "example" / "results.json",
            REPO / "reports" / "sgld" / "results.json",
            REPO / "reports" / "gaussian_mixing" / "audit" / "results.json"]
OLDER = [TEST_DATA / "results-schema3-fixture.json", TEST_DATA / "results-schema2-classic.json",
         TEST_DATA / "results-schema2-sgld.json"]


def _document(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _text(value) -> str:
    """As results.json writes one entry (dpaudit.report.results_file.dumps_results)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _without_figure(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k != "figure"}


@pytest.mark.parametrize("path", SCHEMA_4 + OLDER, ids=lambda p: p.parent.name + "/" + p.name)
def test_every_committed_entry_reads_as_its_type_and_writes_the_same_text(path):
    document = _document(path)
    curves = [curve_from_json(c) for c in document["curves"]]
    series = [series_from_json(s) for s in document.get("series") or []]
    for entry, curve in zip(document["curves"], curves):
        assert isinstance(curve, SweepCurve if entry.get("kind") == "sweep"
                          else PrivacyCurveFigure)
        assert _text(curve.to_json()) == _text(_without_figure(entry))
    for entry, result in zip(document.get("series") or [], series):
        assert isinstance(result, SeriesResult)
        assert _text(result.to_json()) == _text(_without_figure(entry))


def test_the_committed_reports_hold_every_kind_of_figure_data():
    """The pins above cover what they should: both curve kinds, both dense curves, a sweep's
    dense rows, white-box bounds, a series with markers and facts."""
    curves = [curve_from_json(c) for path in SCHEMA_4 for c in _document(path)["curves"]]
    series = [series_from_json(s) for path in SCHEMA_4 for s in _document(path)["series"]]
    privacy = [c for c in curves if isinstance(c, PrivacyCurveFigure)]
    sweeps = [c for c in curves if isinstance(c, SweepCurve)]
    assert any(c.dense_alpha is not None and c.dense_alpha.exact for c in privacy)
    assert any(c.dense_delta is not None for c in privacy)
    assert any(b.white_box is not None for c in privacy for b in c.certified)
    assert sweeps and all(s.dense for s in sweeps)
    assert series and all(s.markers and s.facts and s.pair for s in series)


def _subschema(name: str) -> dict:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return {**schema["properties"][name], "$defs": schema["$defs"]}


def test_what_the_types_write_is_what_the_schema_describes():
    curves = [curve_from_json(c).to_json() for p in SCHEMA_4 for c in _document(p)["curves"]]
    series = [series_from_json(s).to_json() for p in SCHEMA_4 for s in _document(p)["series"]]
    jsonschema.validate(curves, _subschema("curves"), cls=jsonschema.Draft202012Validator)
    jsonschema.validate(series, _subschema("series"), cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("entry, error", [
    ("a curve", TypeError),
    ({"kind": "histogram", "suite": "s"}, ValueError),
    ({"suite": "s", "suite_file": "s.toml", "audit": "a", "mechanism": "m"}, KeyError),
])
def test_a_malformed_curve_is_refused(entry, error):
    with pytest.raises(error):
        curve_from_json(entry)


def test_a_malformed_series_is_refused():
    with pytest.raises(TypeError):
        series_from_json(["not", "a", "series"])
