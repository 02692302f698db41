"""Report formats are an open table (issue 33, item 5; :mod:`dpaudit.report.formats`): a
registered format is written by ``dpaudit report --format NAME`` and — when it says
``by_default`` — by every ``dpaudit run``; an unknown name is one line and exit 2."""

from __future__ import annotations

import json
import textwrap

import pytest

from dpaudit.cli.commands import main
from dpaudit.report import formats as table
from dpaudit.report.formats import (ReportFormat, default_report_formats,
                                    register_report_format, report_formats)
from dpaudit.util.atomic import write_text_atomic

SUITE = """
[suite]
name = "tiny"
samples = 2000
[[audit]]
name = "lap"
mechanism = "laplace"
search = false
"""


class CountsFormat(ReportFormat):
    """Writes the number of certificates per verdict: a plug-in reading the typed report."""

    name, filename = "counts", "counts.json"
    description = "counts.json: certificates per verdict"

    def write(self, report, path, context):
        verdicts = {k: v for k, v in report.summary.verdicts.items() if v}
        return write_text_atomic(path, json.dumps(verdicts))


@pytest.fixture
def counts_format(monkeypatch):
    monkeypatch.setitem(table._FORMATS, "counts", CountsFormat)
    return CountsFormat


def test_the_built_in_formats_in_the_order_a_run_writes_them():
    assert list(report_formats()) [:4] == ["md", "junit", "html", "comment"]
    assert default_report_formats()[:3] == ("md", "junit", "html")
    assert "comment" not in default_report_formats()


@pytest.mark.slow
def test_a_registered_format_is_written_by_report_and_by_run_when_it_says_so(
        tmp_path, counts_format, capsys, monkeypatch):
    suite = tmp_path / "tiny.toml"
    suite.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(suite), "--out", str(out), "-q"]) == 0
    assert not (out / "counts.json").exists()  # not by_default: on request
    assert main(["report", str(out), "--format", "counts", "md"]) == 0
    assert json.loads((out / "counts.json").read_text()) == {"consistent": 1}
    monkeypatch.setattr(CountsFormat, "by_default", True)
    (out / "counts.json").unlink()
    assert main(["run", str(suite), "--out", str(out), "-q"]) == 0
    assert json.loads((out / "counts.json").read_text()) == {"consistent": 1}
    capsys.readouterr()
    assert main(["report", str(out), "--format", "count"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpaudit report: error: unknown format 'count'") and \
        "did you mean 'counts'" in err and err.count("\n") == 1


def test_a_format_must_name_a_plain_file_of_its_own():
    class Bad(ReportFormat):
        name, filename = "bad", "../escape.txt"

        def write(self, report, path, context):
            return path

    with pytest.raises(ValueError, match="plain file name"):
        register_report_format(Bad)
    Bad.filename = "summary.md"
    with pytest.raises(ValueError, match="already written by 'md'"):
        register_report_format(Bad)
    Bad.filename = "results.json"
    with pytest.raises(ValueError, match="other than results.json"):
        register_report_format(Bad)
    with pytest.raises(ValueError, match="is not a ReportFormat subclass"):
        register_report_format(object)
