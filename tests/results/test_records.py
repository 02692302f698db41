"""Typed audit records (dpaudit.results.records): built once with their verdict, judged per
audit without mutation, serialised to exactly the results.json entries the shipped JSON Schema
(draft 2020-12) describes."""

from __future__ import annotations

import dataclasses
import json
import math

import jsonschema
import pytest

from dpaudit.results.records import (SCHEMA_2_FILE, SCHEMA_FILE, AuditOutcome, CertificateRecord,
                                   SuiteSummary, SweepPoint, exit_status, judge)
from dpaudit.cli.commands import main
from dpaudit.report.compact import OPTIONAL_POINT_FIELDS, POINT_FIELDS
from dpaudit.report.results_file import read_document

def schema(path=SCHEMA_FILE) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def untimed(value):
    """``value`` without timings (any key naming seconds) and warnings."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if "seconds" not in k and k != "warnings"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def common(**extra) -> dict:
    fields = dict(suite="s", suite_file="s.toml", audit="a", audit_index=0, mechanism="laplace",
                  parameters={"epsilon": 1.0}, defaulted_parameters={}, pair={"name": "p", "d0": [0], "d1": [1],
                                                     "description": ""},
                  pair_index=0, notion="dp", delta=0.0, alpha=None, expect="consistent",
                  samples=1000, seed=1, confidence=0.95, per_certificate_confidence=0.99,
                  distinguisher="auto", note="", sweep=None)
    fields.update(extra)
    return fields


def test_schema_is_valid_draft_2020_12_and_names_every_record_field():
    doc = schema()
    jsonschema.Draft202012Validator.check_schema(doc)
    jsonschema.Draft202012Validator.check_schema(schema(SCHEMA_2_FILE))
    # schema 3 splits a record into its point's fields and the certificate's own
    point, certificate = doc["$defs"]["point"], doc["$defs"]["certificate"]
    names = [f.name for f in dataclasses.fields(CertificateRecord)]
    assert list(point["properties"]) == list(POINT_FIELDS)
    # files written before a point field existed lack it: it is not required
    assert point["required"] == [n for n in POINT_FIELDS if n not in OPTIONAL_POINT_FIELDS]
    assert certificate["required"] == ["point"] + [n for n in names if n not in POINT_FIELDS]
    assert (set(point["required"]) | set(certificate["required"]) | OPTIONAL_POINT_FIELDS
            == set(names) | {"point"})
    outcome = doc["$defs"]["auditOutcome"]
    assert list(outcome["properties"]) == [f.name for f in dataclasses.fields(AuditOutcome)]


def test_record_verdict_is_computed_once_from_its_numbers():
    r = CertificateRecord.create(**common(), claimed_epsilon=1.0, epsilon_lower_bound=1.2,
                                 white_box_epsilon_lower_bound=1.5, exact_epsilon=math.inf)
    assert (r.verdict, r.exact_verdict) == ("violation", "violation")
    assert r.tightness == pytest.approx(1.5) and r.black_box_share == pytest.approx(0.8)
    assert r.audit_verdict is None and r.met_expectation is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.verdict = "consistent"
    failed = CertificateRecord.create(**common(), claimed_epsilon=1.0, epsilon_lower_bound=3.0,
                                      error="RuntimeError: boom")
    assert failed.verdict == "error" and failed.tightness is None
    with pytest.raises(ValueError):
        CertificateRecord.create(**common())  # no error and no numbers: no verdict
    doc = r.to_json()
    assert doc["exact_epsilon"] == "inf" and doc["sweep"] is None and doc["warnings"] == []
    assert list(doc) == [f.name for f in dataclasses.fields(CertificateRecord)]


def test_judge_returns_new_records_and_one_outcome_per_point():
    point = SweepPoint("epsilon", 2.0, 1)
    rows = [CertificateRecord.create(**common(sweep=point, delta=d), claimed_epsilon=1.0,
                                     epsilon_lower_bound=b) for d, b in ((0.0, 0.5), (0.1, 1.5))]
    rows.append(CertificateRecord.create(**common(audit_index=1, audit="b"),
                                         claimed_epsilon=1.0, epsilon_lower_bound=0.2))
    judged, outcomes = judge(rows)
    assert [r.audit_verdict for r in judged] == ["violation", "violation", "consistent"]
    assert [r.met_expectation for r in judged] == [False, False, True]
    assert rows[0].audit_verdict is None  # the inputs are untouched
    assert [(o.audit, o.verdict, o.certificates, o.sweep) for o in outcomes] == \
        [("a", "violation", 2, point), ("b", "consistent", 1, None)]
    assert outcomes[0].to_json()["sweep"] == {"parameter": "epsilon", "value": 2.0, "index": 1}
    ok = SuiteSummary(file="s.toml", name="s", confidence=0.95, family_size=2,
                      per_certificate_confidence=0.975, seed=0, audits=2, points=2, series=0)
    run = type("Run", (), {"suites": [ok], "records": judged, "outcomes": outcomes,
                           "series": []})
    assert exit_status(run) == 1
    run.series = [{"name": "figure", "error": "ValueError: unknown quantity 'separatoin'"}]
    assert exit_status(run) == 2  # a series typo is an error, not a pass
    run.series = []
    run.suites = [ok, SuiteSummary.failed("bad.toml", "bad.toml: not valid TOML")]
    assert exit_status(run) == 2
    assert "points" in ok.to_json() and "points" not in run.suites[1].to_json()


def test_an_audit_whose_claim_promises_nothing_is_an_error_not_a_pass():
    """A Gaussian claim at δ = 0 is ε = ∞: no bound can contradict it, so the point is an
    error saying so; one finite δ in the grid is enough for the audit to test something."""
    vacuous = [CertificateRecord.create(**common(delta=0.0), claimed_epsilon=math.inf,
                                        epsilon_lower_bound=0.7)]
    judged, (outcome,) = judge(vacuous)
    assert outcome.verdict == "error" and judged[0].verdict == "error"
    assert "vacuous audit" in judged[0].error and "delta" in judged[0].error
    mixed = vacuous + [CertificateRecord.create(**common(delta=1e-5), claimed_epsilon=1.0,
                                                epsilon_lower_bound=0.7)]
    judged, (outcome,) = judge(mixed)
    assert outcome.verdict == "consistent" and judged[0].error is None


@pytest.mark.slow
def test_results_json_of_a_real_run_validates_against_the_schema(shapes_suite, shapes_run,
                                                                 tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(shapes_suite), "--out", str(out), "--workers", "1"]) == 2  # bad-pair
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)
    assert document["schema"] == 3
    records = read_document(out / "results.json")["audits"]
    assert {r["notion"] for r in records} == {"dp", "rdp"}
    assert any(r["sweep"] for r in records) and any(r["verdict"] == "error" for r in records)
    assert any(c.get("kind") == "sweep" for c in document["curves"])
    # what the runner holds serialises to exactly those entries
    run = shapes_run
    assert [r.to_json()["seed"] for r in run.records] == [r["seed"] for r in records]
    assert [untimed(r.to_json()) for r in run.records] == [untimed(r) for r in records]
    broken = json.loads(json.dumps(document))
    broken["certificates"][0]["verdict"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema(), cls=jsonschema.Draft202012Validator)


def test_a_schema_2_file_validates_against_the_shipped_schema_2():
    path = SCHEMA_FILE.parents[2] / "tests" / "data" / "results-schema2-classic.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(document, schema(SCHEMA_2_FILE), cls=jsonschema.Draft202012Validator)


def test_committed_example_report_validates_against_the_schema():
    example = SCHEMA_FILE.parents[2] / "reports" / "example" / "results.json"
    document = json.loads(example.read_text(encoding="utf-8"))
    path = SCHEMA_FILE if document["schema"] == 3 else SCHEMA_2_FILE
    jsonschema.validate(document, schema(path), cls=jsonschema.Draft202012Validator)
