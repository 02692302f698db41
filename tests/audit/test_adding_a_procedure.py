"""The recipe "Adding a kind of audit" (docs/procedures.md), run as written: its package is
installed as a plug-in (entry points for the procedure and its evidence), a suite names the
new kind, and ``dpaudit run``, the Python API, results.json read back and every report carry
it — without a line of dpaudit changed."""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import pytest

from dpaudit.api import audit_mechanism
from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_report

REPO = Path(__file__).resolve().parents[2]
RECIPE = REPO / "docs" / "procedures.md"

SUITE = """
[suite]
name = "thresholds"
samples = 20000
seed = 4

[[audit]]
name = "laplace-threshold"
kind = "threshold"
mechanism = "laplace"
params = { epsilon = 1.0 }
options = { threshold = 0.5 }
delta = [0.0, 0.001]

[[audit]]
name = "scale-bug-threshold"
kind = "threshold"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
options = { threshold = 0.5 }
"""


def recipe_code() -> str:
    text = RECIPE.read_text(encoding="utf-8")
    assert text.startswith("# Adding a kind of audit"), "docs/procedures.md moved"
    match = re.search(r"```python\n(.*?)```", text, flags=re.S)
    assert match, "no python code block in docs/procedures.md"
    return match.group(1)


@pytest.fixture
def threshold_plugin(tmp_path, monkeypatch):
    """The recipe's package on sys.path with the entry points its pyproject declares."""
    from dpaudit.audit.procedures import table
    from dpaudit.results import evidence_kinds

    package = tmp_path / "site" / "threshold_audit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(recipe_code(), encoding="utf-8")
    info = tmp_path / "site" / "threshold_audit-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: threshold-audit\n"
                                   "Version: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[dpaudit.procedures]\nthreshold = threshold_audit:ThresholdAudit\n\n"
        "[dpaudit.evidence]\nthreshold = threshold_audit:ThresholdEvidence\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    saved = (dict(table._TABLE), table._PLUGINS.loaded, dict(evidence_kinds._KINDS),
             evidence_kinds._PLUGINS.loaded)
    table._PLUGINS.forget()
    evidence_kinds._PLUGINS.forget()
    yield
    table._TABLE.clear()
    table._TABLE.update(saved[0])
    table._PLUGINS.loaded = saved[1]
    evidence_kinds._KINDS.clear()
    evidence_kinds._KINDS.update(saved[2])
    evidence_kinds._PLUGINS.loaded = saved[3]
    sys.modules.pop("threshold_audit", None)


@pytest.mark.slow
def test_the_recipe_adds_a_kind_every_route_and_report_carries(threshold_plugin, tmp_path):
    suite = tmp_path / "thresholds.toml"
    suite.write_text(SUITE, encoding="utf-8")
    out = tmp_path / "out"
    # the known bug is left expecting "consistent": its violation fails the run (exit 1)
    assert main(["run", str(suite), "--out", str(out), "--workers", "2", "-q"]) == 1
    report = read_report(out / "results.json")
    fine, bug = report.run.points
    assert (fine.procedure, fine.verdict, bug.verdict) == ("threshold", "consistent",
                                                          "violation")
    assert report.run.suites[0].family_size == 2  # one test per named pair, as it said
    (test,) = fine.tests
    assert test.procedure == "threshold" and test.family_members == 1
    evidence = test.certificates[0].evidence[0]
    assert type(evidence).__name__ == "ThresholdEvidence" and 0 < evidence.bound <= 1.0
    # every report renders the evidence's own description
    assert evidence.describe() in (out / "report.html").read_text(encoding="utf-8")
    bug_line = bug.tests[0].certificates[0].evidence[0].describe()
    assert bug_line in (out / "junit.xml").read_text(encoding="utf-8")
    assert "scale-bug-threshold" in (out / "summary.md").read_text(encoding="utf-8")
    document = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert document["points"][0]["tests"][0]["certificates"][0]["evidence"][0]["kind"] == \
        "threshold"
    # the Python API, the same audit
    result = audit_mechanism("laplace", params={"epsilon": 1.0}, kind="threshold",
                             options={"threshold": 0.5}, delta=[0.0, 0.001], samples=20000,
                             seed=4, name="laplace-threshold")
    assert result.verdict == "consistent"
    assert type(result.records[0].evidence[0]).__name__ == "ThresholdEvidence"
    with pytest.raises(ValueError, match=r"exactly \{ threshold = t \}"):
        audit_mechanism("laplace", params={"epsilon": 1.0}, kind="threshold", options={})


def test_a_test_that_fails_is_an_error_of_its_audit_and_the_others_go_on(threshold_plugin,
                                                                         tmp_path):
    suite = tmp_path / "broken.toml"
    suite.write_text(SUITE.replace('params = { epsilon = 1.0 }\noptions',
                                   'params = { epsilon = 1.0 }\npairs = [{ d0 = [0.0], '
                                   'd1 = [5.0, 6.0, 7.0] }]\noptions', 1), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1", "-q"]) == 2
    broken, other = read_report(out / "results.json").run.points
    assert broken.verdict == "error" and broken.tests[0].error.startswith("ValueError: ")
    assert "\n" not in broken.tests[0].error
    assert other.verdict == "violation"  # the other audit still ran
