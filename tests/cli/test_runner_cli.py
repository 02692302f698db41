"""The CLI end to end: `dpaudit list`, `dpaudit run` (reports, exit codes 0/1/2, errors that do
not stop other audits, results independent of the number of workers), and one real
subprocess call.  Runs in-process through ``dpaudit.cli.commands(argv)`` wherever possible."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document

SAMPLES = 20000

GOOD = f"""
[suite]
name = "tiny"
samples = {SAMPLES}
seed = 5

[[audit]]
name = "laplace-eps1"
mechanism = "laplace"
params = {{ epsilon = 1.0 }}

[[audit]]
name = "scale-bug"
mechanism = "laplace-scale-epsilon"
params = {{ epsilon = 0.5 }}
expect = "violation"
note = "scale ε instead of 1/ε"
"""

RECORD_KEYS = {"suite", "audit", "mechanism", "parameters", "claim", "pair", "delta",
               "claimed_epsilon", "epsilon_lower_bound", "exact_epsilon", "true_epsilon",
               "verdict", "expect", "met_expectation", "tightness", "samples", "seed",
               "seconds", "confidence", "per_certificate_confidence", "certificate", "error",
               "note"}
TOP_KEYS = {"dpaudit_version", "created", "command", "python", "numpy", "scipy", "suites",
            "audits", "summary"}


def write(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def load(out: Path) -> dict:
    return read_document(out / "results.json")


# -- dpaudit list -----------------------------------------------------------------------------

@pytest.mark.slow
def test_list_text(capsys):
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    for name in ("laplace", "gaussian", "laplace-scale-epsilon", "svt-lyu3"):
        assert name in text
    assert "KNOWN BAD" in text


def test_list_json(capsys):
    assert main(["list", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    by_name = {e["name"]: e for e in entries}
    assert {"laplace", "laplace-scale-epsilon"} <= set(by_name)
    for e in entries:
        assert {"name", "family", "neighbouring", "claim", "known_bad", "true_epsilon"} <= set(e)
    assert by_name["laplace"]["known_bad"] is False
    assert by_name["laplace-scale-epsilon"]["known_bad"] is True


@pytest.mark.slow
def test_list_shows_signature_of_mechanism_needing_parameters(monkeypatch, capsys):
    from dpaudit.mechanisms import registry
    from dpaudit.mechanisms.base import Mechanism

    class NeedsParams(Mechanism):
        """A mechanism without defaults."""
        name = "needs-params"
        family = "test"

        def __init__(self, epsilon, width):
            super().__init__(epsilon=epsilon, width=width)

    registry.mechanism_names()  # load the built-in zoo first
    monkeypatch.setitem(registry._REGISTRY, "needs-params", NeedsParams)
    assert main(["list"]) == 0
    assert "needs parameters: needs-params(epsilon, width)" in capsys.readouterr().out
    assert main(["list", "--json"]) == 0
    entry = next(e for e in json.loads(capsys.readouterr().out) if e["name"] == "needs-params")
    assert entry["needs_parameters"] is True and entry["claim"] is None


# -- dpaudit run ------------------------------------------------------------------------------

@pytest.mark.slow
def test_run_writes_reports_and_meets_expectations(tmp_path, capsys):
    suite = write(tmp_path, GOOD, "good.toml")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1"]) == 0
    captured = capsys.readouterr()
    report = load(out)
    assert TOP_KEYS <= set(report)
    # one curve certificate per (audit, pair), plus a white-box one where there is a density
    groups = {(r["audit"], r["pair"]["name"]): r["white_box_certificate"] is not None
              for r in report["audits"]}
    assert report["suites"][0]["family_size"] == sum(1 + w for w in groups.values()) >= 2
    # the Laplace mechanisms have a log-density: every named pair has its white-box test; the
    # two pairs each point's pair search found are certified black-box only
    searched = {(r["audit"], r["pair"]["name"]) for r in report["audits"] if "search" in r}
    assert len(searched) == 4 and all(name.startswith("searched-") for _, name in searched)
    assert all(w == (key not in searched) for key, w in groups.items())
    for record in report["audits"]:
        assert RECORD_KEYS <= set(record)
        assert record["samples"] == SAMPLES and record["error"] is None
        assert record["certificate"]["epsilon"] in (record["epsilon_lower_bound"], "inf")
        assert record["per_certificate_confidence"] == pytest.approx(
            1 - 0.05 / report["suites"][0]["family_size"])
    verdicts = {r["audit"]: r["audit_verdict"] for r in report["audits"]}
    assert verdicts == {"laplace-eps1": "consistent", "scale-bug": "violation"}
    bug = next(r for r in report["audits"] if r["audit"] == "scale-bug")
    assert bug["true_epsilon"] == pytest.approx(2.0)
    assert bug["note"] == "scale ε instead of 1/ε"
    assert report["summary"]["exit_status"] == 0
    assert report["summary"]["verdicts"]["error"] == 0
    # one progress line per task on stderr; a table on summary.md
    assert captured.err.count("[tiny]") == len(report["audits"])
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert ("| audit | mechanism | pair | at | claimed ε | certified ε_LB | white-box ε_LB | "
            "exact ε |") in summary
    assert "scale-bug" in summary and "Traceback" not in captured.err


@pytest.mark.slow
@pytest.mark.parametrize("mechanism, params, expect", [
    ("laplace", "{ epsilon = 1.0 }", "violation"),                  # false alarm expected
    ("laplace-scale-epsilon", "{ epsilon = 0.5 }", "consistent"),   # bug detected, unexpected
])
def test_unmet_expectation_exits_1(tmp_path, mechanism, params, expect):
    suite = write(tmp_path, f"""
        [suite]
        samples = {SAMPLES}
        [[audit]]
        name = "x"
        mechanism = "{mechanism}"
        params = {params}
        expect = "{expect}"
        """, "unmet.toml")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1"]) == 1
    report = load(out)
    assert report["summary"]["exit_status"] == 1
    assert [o["audit"] for o in report["summary"]["unmet_expectations"]] == ["x"]


@pytest.mark.slow
def test_malformed_suite_exits_2_and_other_suites_run(tmp_path, capsys):
    good = write(tmp_path, GOOD, "a-good.toml")
    bad = write(tmp_path, '[[audit]]\nname = "x"\nmechanism = "laplace"\nexpct = "violation"\n',
                "b-bad.toml")
    out = tmp_path / "out"
    # a directory expands to its *.toml files
    assert main(["run", str(tmp_path), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: audit #0 'x': key 'expct'" in err and "Traceback" not in err
    report = load(out)
    files = [s["file"] for s in report["suites"]]
    assert files == [str(good), str(bad)]
    assert report["suites"][1]["error"] and report["suites"][0]["error"] is None
    assert {r["audit"] for r in report["audits"]} == {"laplace-eps1", "scale-bug"}
    assert all(r["verdict"] != "error" for r in report["audits"])
    assert report["summary"]["suite_errors"] == 1 and report["summary"]["exit_status"] == 2
    assert "key 'expct'" in (out / "summary.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_raising_audit_is_an_error_and_others_still_run(tmp_path, capsys):
    suite = write(tmp_path, GOOD + """
        [[audit]]
        name = "nan-data"
        mechanism = "laplace"
        params = { epsilon = 1.0 }
        [[audit.pairs]]
        d0 = [nan]
        d1 = [1.0]
        """, "nan.toml")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1"]) == 2
    assert "Traceback" not in capsys.readouterr().err
    report = load(out)
    by_audit = {r["audit"]: r for r in report["audits"] if "search" not in r}  # named pairs
    bad = by_audit["nan-data"]
    assert bad["verdict"] == "error" and bad["error"] and bad["certificate"] is None
    assert not bad["met_expectation"]
    assert by_audit["laplace-eps1"]["verdict"] == "consistent"
    assert by_audit["scale-bug"]["verdict"] == "violation"
    assert report["summary"]["verdicts"]["error"] == 1  # its searched pairs still ran


@pytest.mark.slow
def test_pair_that_is_not_neighbouring_is_refused(tmp_path):
    """Auditing a non-neighbouring pair would report a false violation: it is an error."""
    suite = write(tmp_path, """
        [suite]
        samples = 20000
        [[audit]]
        name = "two-records-apart"
        mechanism = "laplace"
        params = { epsilon = 1.0 }
        expect = "violation"
        [[audit.pairs]]
        name = "far"
        d0 = [0.0]
        d1 = [0.0, 1.0, 1.0]
        """, "far.toml")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1"]) == 2
    record = load(out)["audits"][0]
    assert record["verdict"] == "error" and record["certificate"] is None
    assert "not neighbouring" in record["error"] and "differ in size" in record["error"]


def _numbers(report: dict) -> list[tuple]:
    return [(r["audit"], r["pair"]["name"], r["delta"], r["seed"], r["epsilon_lower_bound"],
             r["certificate"]["k_numerator"], r["certificate"]["k_denominator"], r["verdict"])
            for r in report["audits"]]


@pytest.mark.slow
def test_same_seed_same_numbers_with_one_or_two_workers(tmp_path):
    suite = write(tmp_path, GOOD.replace("params = { epsilon = 1.0 }",
                                         "params = { epsilon = 1.0 }\ndelta = [0.0, 1e-3]"),
                  "seeds.toml")
    reports = []
    for workers in ("1", "2"):
        out = tmp_path / f"out{workers}"
        assert main(["run", str(suite), "--out", str(out), "--workers", workers,
                     "--seed", "99"]) == 0
        reports.append(load(out))
    assert _numbers(reports[0]) == _numbers(reports[1])
    assert len(reports[0]["audits"]) >= 3
    assert reports[0]["suites"][0]["seed"] == 99


@pytest.mark.slow
def test_samples_and_profile_override(tmp_path):
    suite = write(tmp_path, GOOD, "good.toml")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1",
                 "--samples", "40000", "--profile", "quick"]) == 0
    assert {r["samples"] for r in load(out)["audits"]} == {4000}


@pytest.mark.parametrize("argv", [
    [], ["run"], ["run", "x.toml"], ["run", "x.toml", "--out", "o", "--samples", "10"],
    ["run", "x.toml", "--out", "o", "--profile", "huge"], ["run", "x.toml", "--out", "o",
                                                           "--workers", "0"], ["frobnicate"],
])
def test_bad_usage_exits_2(argv, capsys):
    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_missing_suite_file_exits_2(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "nope.toml"), "--out", str(out)]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert load(out)["summary"]["exit_status"] == 2


@pytest.mark.slow
def test_real_subprocess(tmp_path):
    suite = write(tmp_path, GOOD, "good.toml")
    out = tmp_path / "out"
    script = Path(sys.executable).with_name("dpaudit")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "dpaudit.cli"]
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(cmd + ["run", str(suite), "--out", str(out), "--workers", "2",
                                 "--profile", "quick"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "exit status 0" in proc.stdout
    assert (out / "summary.md").exists()
    assert load(out)["summary"]["exit_status"] == 0
    bad = subprocess.run(cmd + ["run", str(tmp_path / "missing.toml"), "--out", str(out)],
                         capture_output=True, text=True, timeout=60, env=env)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_exact_verdict_and_black_box_share_are_judged_per_certificate():
    from dpaudit.results.certificate import judge_certificate
    from tests.support import evidence

    r = judge_certificate(evidence(0.5, 0.8), 331.0, 300.0)  # false, but nothing certifies it
    assert (r.verdict, r.exact_verdict) == ("consistent", "violation")
    assert r.black_box_share == pytest.approx(0.625)
    r = judge_certificate(evidence(1.2), 1.25, 1.0)
    assert (r.verdict, r.exact_verdict, r.black_box_share) == ("violation", "violation", None)
    r = judge_certificate(evidence(0.9, 0.0), 1.0, 1.0)  # exact = claim: no false flag
    assert (r.verdict, r.exact_verdict, r.black_box_share) == ("consistent", "consistent", None)
    r = judge_certificate(evidence(0.9, 0.95), None, 1.0)
    assert r.exact_verdict is None and r.tightness == pytest.approx(0.95)
