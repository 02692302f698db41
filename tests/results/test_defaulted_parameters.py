"""Parameters a suite leaves out are never silently defaulted (dpaudit.results.defaults): every
record names them with their values, the CLI says so while planning (not with --quiet),
summary.md, report.html, the Python API and ``dpaudit check`` show them, and results.json keeps
them through a byte-identical round trip (older files without the field still read)."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import jsonschema
import pytest

from dpaudit.api import audit_mechanism
from dpaudit.results.defaults import (AuditDefaults, audit_defaults, format_value,
                                    planning_notes)
from dpaudit.audit.progress import BarProgress, LineProgress
from dpaudit.results.legacy import record_from_json
from dpaudit.results.records import SCHEMA_FILE
from tests.support import TEST_DATA
from dpaudit.api import run_suites
from dpaudit.cli.commands import main
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.report.html_model import audit_sections
from dpaudit.report.json_report import build_report
from dpaudit.report.markdown import render_markdown
from dpaudit.report.html import render_html
from dpaudit.report.results_file import (read_document, read_report, results_document,
                                         write_results)

SUITE = """
[suite]
name = "rr-suite"
samples = 2000
seed = 1

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "no-epsilon"
mechanism = "laplace"
params = { sensitivity = 1.0 }

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "rr"
mechanism = "randomized-response"

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "all-set"
mechanism = "laplace"
params = { epsilon = 1.0, sensitivity = 1.0 }

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "swept"
mechanism = "laplace"
params = { sensitivity = 1.0 }
sweep = { epsilon = [0.5, 2.0] }

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "user-class"
mechanism = "user_mech.py:Clipped"
params = { epsilon = 0.5 }

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "user-declared"
mechanism = "user_mech.py:Declared"
params = { epsilon = 0.5 }
"""

USER_MECH = '''
import numpy as np
from dpaudit.util import validation
from dpaudit.claims.notions import PureDP
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.mechanisms.parameters import Parameter


class Clipped(Mechanism):
    """Old style: its own constructor, values recorded through super().__init__."""
    name = "user-clipped"
    family = "user"

    def __init__(self, epsilon=1.0, clip=2.0):
        super().__init__(epsilon=epsilon, clip=clip)
        self.eps, self.clip = float(epsilon), float(clip)

    def sample(self, dataset, n, rng):
        return min(float(sum(dataset)), self.clip) + rng.laplace(0, self.clip / self.eps, n)

    def claim(self):
        return PureDP(self.eps)

    def worst_case_pairs(self):
        return [NeighbourPair("one", [0.0], [2.0], "")]


class Declared(Mechanism):
    """Declared parameters, one a placeholder resolved in derive(): bound = None means 2·ε."""
    name = "user-declared"
    family = "user"
    epsilon = Parameter(1.0, validation.positive, "ε")
    bound = Parameter(None, None, "the bound (default 2ε)")

    def derive(self):
        self.resolve_parameter("bound", 2 * self.epsilon if self.bound is None else self.bound)

    def sample(self, dataset, n, rng):
        return float(sum(dataset)) + rng.laplace(0, 1.0 / self.epsilon, n)

    def claim(self):
        return PureDP(self.epsilon)

    def worst_case_pairs(self):
        return [NeighbourPair("one", [0.0], [1.0], "")]
'''

EXPECTED = {"no-epsilon": {"epsilon": 1.0}, "rr": {"epsilon": 1.0, "k": 2}, "all-set": {},
            "swept": {}, "user-class": {"clip": 2.0}, "user-declared": {"bound": 1.0}}


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("defaults")
    (folder / "user_mech.py").write_text(USER_MECH, encoding="utf-8")
    path = folder / "rr.toml"
    path.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def run(suite):
    return run_suites([str(suite)], workers=1)


@pytest.fixture(scope="module")
def report(run):
    return build_report(run, command="dpaudit run rr.toml", exit_status=0)


def test_every_record_names_the_parameters_its_suite_left_out(run):
    seen = {}
    for record in run.records:
        seen.setdefault(record.audit, []).append(record.defaulted_parameters)
    assert {audit: values[0] for audit, values in seen.items()} == EXPECTED
    # the same at every point of an audit: the swept ε is set by the sweep, not defaulted
    assert all(v == values[0] for values in seen.values() for v in values)
    assert len(seen["swept"]) == 2


def test_results_json_holds_them_per_point_and_reads_back_byte_identical(report, tmp_path):
    path = write_results(report, tmp_path / "results.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    points = {p["audit"]: p["defaulted_parameters"] for p in document["points"]}
    assert points == EXPECTED
    assert all("defaulted_parameters" not in t for p in document["points"] for t in p["tests"])
    jsonschema.validate(document, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")),
                        cls=jsonschema.Draft202012Validator)
    back = read_report(path)
    assert [r.defaulted_parameters for r in back.records] == \
        [r.defaulted_parameters for r in report.records]
    again = write_results(back, tmp_path / "again.json")
    assert again.read_bytes() == path.read_bytes()
    assert render_markdown(back) == render_markdown(report)


def test_the_schema_rejects_defaulted_parameters_that_are_not_an_object(report):
    document = json.loads(json.dumps(results_document(report)))
    document["points"][0]["defaulted_parameters"] = ["epsilon"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")),
                            cls=jsonschema.Draft202012Validator)


def test_an_older_schema_3_file_without_the_field_reads_without_claiming_it(tmp_path):
    document = json.loads((TEST_DATA / "results-schema3-fixture.json").read_text(
        encoding="utf-8"))
    for point in document["points"]:
        del point["defaulted_parameters"]
    old = tmp_path / "old.json"  # as dpaudit wrote it before the field existed
    old.write_text(json.dumps(document), encoding="utf-8")
    back = read_report(old)
    assert all(r.defaulted_parameters is None for r in back.records)
    assert all("defaulted_parameters" not in r.to_json() for r in back.records)
    again = read_report(write_results(back, tmp_path / "again.json"))  # as schema 4
    assert all(r.defaulted_parameters is None for r in again.records)
    assert "left at their defaults" not in render_markdown(back)  # not known: not claimed
    assert read_document(old)["audits"][0].get("defaulted_parameters") is None


def test_a_record_with_a_malformed_field_is_refused(run):
    row = run.records[0].to_json()
    row["defaulted_parameters"] = "epsilon"
    with pytest.raises(ValueError, match="defaulted_parameters"):
        record_from_json(row)


@pytest.mark.slow
def test_the_cli_names_them_once_per_audit_while_planning(suite, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "--workers", "1",
                 "--only", "rr-suite/no-epsilon", "--only", "rr-suite/all-set",
                 "--only", "rr-suite/swept"]) == 0
    err = capsys.readouterr().err.splitlines()
    notes = [line for line in err if "left at their defaults" in line]
    # one line for the audit that left ε out; none for the complete one, none for the sweep,
    # none for the audits --only did not select
    assert notes == ["rr-suite/no-epsilon: parameters left at their defaults: epsilon = 1"]
    assert err.index(notes[0]) < next(i for i, line in enumerate(err)
                                      if line.startswith("running "))
    assert main(["run", str(suite), "--out", str(tmp_path / "q"), "--workers", "1",
                 "--only", "rr-suite/no-epsilon", "--quiet"]) == 0
    assert "left at their defaults" not in capsys.readouterr().err


def test_a_terminal_shows_the_same_lines(suite):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    run_suites([str(suite)], workers=1, progress=BarProgress(stream), only=("rr-suite/rr",))
    assert "rr-suite/rr: parameters left at their defaults: epsilon = 1, k = 2" in \
        stream.getvalue()


def test_many_audits_with_defaults_give_one_line_per_suite():
    many = [AuditDefaults("big", f"a{i}", {"sensitivity": (1.0,)}) for i in range(6)]
    few = [AuditDefaults("small", "b", {"epsilon": (1.0,), "c": (1.0, 2.0)})]
    assert planning_notes(many + few) == [
        "big: 6 audits leave parameters at their defaults (sensitivity); their values are in "
        "summary.md",
        "small/b: parameters left at their defaults: epsilon = 1, c = 1 | 2"]
    stream = io.StringIO()
    LineProgress(stream).defaults_planned(few)
    assert stream.getvalue() == "small/b: parameters left at their defaults: epsilon = 1, " \
                                "c = 1 | 2\n"


def test_values_are_printed_readably():
    assert [format_value(v) for v in (1.0, 2, 1e-5, "inf", None, True, "paper")] == \
        ["1", "2", "1e-05", "∞", "none", "true", '"paper"']
    assert format_value(list(range(30))).endswith("(30 values)")


def test_summary_md_and_report_html_show_them(report):
    text = render_markdown(report)
    assert "### Parameters left at their defaults (4 audits: not set in the suite file)" in text
    assert "| `rr-suite` / `no-epsilon` | epsilon = 1 |" in text
    assert "| `rr-suite` / `rr` | epsilon = 1, k = 2 |" in text
    assert "`all-set`" not in text.split("### Parameters left")[1].split("<details>")[0]
    sections = {s["audit"]: s for s in audit_sections(report)}
    assert sections["rr"]["defaulted"] == ["epsilon = 1", "k = 2"]
    assert sections["rr"]["parameters"] == ""
    assert sections["all-set"]["defaulted"] == []
    assert sections["no-epsilon"]["parameters"] == "sensitivity = 1"
    html = render_html(report, figures=False)
    assert ('epsilon = 1 <span class="badge default" title="not set in the suite file: the '
            "mechanism's default\">default</span>") in html


def test_audit_defaults_merges_the_points_of_an_audit(run):
    entries = {(e.suite, e.audit): e for e in audit_defaults(run.records)}
    assert set(entries) == {("rr-suite", a) for a, v in EXPECTED.items() if v}
    assert entries[("rr-suite", "rr")].text() == "epsilon = 1, k = 2"


def test_the_python_api_reports_them_for_a_class_not_for_an_instance():
    result = audit_mechanism("laplace", params={"sensitivity": 1.0}, samples=2000)
    assert result.defaulted_parameters == {"epsilon": 1.0}
    assert "parameters left at their defaults: epsilon = 1" in result.explain()
    built = audit_mechanism(create_mechanism("laplace"), samples=2000)
    assert built.defaulted_parameters == {}  # the caller built it: nothing left to dpaudit


def test_mechanism_defaulted_parameters_uses_the_effective_values():
    mech = create_mechanism("randomized-response", epsilon=0.5)
    assert mech.defaulted_parameters({"epsilon": 0.5}) == {"k": 2}
    assert mech.defaulted_parameters(dict(mech.params)) == {}


@pytest.mark.slow
def test_dpaudit_check_says_so(tmp_path, capsys):
    out = tmp_path / "check.json"
    main(["check", "randomized-response", "--params", "epsilon=0.5", "--samples", "2000",
          "--json", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "parameters left at their defaults (not in --params): k = 2"
    assert json.loads(out.read_text(encoding="utf-8"))["defaulted_parameters"] == {"k": 2}
    main(["check", "randomized-response", "--params", "epsilon=0.5", "k=2", "--samples",
          "2000", "--json", str(out)])
    assert "left at their defaults" not in capsys.readouterr().out
    assert json.loads(out.read_text(encoding="utf-8"))["defaulted_parameters"] == {}


@pytest.mark.slow
def test_worker_processes_record_the_same(suite, run):
    """Defaults are found at planning time and travel with the task: two workers (user code
    re-imported there) give the records of one."""
    two = run_suites([str(suite)], workers=2)
    assert [(r.audit, r.defaulted_parameters) for r in two.records] == \
        [(r.audit, r.defaulted_parameters) for r in run.records]


def test_an_adapter_style_class_reports_its_declared_defaults():
    """External adapters (dpaudit.mechanisms.external) declare Parameters on an
    ExternalMechanism subclass and check their library in derive(); the installed extras may
    be missing here, so a stand-in adapter wraps the standard library's ``random``."""
    from dpaudit.util import validation
    from dpaudit.results.defaults import defaulted_values
    from dpaudit.suite.targets import Target
    from dpaudit.mechanisms.external.common import ExternalMechanism
    from dpaudit.mechanisms.parameters import Parameter

    class Adapter(ExternalMechanism):
        name = "stand-in-adapter"
        library = "random"
        epsilon = Parameter(1.0, validation.positive, "ε given to the library")
        sensitivity = Parameter(1.0, validation.positive, "Δ given to the library")

        def claim(self):  # pragma: no cover - not audited here
            raise NotImplementedError

        def worst_case_pairs(self):  # pragma: no cover
            return []

    target = Target("stand-in-adapter", obj=Adapter)
    mech = target.build({"sensitivity": 2.0})
    assert defaulted_values(target, mech, {"sensitivity": 2.0}) == {"epsilon": 1.0}
    assert defaulted_values(Target("x", obj=mech), mech, {}) == {}  # a prebuilt instance
