"""Typed audit records (dpaudit.results.records): flattened from the judged result tree,
never mutated; results.json (schema 4) is the tree the shipped JSON Schema (draft 2020-12)
describes, and the schemas of the files dpaudit still reads (3 and 2) ship beside it."""

from __future__ import annotations

import dataclasses
import json
import math
from types import SimpleNamespace

import jsonschema
import pytest

from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document
from dpaudit.results.hierarchy import AuditPoint, Certificate, TestResult
from dpaudit.results.provenance import Coverage, RecordedPair, SearchProvenance
from dpaudit.results.records import (SCHEMA_2_FILE, SCHEMA_3_FILE, SCHEMA_FILE, AuditOutcome,
                                     SuiteSummary, SweepPoint, exit_status)
from dpaudit.results.run import AuditRun
from tests.support import evidence


def schema(path=SCHEMA_FILE) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def untimed(value):
    """``value`` without timings (any key naming seconds) and warnings."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if "seconds" not in k and k != "warnings"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def point(audit="a", audit_index=0, sweep=None) -> AuditPoint:
    return AuditPoint(suite="s", suite_file="s.toml", audit=audit, audit_index=audit_index,
                      mechanism="laplace", parameters={"epsilon": 1.0}, defaulted_parameters={},
                      expect="consistent", confidence=0.95, per_certificate_confidence=0.99,
                      distinguisher="auto", note="", sweep=sweep)


def test(*certificates, error=None) -> TestResult:
    return TestResult(pair=RecordedPair("p", [0], [1]), pair_index=0, claim=None,
                      true_epsilon=None, samples=1000, seed=1, seconds=0.0, warnings=(),
                      error=error, certificates=certificates)


test.__test__ = False


def dp(delta=0.0, *, claimed_epsilon, black=None, white=None, exact=None) -> Certificate:
    return Certificate.measured(notion="dp", delta=delta, alpha=None,
                                claimed_epsilon=claimed_epsilon,
                                evidence=evidence(black, white), exact_epsilon=exact)


@pytest.mark.slow
def test_the_schemas_are_valid_draft_2020_12_and_name_every_field_of_the_tree():
    doc = schema()
    for path in (SCHEMA_FILE, SCHEMA_3_FILE, SCHEMA_2_FILE):
        jsonschema.Draft202012Validator.check_schema(schema(path))
    defs = doc["$defs"]
    from dpaudit.results import hierarchy

    # every field a point, a test and a certificate write is in the schema, and required
    p = point().with_tests([test(dp(claimed_epsilon=1.0, black=0.5))]).judged()
    written = p.to_json(curves=False)  # as results.json holds it
    assert set(defs["point"]["required"]) == set(written)
    assert set(defs["test"]["required"]) == set(written["tests"][0])
    assert set(defs["test"]["properties"]) == set(written["tests"][0]) | {"curve"}
    assert set(defs["certificate"]["required"]) == set(written["tests"][0]["certificates"][0])
    # what is not written is derived again when read (the verdict rules)
    derived = {"exact_verdict", "tightness", "black_box_share"}
    assert set(hierarchy.CERTIFICATE_FIELDS) - {"evidence"} - derived < \
        set(defs["certificate"]["required"])
    outcome = defs["auditOutcome"]
    assert list(outcome["properties"]) == [f.name for f in dataclasses.fields(AuditOutcome)]


def test_record_verdict_is_computed_once_from_its_numbers():
    c = dp(claimed_epsilon=1.0, black=1.2, white=1.5, exact=math.inf)
    (r,) = point().with_tests([test(c)]).records()
    assert (r.verdict, r.exact_verdict) == ("violation", "violation")
    assert r.tightness == pytest.approx(1.5) and r.black_box_share == pytest.approx(0.8)
    assert (r.epsilon_lower_bound, r.white_box_epsilon_lower_bound) == (1.2, 1.5)
    assert r.audit_verdict is None and r.met_expectation is False  # not judged yet
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.verdict = "consistent"
    failed = Certificate.failed(notion="dp", delta=0.0, alpha=None, claimed_epsilon=1.0,
                                evidence=evidence(3.0))
    (f,) = point().with_tests([test(failed, error="RuntimeError: boom")]).records()
    assert f.verdict == "error" and f.tightness is None and f.epsilon_lower_bound == 3.0
    doc = r.to_json()  # the flat row, in schema 2's layout
    assert doc["exact_epsilon"] == "inf" and doc["sweep"] is None and doc["warnings"] == []
    assert doc["epsilon_lower_bound"] == 1.2 and doc["white_box_epsilon_lower_bound"] == 1.5
    # coverage, a searched pair's provenance, the stopping rule, the rounds and the power
    # verdict are written only when known
    assert not {"coverage", "search", "power", "sequential", "underpowered"} & set(doc)
    searched = dataclasses.replace(
        r, coverage=Coverage(None, False, None),
        search=SearchProvenance(1, "random", 0.5, 0.4, True, 16, 0, 2000))
    assert searched.to_json()["search"]["rank"] == 1 and "coverage" in searched.to_json()


@pytest.mark.parametrize("black, white, bound", [
    (1.2, 1.5, 1.5),        # white-box above black-box
    (1.5, 1.2, 1.5),        # black-box above white-box
    (0.7, None, 0.7),       # no white-box test
    (None, 0.4, 0.4),       # an errored test that kept only a white-box number
    (None, None, None),     # nothing measured
    (2.0, math.inf, math.inf),
])
def test_bound_is_the_larger_of_the_black_and_white_box_bounds(black, white, bound):
    certificate = Certificate.failed(notion="dp", delta=0.0, alpha=None,
                                     evidence=evidence(black, white))
    (record,) = point().with_tests([test(certificate, error="E: kept")]).records()
    assert record.bound == bound and certificate.bound == bound


def test_the_verdict_compares_the_bound_with_the_claim():
    # black-box alone is below the claim; only the white-box bound (the larger) certifies
    (r,) = point().with_tests([test(dp(claimed_epsilon=1.0, black=0.9,
                                       white=1.1))]).records()
    assert r.bound == 1.1 and r.verdict == "violation"
    assert r.tightness == pytest.approx(r.bound / r.claimed_epsilon)
    with pytest.raises(ValueError, match="at least one piece of evidence"):
        dp(claimed_epsilon=1.0)


def test_judging_returns_new_points_and_one_outcome_per_point():
    swept = SweepPoint("epsilon", 2.0, 1)
    unjudged = [point(sweep=swept).with_tests([test(
                    dp(0.0, claimed_epsilon=1.0, black=0.5),
                    dp(0.1, claimed_epsilon=1.0, black=1.5))]),
                point("b", 1).with_tests([test(dp(claimed_epsilon=1.0, black=0.2))])]
    run = AuditRun(points=[p.judged() for p in unjudged])
    assert [r.audit_verdict for r in run.records] == ["violation", "violation", "consistent"]
    assert [r.met_expectation for r in run.records] == [False, False, True]
    assert unjudged[0].verdict is None  # the inputs are untouched
    assert [(o.audit, o.verdict, o.certificates, o.sweep) for o in run.outcomes] == \
        [("a", "violation", 2, swept), ("b", "consistent", 1, None)]
    assert run.outcomes[0].to_json()["sweep"] == {"parameter": "epsilon", "value": 2.0,
                                                  "index": 1}
    ok = SuiteSummary(file="s.toml", name="s", confidence=0.95, family_size=2,
                      per_certificate_confidence=0.975, seed=0, audits=2, points=2, series=0)
    run = dataclasses.replace(run, suites=[ok])
    assert exit_status(run) == 1
    failing = dataclasses.replace(
        run, series=[SimpleNamespace(name="figure",
                                     error="ValueError: unknown quantity 'separatoin'")])
    assert exit_status(failing) == 2  # a series typo is an error, not a pass
    broken = dataclasses.replace(run, suites=[ok, SuiteSummary.failed("bad.toml",
                                                                      "bad.toml: not valid TOML")])
    assert exit_status(broken) == 2
    assert "points" in ok.to_json() and "points" not in broken.suites[1].to_json()


def test_an_audit_whose_claim_promises_nothing_is_an_error_not_a_pass():
    """A Gaussian claim at δ = 0 is ε = ∞: no bound can contradict it, so the point is an
    error saying so; one finite δ in the grid is enough for the audit to test something."""
    vacuous = dp(0.0, claimed_epsilon=math.inf, black=0.7)
    judged = point().with_tests([test(vacuous)]).judged()
    (record,) = judged.records()
    assert judged.outcome().verdict == "error" and record.verdict == "error"
    assert "vacuous audit" in record.error and "delta" in record.error
    mixed = point().with_tests([test(vacuous, dp(1e-5, claimed_epsilon=1.0,
                                                 black=0.7))]).judged()
    assert mixed.outcome().verdict == "consistent" and mixed.records()[0].error is None


@pytest.mark.slow
def test_results_json_of_a_real_run_validates_against_the_schema(shapes_suite, shapes_run,
                                                                 tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(shapes_suite), "--out", str(out), "--workers", "1"]) == 2  # bad-pair
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema(), cls=jsonschema.Draft202012Validator)
    assert document["schema"] == 4
    records = read_document(out / "results.json")["audits"]
    assert {r["notion"] for r in records} == {"dp", "rdp"}
    assert any(r["sweep"] for r in records) and any(r["verdict"] == "error" for r in records)
    assert any(c.get("kind") == "sweep" for c in document["curves"])
    # what the runner holds reads back as exactly those rows
    run = shapes_run
    assert [r.to_json()["seed"] for r in run.records] == [r["seed"] for r in records]
    assert [untimed(r.to_json()) for r in run.records] == [untimed(r) for r in records]
    broken = json.loads(json.dumps(document))
    broken["points"][0]["tests"][0]["certificates"][0]["verdict"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema(), cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("name, path", [("results-schema2-classic.json", SCHEMA_2_FILE),
                                        ("results-schema3-fixture.json", SCHEMA_3_FILE)])
def test_older_files_validate_against_their_shipped_schemas(name, path):
    data = SCHEMA_FILE.parents[2] / "tests" / "data" / name
    document = json.loads(data.read_text(encoding="utf-8"))
    jsonschema.validate(document, schema(path), cls=jsonschema.Draft202012Validator)


def test_committed_example_report_validates_against_the_schema():
    example = SCHEMA_FILE.parents[2] / "reports" / "example" / "results.json"
    document = json.loads(example.read_text(encoding="utf-8"))
    path = {4: SCHEMA_FILE, 3: SCHEMA_3_FILE, 2: SCHEMA_2_FILE}[document["schema"]]
    jsonschema.validate(document, schema(path), cls=jsonschema.Draft202012Validator)
