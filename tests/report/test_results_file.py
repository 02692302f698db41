"""results.json (dpaudit.report.results_file): the schema-4 tree reads back to exactly the typed
report it was written from, older schema-3 and schema-2 files stay readable, bad files give one
clear line, and a write never leaves a half-written file."""

from __future__ import annotations

import json

import pytest

from dpaudit.util.jsonable import MAX_JSON_DEPTH, json_depth
from dpaudit.report.json_report import build_report
from dpaudit.report.results_file import (ResultsFileError, dumps_results, read_document,
                                         read_report, results_document,
                                         write_results)
from tests.support import REPO, TEST_DATA

DATA = TEST_DATA
#: the last schema-2 results.json dpaudit wrote before schema 3 (reports/example at 8d90273)
SCHEMA_2 = DATA / "results-schema2-classic.json"
#: an early schema-2 file, before exact_verdict, detectable_epsilon & co. (reports/sgld then:
#: swept audits, dense exact curves)
EARLY_SCHEMA_2 = DATA / "results-schema2-sgld.json"
#: a schema-3 file of dpaudit 5c4570f (tests/data/fixture-suite.toml: white-box, Rényi,
#: searched, floating-point and swept audits)
SCHEMA_3 = DATA / "results-schema3-fixture.json"


def same_row(new, old) -> bool:
    """Whether a record row read today holds every field an older file's row held, with the
    same value, recursively (today's evidence also records fields older files did not —
    ``distinguisher``, the floating-point fields at their defaults — and the white-box Rényi
    evidence that older files kept only as a number)."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(
            (k.endswith("certificate") and v is None) or same_row(new.get(k), v)
            for k, v in old.items())
    if isinstance(old, list):
        return (isinstance(new, list) and len(new) == len(old)
                and all(same_row(a, b) for a, b in zip(new, old)))
    return new == old

@pytest.fixture(scope="module")
def report(shapes_run):
    """The typed report of the shared every-shape run (tests/conftest.py: SHAPES_SUITE)."""
    return build_report(shapes_run, command="dpaudit run roundtrip.toml", exit_status=2)


def test_schema_4_reads_back_to_exactly_the_report_it_was_written_from(report, tmp_path):
    path = write_results(report, tmp_path / "results.json")
    back = read_report(path)
    assert [r.to_json() for r in back.records] == [r.to_json() for r in report.records]
    assert back.run.outcomes == report.run.outcomes
    assert [s.to_json() for s in back.run.suites] == [s.to_json() for s in report.run.suites]
    assert back.summary.to_json() == report.summary.to_json()
    assert back.provenance == report.provenance
    assert back.run.curves == report.run.curves and back.run.series == report.run.series
    assert [c.to_json() for c in back.run.curves] == \
        [json.loads(json.dumps(c.to_json())) for c in report.run.curves]
    # the tree itself, evidence included, not only its flat view
    assert [p.to_json(curves=False) for p in back.run.points] == \
        [json.loads(json.dumps(p.to_json(curves=False))) for p in report.run.points]
    # writing what was read gives the same file
    again = write_results(back, tmp_path / "again.json")
    assert again.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_shared_items_are_written_once(report, tmp_path):
    document = results_document(report)
    assert document["schema"] == 4 and "audits" not in document
    points = {p["audit"]: p for p in document["points"]}
    # the three δ of laplace-grid are read off one test: their two-sample evidence refers to
    # one shared certification (events, counts, method), and the test's claim is shared too
    (test,) = points["laplace-grid"]["tests"]
    assert len(test["certificates"]) == 3
    refs = {json.dumps(c["evidence"][0]["certification"]) for c in test["certificates"]}
    assert len(refs) == 1 and "$shared" in next(iter(refs))
    assert "$shared" in test["claim"]
    assert points["laplace-grid"]["note"] == "three δ read off one test"
    # every shared value is distinct, and every one is referred to
    dumped = [json.dumps(x, sort_keys=True) for x in document["shared"]]
    assert len(set(dumped)) == len(dumped)
    text = json.dumps(document["points"])
    assert all(f'{{"$shared": {i}}}' in text or f'{{"$shared":{i}}}' in text
               or _referred_in_shared(document, i) for i in range(len(document["shared"])))
    written = write_results(document, tmp_path / "r.json").read_text(encoding="utf-8")
    # one point per line: a line-based diff of two runs lines up point by point
    assert len(written.splitlines()) >= len(document["points"]) + len(document["shared"])


def _referred_in_shared(document, index: int) -> bool:
    """Whether shared value ``index`` is referred to from another shared value (a certification
    refers to its statistics)."""
    return any(f'"$shared": {index}}}' in json.dumps(v) for v in document["shared"])


def test_a_schema_3_file_reads_into_the_same_typed_tree():
    old = json.loads(SCHEMA_3.read_text(encoding="utf-8"))
    assert old["schema"] == 3
    rows = read_document(SCHEMA_3)["audits"]
    back = read_report(SCHEMA_3)
    assert len(back.records) == len(rows) == old["summary"]["certificates"] > 0
    assert all(same_row(r.to_json(), row) for r, row in zip(back.records, rows))
    kinds = {(r.notion, e.role, e.kind) for r in back.records for e in r.evidence}
    assert {("dp", "black-box", "two-sample"), ("dp", "white-box", "two-sample"),
            ("rdp", "black-box", "two-sample-renyi"),
            ("rdp", "white-box", "two-sample-renyi")} <= kinds
    assert any(r.floating_point for r in back.records)
    assert any(r.search is not None for r in back.records)
    assert back.summary.to_json() == old["summary"]


@pytest.mark.slow
def test_old_schema_2_files_stay_readable(tmp_path):
    old = json.loads(SCHEMA_2.read_text(encoding="utf-8"))
    assert old["schema"] == 2
    back = read_report(SCHEMA_2)
    assert all(same_row(r.to_json(), row) for r, row in zip(back.records, old["audits"]))
    assert len(back.records) == len(old["audits"])
    assert back.summary.certificates == old["summary"]["certificates"]
    assert back.summary.exit_status == old["summary"]["exit_status"]
    assert [c.get("figure") for c in back.curves_json()] == [c.get("figure")
                                                              for c in old["curves"]]
    # and it converts: written as schema 4, it reads back to the same records
    again = read_report(write_results(back, tmp_path / "results.json"))
    assert [r.to_json() for r in again.records] == [r.to_json() for r in back.records]


def test_an_early_schema_2_file_without_later_fields_is_readable():
    old = json.loads(EARLY_SCHEMA_2.read_text(encoding="utf-8"))
    back = read_report(EARLY_SCHEMA_2)
    assert len(back.records) == len(old["audits"]) > 0
    for record, row in zip(back.records, old["audits"]):
        assert (record.audit, record.verdict, record.epsilon_lower_bound) == \
            (row["audit"], row["verdict"], row["epsilon_lower_bound"])
        assert record.detectable_epsilon is None  # not known then


def test_a_schema_2_document_written_by_this_version_reads_the_same(report, tmp_path):
    legacy = {k: v for k, v in report.to_json().items() if k not in ("points", "shared")}
    legacy["audits"] = [r.to_json() for r in report.records]  # the schema-2 layout
    legacy["schema"] = 2
    path = tmp_path / "legacy.json"
    path.write_text(json.dumps(legacy), encoding="utf-8")
    assert [r.to_json() for r in read_report(path).records] == \
        [r.to_json() for r in report.records]


@pytest.mark.parametrize("content, fragment", [
    (None, "cannot read the results file"),
    ("{not json", "not JSON"),
    ("[1, 2]", "not a dpaudit results.json"),
    ('{"schema": 99}', "results schema 99 is not one this dpaudit reads"),
])
def test_bad_results_files_give_one_line_naming_the_file(tmp_path, content, fragment):
    path = tmp_path / "results.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ResultsFileError) as info:
        read_report(path)
    message = str(info.value)
    assert fragment in message and str(path) in message and "\n" not in message


#: the committed schema-4 reports
COMMITTED = [REPO / "reports" / "example" / "results.json", REPO / "reports" / "sgld" / "results.json",
             REPO / "reports" / "gaussian_mixing" / "audit" / "results.json"]


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.parent.name)
def test_a_committed_schema_4_file_reads_and_writes_back_byte_for_byte(path):
    """Typed points, curves and series read from a committed results.json write exactly that
    file again (its provenance and timings are the file's own)."""
    assert dumps_results(results_document(read_report(path))) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("section, change", [
    ("curves", lambda c: c.pop("pair")),
    ("curves", lambda c: c.update(kind="histogram")),
    ("curves", lambda c: c.update(certified=[[0.1, "lots", None]])),
    ("series", lambda s: s.update(markers=[{"label": "no x"}])),
    ("series", lambda s: s.update(facts="none")),
    ("series", lambda s: s.pop("values")),
])
def test_a_malformed_curve_or_series_is_one_line_naming_the_file(tmp_path, section, change):
    document = json.loads(COMMITTED[1].read_text(encoding="utf-8"))
    change(document[section][0])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsFileError, match="malformed") as info:
        read_report(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_a_broken_reference_is_reported_not_a_traceback(report, tmp_path):
    document = results_document(report)
    test = document["points"][0]["tests"][0]
    test["claim"] = {"$shared": 999}
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsFileError, match="inconsistent"):
        read_document(path)
    with pytest.raises(ResultsFileError, match="malformed"):
        read_report(path)
    document = results_document(report)
    del document["points"][0]["tests"][0]["certificates"][0]["verdict"]
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsFileError, match="malformed"):
        read_report(path)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(report, tmp_path):
    path = write_results(report, tmp_path / "results.json")
    before = path.read_text(encoding="utf-8")
    document = results_document(report)
    document["seconds"] = float("nan")  # JSON cannot hold it: the write must fail
    with pytest.raises(ValueError):
        write_results(document, path)
    assert path.read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


@pytest.mark.parametrize("content", [
    pytest.param("[" * 100_000 + "]" * 100_000, id="the parser runs out of recursion"),
    pytest.param('{"schema": 3, "suites": ' + "[" * 100_000 + "]" * 100_000 + "}",
                 id="a results document, the parser runs out of recursion"),
    pytest.param('{"schema": 3, "suites": ' + "[" * 200 + "]" * 200 + "}",
                 id="parses, then refused by its depth"),
])
def test_deeply_nested_json_is_one_line_naming_the_file(tmp_path, content):
    path = tmp_path / "results.json"
    path.write_text(content, encoding="utf-8")
    for read in (read_document, read_report):
        with pytest.raises(ResultsFileError) as info:
            read(path)
        message = str(info.value)
        assert message.startswith(f"{path}: nested deeper than {MAX_JSON_DEPTH} levels")
        assert "\n" not in message


def nested(levels: int):
    """A JSON value ``levels`` deep: ``[[…[0]…]]``."""
    value = 0
    for _ in range(levels):
        value = [value]
    return value


def test_a_real_results_file_reads_up_to_the_depth_limit_and_not_beyond(report, tmp_path):
    """A value nested in a record's parameters, so the whole document is exactly at the limit
    (read) or one level past it (refused) — a record whose later processing (records,
    rendering) would otherwise walk it recursively."""
    document = results_document(report)
    base = 4  # the document, its "points", the point, its "parameters"
    path = tmp_path / "results.json"
    for levels, readable in ((MAX_JSON_DEPTH - base, True), (MAX_JSON_DEPTH - base + 1, False)):
        document["points"][0]["parameters"]["deep"] = nested(levels)
        assert json_depth(document) == base + levels
        path.write_text(json.dumps(document), encoding="utf-8")
        if readable:
            assert read_report(path).records[0].parameters["deep"] == nested(levels)
        else:
            with pytest.raises(ResultsFileError, match="nested deeper than 100 levels"):
                read_report(path)
