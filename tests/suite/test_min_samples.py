"""The per-audit ``min_samples`` floor: parsed and validated with the file, audit and key in
the message, applied only under a scaled-down profile (quick) and never above the audit's
samples, and set in the shipped suites only for expected violations."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dpaudit.audit.plan import resolve_samples
from dpaudit.results.options import PROFILES
from dpaudit.suite.spec import SuiteError, load_suite
from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_report
from tests.support import REPO

AUDITS = REPO / "audits"

SUITE = """
[suite]
name = "floors"
samples = 50000

[[audit]]
name = "floored"
mechanism = "laplace"
params = {{ epsilon = 1.0 }}
{line}

[[audit]]
name = "plain"
mechanism = "laplace"
params = {{ epsilon = 1.0 }}
"""


def write(tmp_path: Path, line: str) -> Path:
    path = tmp_path / "floors.toml"
    path.write_text(textwrap.dedent(SUITE.format(line=line)), encoding="utf-8")
    return path


def test_parsed_and_absent_by_default(tmp_path):
    suite = load_suite(write(tmp_path, "min_samples = 20000"))
    assert [a.min_samples for a in suite.audits] == [20000, None]


@pytest.mark.parametrize("line, got", [
    ("min_samples = 999", "999"), ("min_samples = 60000", "60000"),
    ("min_samples = 2.5e4", "25000.0"), ("min_samples = true", "True"),
    ('min_samples = "20000"', "'20000'"),
    ("samples = 10000\nmin_samples = 20000", "20000"),
])
def test_bad_values_name_file_audit_and_key(tmp_path, line, got):
    with pytest.raises(SuiteError) as info:
        load_suite(write(tmp_path, line))
    message = str(info.value)
    assert "floors.toml" in message and "'floored'" in message
    assert "key 'min_samples'" in message and f"got {got}" in message


def test_floor_applies_only_when_scaled_down(tmp_path):
    floored, plain = load_suite(write(tmp_path, "min_samples = 20000")).audits
    quick, deep = PROFILES["quick"], PROFILES["deep"]
    assert resolve_samples(floored, scale=quick) == 20000  # max(20000, 5000)
    assert resolve_samples(plain, scale=quick) == 5000
    assert resolve_samples(floored) == 50000  # default: unchanged
    assert resolve_samples(floored, scale=deep) == 500000
    # with --samples the floor still never exceeds the base
    assert resolve_samples(floored, samples=8000, scale=quick) == 8000
    assert resolve_samples(floored, samples=400000, scale=quick) == 40000


@pytest.mark.slow
def test_quick_run_uses_the_floor(tmp_path):
    out = tmp_path / "out"
    suite = write(tmp_path, "min_samples = 3000").read_text(encoding="utf-8")
    path = tmp_path / "small.toml"
    path.write_text(suite.replace("samples = 50000", "samples = 10000"), encoding="utf-8")
    assert main(["run", str(path), "--out", str(out), "--workers", "1", "--profile", "quick",
                 "--quiet"]) == 0
    records = read_report(out / "results.json").run.records
    assert {r.audit: r.samples for r in records} == {"floored": 3000, "plain": 1000}


@pytest.mark.slow
def test_shipped_floors_only_on_expected_violations():
    floored = [(s.name, a.name, a.expect) for s in map(load_suite, sorted(AUDITS.glob("*.toml")))
               for a in s.audits if a.min_samples is not None]
    assert floored, "the quick profile needs floors (docs/suite-files.md, Profiles)"
    assert all(expect == "violation" for *_, expect in floored), floored
