"""The result tree (dpaudit.results.hierarchy): audit point → test → certificate, its judgement,
its flat view and its serialisation; RunOptions and the one set of validators."""

import dataclasses
import json
import math

import pytest

from dpaudit.util import validation
from dpaudit.results.hierarchy import (CERTIFICATE_FIELDS, POINT_FIELDS, TEST_FIELDS, AuditPoint,
                                       Certificate, TestResult, points_from_records)
from dpaudit.results.options import PROFILES, RunOptions
from dpaudit.results.hierarchy import VACUOUS
from dpaudit.results.provenance import RecordedPair
from dpaudit.results.records import CertificateRecord, SweepPoint
from dpaudit.results.run import AuditRun, Incomplete
from dpaudit.util.shared_json import SharedValues
from tests.support import FakeEvidence, evidence


def planned(audit="a", index=0, expect="consistent", sweep=None) -> AuditPoint:
    return AuditPoint(suite="s", suite_file="s.toml", audit=audit, audit_index=index,
                      mechanism="laplace", parameters={"epsilon": 1.0},
                      defaulted_parameters={}, expect=expect, confidence=0.95,
                      per_certificate_confidence=0.99, distinguisher="auto", note="",
                      sweep=sweep)


def make_test(pair_index=0, claimed=(1.0, 1.0), bounds=(0.5, 0.7), white=None,
                error=None) -> TestResult:
    if error is not None:
        certificates = tuple(Certificate.failed(notion="dp", delta=d, alpha=None,
                                                claimed_epsilon=c)
                             for d, c in zip((0.0, 1e-5), claimed))
    else:
        certificates = tuple(
            Certificate.measured(notion="dp", delta=d, alpha=None, claimed_epsilon=c,
                                 evidence=evidence(b, w), exact_epsilon=None)
            for d, c, b, w in zip((0.0, 1e-5), claimed, bounds, white or (None, None)))
    return TestResult(pair=RecordedPair(f"p{pair_index}", [0], [1]),
                      pair_index=pair_index, claim={"notion": "pure-dp"}, true_epsilon=None,
                      samples=1000, seed=7 + pair_index, seconds=0.25,
                      warnings=("UserWarning: w (x.py:1)",), error=error,
                      certificates=certificates)


def test_a_certificate_is_judged_from_its_numbers_and_its_bound_is_the_larger_one():
    c = Certificate.measured(notion="dp", delta=0.0, alpha=None, claimed_epsilon=1.0,
                             evidence=evidence(0.4, 1.2), exact_epsilon=1.0)
    assert c.bound == 1.2 and c.verdict == "violation" and c.tightness == 1.2
    assert c.black_box_share == pytest.approx(0.4 / 1.2) and c.exact_verdict == "consistent"
    failed = Certificate.failed(notion="rdp", delta=None, alpha=2.0, claimed_epsilon=0.5)
    assert failed.verdict == "error" and failed.bound is None and failed.tightness is None
    with pytest.raises(ValueError, match="zcdp"):
        Certificate.failed(notion="zcdp", delta=0.0, alpha=None)


def test_a_point_is_judged_by_its_worst_certificate_and_meets_its_expectation():
    point = planned(expect="violation").with_tests(
        [make_test(0), make_test(1, bounds=(1.5, 0.2))]).judged()
    assert point.verdict == "violation" and point.met_expectation
    outcome = point.outcome()
    assert (outcome.verdict, outcome.certificates, outcome.met_expectation) == ("violation", 4,
                                                                               True)
    errored = planned().with_tests([make_test(0), make_test(1, error="E: x")]).judged()
    assert errored.verdict == "error" and not errored.met_expectation


def test_a_vacuous_point_is_an_error_never_a_silent_pass():
    inf = (math.inf, math.inf)
    point = planned().with_tests([make_test(0, claimed=inf)]).judged()
    assert point.verdict == "error"
    assert all(t.error == VACUOUS for t in point.tests)
    assert all(c.verdict == "error" and c.tightness is None for _, c in point.certificates())
    mixed = planned().with_tests([make_test(0, claimed=(1.0, math.inf))]).judged()
    assert mixed.verdict == "consistent"


def test_flattening_equals_the_record_rules_and_points_from_records_inverts_it():
    points = [planned("a", 0).with_tests([make_test(0), make_test(1, white=(0.9, 1.1))]),
              planned("b", 1, sweep=SweepPoint("epsilon", 2.0, 1)).with_tests(
                  [make_test(0, error="RuntimeError: boom")])]
    judged = [p.judged() for p in points]
    records = [r for p in judged for r in p.records()]
    assert [r.audit_verdict for r in records] == ["violation"] * 4 + ["error"] * 2
    assert not any(r.met_expectation for r in records)
    assert [r.error for r in records] == [None] * 4 + ["RuntimeError: boom"] * 2
    assert points_from_records(records) == judged
    run = AuditRun.from_records(records)
    assert run.points == judged and run.records == records
    assert [o.audit for o in run.outcomes] == ["a", "b"]


def test_the_tree_round_trips_through_json_with_and_without_a_shared_table():
    from dpaudit.results.evidence_kinds import register_evidence

    register_evidence(FakeEvidence)
    point = planned("a", 0).with_tests([make_test(0, white=(0.9, 1.1)),
                                        make_test(1, error="E: x")]).judged()
    assert AuditPoint.from_json(json.loads(json.dumps(point.to_json()))) == point
    shared = SharedValues()
    data = json.loads(json.dumps(point.to_json(shared)))
    assert data["tests"][0]["claim"] == {"$shared": 0}  # claims are written once
    assert AuditPoint.from_json(data, SharedValues(shared.to_json())) == point


def test_the_three_levels_partition_the_flat_record():
    names = [f.name for f in dataclasses.fields(CertificateRecord)]
    levels = [*POINT_FIELDS, *TEST_FIELDS, *CERTIFICATE_FIELDS, "audit_verdict"]
    assert sorted(levels) == sorted(names) and len(set(levels)) == len(levels)


def test_a_test_result_round_trips_through_json_with_infinities():
    from dpaudit.results.evidence_kinds import register_evidence

    register_evidence(FakeEvidence)
    result = make_test(0, claimed=(math.inf, 1.0), bounds=(0.5, math.inf))
    text = json.dumps(result.to_json(), allow_nan=False)
    assert '"inf"' in text
    assert TestResult.from_json(json.loads(text)) == result
    with pytest.raises(KeyError):
        TestResult.from_json({k: v for k, v in result.to_json().items() if k != "seed"})


def test_run_options_are_valid_by_construction():
    options = RunOptions(samples=2000, profile="quick", seed=3, only=["a*"],
                         memory_limit="1GiB")
    assert options.only == ("a*",) and options.memory_limit == 1 << 30
    assert options.scale == PROFILES["quick"]
    for bad, match in ((dict(profile="fast"), "unknown profile 'fast'"),
                       (dict(samples=10), r"samples must be an integer in \[1000, 1e\+12\]"),
                       (dict(samples=True), "samples must be"),
                       (dict(seed=-1), "seed must be a non-negative integer"),
                       (dict(seed=1.5), "seed must be a non-negative integer"),
                       (dict(only="a*"), "only: expected a sequence"),
                       (dict(memory_limit="lots"), "memory_limit: expected a memory size")):
        with pytest.raises(ValueError, match=match):
            RunOptions(**bad)


def test_the_validators_share_one_floor():
    assert validation.samples("samples", validation.MIN_SAMPLES) == 1000
    assert validation.samples("samples", 2.0e3) == 2000
    with pytest.raises(ValueError, match=r"n must be an integer in \[1000"):
        validation.samples("n", 999)
    assert validation.seed("seed", 2**70) == 2**70
    for bad in (True, -3, 1.0, "1"):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            validation.seed("seed", bad)
    assert validation.confidence("confidence", 0.95) == 0.95
    for bad in (0, 1, 1.5, float("nan"), "0.9"):
        with pytest.raises(ValueError, match="confidence must be"):
            validation.confidence("confidence", bad)


def test_incomplete_names_its_signal():
    assert Incomplete("interrupted by SIGTERM", 1, 3).signal == "SIGTERM"
    assert Incomplete("in progress", 0, 3).signal is None
