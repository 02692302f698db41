"""The canary audit as a procedure of the seam (kind = "canary"): one member of the suite's
family, certified at the point's per-test confidence, its options checked while the suite is
planned, its evidence in results.json, summary.md, report.html (with its figure), junit.xml,
``dpaudit diff``, the Python API and the pytest fixture."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpaudit.api import audit_mechanism
from dpaudit.audit.plan import plan_suite
from dpaudit.audit.procedures.canary import CanaryTask
from dpaudit.audit.procedures.pair import PairTask
from dpaudit.audit.run import judged_points
from dpaudit.backends.local import LocalBackend
from dpaudit.claims import GDP
from dpaudit.claims.conversions import gdp_to_dp_epsilon
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.canaries import CanaryEvidence
from dpaudit.mechanisms.canaries.source import CanaryRuns, CanarySource
from dpaudit.results.evidence_kinds import evidence_class, evidence_from_json
from dpaudit.suite.spec import SuiteError, parse_suite

pytest.importorskip("dp_accounting")  # the dpsgd family's Poisson claim

DETERMINISTIC = {"n": 1000, "batch_size": 10, "noise_multiplier": 0.8}
EXACT = gdp_to_dp_epsilon(1.25, 1e-3)  # the deterministic pipeline's ε at δ = 1e-3 (4.145)


def canary_row(name, options=None, **extra):
    return {"name": name, "kind": "canary", "mechanism": "dpsgd-deterministic",
            "params": dict(DETERMINISTIC), "delta": 1e-3,
            "options": {"canaries": 2000, **(options or {})}, **extra}


def suite(*audits, seed=5):
    return parse_suite({"suite": {"name": "canaries", "seed": seed, "samples": 20_000},
                        "audit": list(audits)}, "canaries.toml")


def run(s, workers=1):
    tasks, info = plan_suite(s)
    results, _ = LocalBackend(workers).run(tasks, [])
    return tasks, info, judged_points(tasks, results)


@pytest.mark.slow
def test_one_family_member_at_the_per_test_confidence_and_the_seed_of_its_name():
    s = suite({"name": "pair", "mechanism": "laplace", "params": {"epsilon": 1.0},
               "search": False},
              canary_row("poisson-claim", expect="violation"),
              canary_row("own-claim", params={**DETERMINISTIC, "accountant": "gaussian"}))
    tasks, info, points = run(s)
    assert [type(t) for t in tasks] == [PairTask, CanaryTask, CanaryTask]
    assert info.tests == info.family_size == 4  # pair: black- + white-box; 1 per canary audit
    assert [t.tests for t in tasks] == [2, 1, 1]
    for task, point in zip(tasks[1:], points[1:]):
        (test,) = point.tests
        assert test.procedure == "canary" and test.family_members == 1 and test.error is None
        assert test.samples == task.samples == 2000 and test.pair is None
        (certificate,) = test.certificates
        (evidence,) = certificate.evidence
        assert isinstance(evidence, CanaryEvidence) and evidence.certified
        # the plan holds at the share the suite handed the test, with the task's seed
        assert evidence.plan["confidence"] == point.per_certificate_confidence == 1 - 0.05 / 4
        assert evidence.plan["seed"] == task.seed == test.seed
        assert certificate.bound == evidence.bound
    poisson, own = points[1], points[2]
    assert poisson.verdict == "violation" and poisson.met_expectation  # one run finds it
    claimed = own.tests[0].certificates[0].claimed_epsilon
    assert claimed == pytest.approx(EXACT) and own.verdict == "consistent"
    # one run at δ = 1e-3 ≥ the tests' level: no sound ε(δ) > 0 exists (a mechanism revealing
    # every canary with probability δ is (0, δ)-DP); the evidence says so, and its GDP
    # figure — labelled, not the ε_LB — is below the truth
    (evidence,) = own.tests[0].certificates[0].evidence
    assert evidence.bound == 0 and "no one-run test at that level" in evidence.describe()
    fdp = next(r for r in evidence.results if r.statistic == "one-run-fdp")
    assert 0.5 < fdp.family.epsilon < EXACT and fdp.family.mu < 1.25
    # adding an audit leaves every other seed alone (seeds depend on names only)
    again, _, _ = run(suite(canary_row("poisson-claim", expect="violation")))
    assert again[0].seed == tasks[1].seed


@pytest.mark.slow  # two worker processes
def test_the_numbers_do_not_depend_on_the_workers():
    s = suite(canary_row("a"), canary_row("b", options={"runs": 2}))
    _, _, one = run(s, workers=1)
    _, _, two = run(s, workers=2)
    for p, q in zip(one, two):
        assert ([c.evidence[0].to_json() for _, c in p.certificates()]
                == [c.evidence[0].to_json() for _, c in q.certificates()])
    assert one[1].tests[0].samples == 4000  # m × R


def test_a_stated_claim_replaces_the_mechanisms_own():
    (point,) = run(suite(canary_row("stated", claim={"notion": "gdp", "mu": 1.25})))[2]
    (certificate,) = point.tests[0].certificates
    assert certificate.claimed_epsilon == pytest.approx(EXACT) and point.verdict == "consistent"
    assert point.tests[0].claim["notion"] == "gdp"


@pytest.mark.parametrize("row, message", [
    (canary_row("x", options={"canaries": 1}), r"options: canaries must be"),
    (canary_row("x", options={"statistics": ["one-run-fpd"]}),
     r"unknown statistic 'one-run-fpd'.*did you mean 'one-run-fdp'"),
    (canary_row("x", options={"runs": 3, "looks": [1, 2]}), r"options: looks must"),
    (canary_row("x", options={"two_sided": "yes"}), r"two_sided must be true or false"),
    (canary_row("x", options={"view": "final"}),
     r"options: 'view' is not an option of DeterministicABLQ's canary runs"),
    (canary_row("x", delta=[1e-3, 1e-5]), r"delta: a canary audit certifies ε at one δ"),
    ({**canary_row("x"), "mechanism": "laplace", "params": {}},
     r"kind: laplace has no canary runs"),
    ({**canary_row("x"), "pairs": [{"d0": [0.0], "d1": [1.0]}]}, r"pairs: a canary audit"),
])
def test_bad_options_refuse_the_file_naming_the_key(row, message):
    with pytest.raises(SuiteError, match=message) as info:
        plan_suite(suite(row))
    assert "canaries.toml: audit 'x'" in str(info.value)


class _Runs(CanaryRuns, Mechanism):
    """A stand-in training: Gaussian canary scores (shift ``mu``) or a broken run."""

    name = "stand-in"
    canary_options = {"behaviour": ("ok", "raise", "short")}

    def canary_source(self, plan, options):
        behaviour = options.get("behaviour", "ok")

        def run(index, bits):
            if behaviour == "raise":
                raise RuntimeError("CUDA out of memory\nsecond line")
            rng = np.random.default_rng(index)
            scores = 3.0 * np.asarray(bits) + rng.standard_normal(len(bits))
            return scores[:10] if behaviour == "short" else scores

        return CanarySource(run, lambda: GDP(0.5), "stand-in scores")

    def claim(self):  # what the training reports (the source's claim) comes first
        return GDP(100.0)

    def sample(self, dataset, n, rng):
        raise AssertionError("never sampled")

    def worst_case_pairs(self):
        return []


def test_the_api_and_a_failing_training_are_one_line_and_the_others_go_on():
    ok = audit_mechanism(_Runs(), kind="canary", options={"canaries": 500}, delta=1e-5,
                         expect="violation", seed=1)
    assert ok.verdict == "violation" and ok.met_expectation  # 3-shifted scores vs 0.5-GDP
    claimed = ok.records[0].claimed_epsilon
    assert claimed == pytest.approx(gdp_to_dp_epsilon(0.5, 1e-5))  # the source's, not GDP(100)
    assert ok.epsilon_lower_bound > claimed
    assert "canary audit, 500 canaries in 1 run" in ok.explain()
    for behaviour, message in (("raise", "CanaryError: run 0: the training raised "
                                         "RuntimeError: CUDA out of memory"),
                               ("short", "CanaryError: run 0: the training returned scores "
                                         "of shape (10,), expected (500,): one score per canary")):
        bad = audit_mechanism(_Runs(), kind="canary", delta=1e-5,
                              options={"canaries": 500, "behaviour": behaviour})
        (test,) = bad.points[0].tests
        assert bad.verdict == "error" and test.error == message


@pytest.mark.slow
def test_every_report_carries_the_evidence(tmp_path):
    pytest.importorskip("matplotlib")
    from dpaudit.cli.commands import main
    from dpaudit.report.results_file import read_report

    path = tmp_path / "canaries.toml"
    path.write_text('''
[suite]
name = "canaries"
seed = 5

[[audit]]
name = "poisson-claim"
kind = "canary"
mechanism = "dpsgd-deterministic"
params = { n = 1000, batch_size = 10, noise_multiplier = 0.8 }
delta = 1e-3
options = { canaries = 2000 }
expect = "violation"
''', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (evidence,) = document["points"][0]["tests"][0]["certificates"][0]["evidence"]
    assert evidence["kind"] == "canary" and evidence["violation"]
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.results.records import SCHEMA_FILE

    jsonschema.validate(document, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")),
                        cls=jsonschema.Draft202012Validator)
    report = read_report(out / "results.json")  # typed again, through the evidence table
    (test,) = report.run.points[0].tests
    back = test.certificates[0].evidence[0]
    assert isinstance(back, CanaryEvidence) and back.bound == evidence["bound"]
    text = back.describe()
    assert text in (out / "summary.md").read_text(encoding="utf-8") or \
        f"{evidence['bound']:.4g}" in (out / "summary.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "included canaries" in html and text.split(":")[0] in html  # the figure, captioned
    assert "detected as expected: one-run-fdp rejects the claim" in html  # the verdict's why
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert 'name="poisson-claim / canary"' in junit
    # one run at δ = 1e-3: ε_LB (any mechanism) is below the claim, the verdict the rejection
    # of the Poisson claim's curve — every report says why beside the bound, never
    # "ε_LB > claimed"
    from dpaudit.audit.progress import format_progress
    from dpaudit.report.explain import explain_record

    (record,) = report.run.records
    reason = "one-run-fdp rejects the claim's trade-off curve: "
    assert record.verdict == "violation" and record.bound <= record.claimed_epsilon
    assert record.rejection_reason.startswith(reason)
    assert reason in (out / "summary.md").read_text(encoding="utf-8")
    from dpaudit.report.junit import _numbers  # what a failing testcase's message says

    assert f"→ violation: {reason}" in _numbers(test.certificates[0])
    explained = explain_record(record)
    assert "VIOLATION: ε_LB = " in explained and " ≤ claimed ε = " in explained
    assert f"the claim is rejected: {reason}" in explained
    assert reason in format_progress(record)
    diff = tmp_path / "diff.md"
    assert main(["diff", str(out / "results.json"), str(out / "results.json"),
                 "--out", str(diff)]) == 0
    assert "no regression" in diff.read_text(encoding="utf-8")


def test_the_api_result_says_why_a_violation_is_not_above_the_bound():
    """δ = 3·10⁻³ with 500 canaries: 50 of 50 guesses reject the 0.5-GDP claim's curve, while
    no ε(δ) > 0 holds for every mechanism at that δ and level — the API's record and text say
    "ε_LB = 0 ≤ claimed" and why the claim is rejected (before, the GDP family's 3.3 was
    printed as the certified ε_LB)."""
    result = audit_mechanism(_Runs(), kind="canary", options={"canaries": 500}, delta=3e-3,
                             seed=1, expect="violation")
    (record,) = result.records
    assert result.verdict == "violation" and result.epsilon_lower_bound == 0
    assert record.rejection_reason.startswith("one-run-fdp rejects the claim's trade-off "
                                              "curve: 50 of 50 guesses correct")
    text = result.explain()
    assert "VIOLATION: ε_LB = 0 ≤ claimed ε = 1.16" in text
    assert "(ε(δ) ≥ 3.343 if the curve is Gaussian)" in text  # the family figure, labelled


def test_the_evidence_kind_is_registered_and_round_trips():
    assert evidence_class("canary") is CanaryEvidence
    result = audit_mechanism(_Runs(), kind="canary", options={"canaries": 200}, delta=1e-5,
                             seed=2)
    evidence = result.points[0].tests[0].certificates[0].evidence[0]
    again = evidence_from_json(json.loads(json.dumps(evidence.to_json())))
    assert again == evidence and again.describe() == evidence.describe()
