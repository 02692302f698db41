"""junit.xml: one testcase per (audit point, pair), failures for unmet expectations, errors
for errored records and malformed suite files, certificate numbers as properties; counts
consistent at every level; what CI reporters parse (ElementTree and junitparser)."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest

from dpaudit.results.records import SuiteSummary, exit_status
from dpaudit.api import run_suites
from dpaudit.report.json_report import build_report
from dpaudit.report.junit import render_junit, write_junit

SUITE = """
[suite]
name = "tiny"
samples = 2000
seed = 5

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "lap"
mechanism = "laplace"
params = { epsilon = 1.0 }

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
delta = [0.0, 1e-3]

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "missed <bug> & co"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "nan-data"
mechanism = "laplace"
params = { epsilon = 1.0 }
delta = [0.0, 1e-3]
[[audit.pairs]]
name = "nan"
d0 = [nan]
d1 = [1.0]
[[audit.pairs]]
name = "fine"
d0 = [0.0, 0.0]
d1 = [0.0, 0.0, 1.0]
"""

MALFORMED = '[[audit]]\nname = "x"\nmechanism = "laplace"\n"ex<p&ct" = 1\n'


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("junit")
    good, bad = root / "tiny.toml", root / "bad.toml"
    good.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    bad.write_text(MALFORMED, encoding="utf-8")
    run = run_suites([str(good), str(bad)], workers=1)
    return build_report(run, command="test", exit_status=exit_status(run))


def _cases(root: ET.Element) -> dict[str, ET.Element]:
    return {c.get("name"): c for c in root.iter("testcase")}


def test_one_testcase_per_audit_point_and_pair(report):
    root = ET.fromstring(render_junit(report))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["tiny", str(report.run.suites[1].file)]
    cases = _cases(suites[0])
    assert sorted(cases) == sorted(["lap / add-max-record", "bug / add-max-record",
                                    "missed <bug> & co / add-max-record", "nan-data / nan",
                                    "nan-data / fine"])
    assert {c.get("classname") for c in cases.values()} == {"tiny"}
    props = {p.get("name"): p.get("value") for p in suites[0].find("properties")}
    assert int(props["pairs"]) == len(cases)  # a JUnit testcase is a dpaudit pair
    assert int(props["audit_points"]) == len(report.run.points_of(report.run.suites[0]))
    assert int(props["certificates"]) == len(report.records)
    assert int(props["family_size"]) == report.run.suites[0].family_size
    assert int(props["tests"]) == report.run.suites[0].tests
    assert float(props["per_test_confidence"]) == \
        report.run.suites[0].per_certificate_confidence
    pairs = {(r.audit, r.pair_name) for r in report.records}
    assert len(cases) == len(pairs)
    for case in cases.values():
        assert float(case.get("time")) >= 0
    # the two δ records of one (audit, pair) share their task's time: not summed
    bug = [r for r in report.records if r.audit == "bug"]
    assert len(bug) == 2 and bug[0].seconds == bug[1].seconds
    assert cases["bug / add-max-record"].get("time") == f"{bug[0].seconds:.3f}"


def test_properties_carry_every_delta(report):
    cases = _cases(ET.fromstring(render_junit(report)))
    props = {p.get("name"): p.get("value") for p in cases["bug / add-max-record"].iter("property")}
    records = [r for r in report.records if r.audit == "bug"]
    for r in records:
        at = f"delta={r.delta!r}"
        assert float(props[f"{at}:epsilon_lower_bound"]) == r.epsilon_lower_bound
        assert float(props[f"{at}:white_box_epsilon_lower_bound"]) == \
            r.white_box_epsilon_lower_bound
        assert float(props[f"{at}:claimed_epsilon"]) == r.claimed_epsilon == 0.5
        assert float(props[f"{at}:exact_epsilon"]) == r.exact_epsilon
        assert float(props[f"{at}:detectable_epsilon"]) == r.detectable_epsilon
        assert props[f"{at}:verdict"] == "violation"
    assert len(props) == 6 * len(records)


def test_failure_error_and_malformed_suite(report):
    root = ET.fromstring(render_junit(report))
    cases = _cases(root)
    assert cases["lap / add-max-record"].find("failure") is None
    assert cases["bug / add-max-record"].find("failure") is None  # expected violation, met
    failure = cases["missed <bug> & co / add-max-record"].find("failure")
    assert failure is not None and failure.get("type") == "unmet-expectation"
    message = failure.get("message")
    assert message.startswith("expected consistent, got violation")
    missed = next(r for r in report.records if r.audit.startswith("missed"))
    assert f"ε_LB {missed.epsilon_lower_bound:.4g}" in message and "claimed 0.5" in message
    assert " in E " in failure.text and "times" in failure.text  # the certifying event's counts
    # the pair and its two datasets first: the failure is reproducible from the CI log
    d0, d1 = (json.dumps(getattr(missed.pair, k), separators=(",", ":")) for k in ("d0", "d1"))
    assert failure.text.splitlines()[0] == f"pair 'add-max-record' (d0 = {d0}, d1 = {d1})"
    error = cases["nan-data / nan"].find("error")
    assert error is not None and failure is not None
    record = next(r for r in report.records if r.pair_name == "nan")
    assert error.get("message") == record.error and error.text.count("delta=") == 2
    # the other pair of the errored audit point ran, but the point is unmet: a failure
    assert cases["nan-data / fine"].find("error") is None
    assert "got error" in cases["nan-data / fine"].find("failure").get("message")
    malformed = root.findall("testsuite")[1]
    (case,) = malformed.findall("testcase")
    assert "ex<p&ct" in case.find("error").get("message")


def test_counts_match_testcases_at_every_level(report):
    root = ET.fromstring(render_junit(report))
    totals = [0, 0, 0]
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        counts = [len(cases), sum(c.find("failure") is not None for c in cases),
                  sum(c.find("error") is not None for c in cases)]
        assert [int(suite.get(k)) for k in ("tests", "failures", "errors")] == counts
        assert suite.get("skipped") == "0"
        totals = [a + b for a, b in zip(totals, counts)]
    assert [int(root.get(k)) for k in ("tests", "failures", "errors")] == totals == [6, 2, 2]


def test_junitparser_reads_it(report, tmp_path):
    junitparser = pytest.importorskip("junitparser")
    path = write_junit(report, tmp_path / "junit.xml")
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = list(xml)
    assert [s.name for s in suites][0] == "tiny"
    tiny = suites[0]
    assert (tiny.tests, tiny.failures, tiny.errors) == (5, 2, 1)
    results = {c.name: [type(r).__name__ for r in c.result] for c in tiny}
    assert results["missed <bug> & co / add-max-record"] == ["Failure"]
    assert results["nan-data / nan"] == ["Error"]
    assert results["lap / add-max-record"] == []


def test_write_is_atomic_and_complete(report, tmp_path):
    path = tmp_path / "deep" / "junit.xml"
    write_junit(report, path)
    assert path.read_text(encoding="utf-8") == render_junit(report)
    assert [p.name for p in path.parent.iterdir()] == ["junit.xml"]  # no temp file left
    ET.parse(path)


def test_run_without_records_is_valid(tmp_path):
    from dpaudit.results.run import AuditRun

    run = AuditRun(suites=[SuiteSummary.failed("x.toml", "x.toml: cannot read")])
    root = ET.fromstring(render_junit(build_report(run, command="t", exit_status=2)))
    assert [int(root.get(k)) for k in ("tests", "failures", "errors")] == [1, 0, 1]
