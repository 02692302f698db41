"""dpaudit report: re-render summary.md / junit.xml from results.json without re-running
(byte-identical to what the run wrote; a bad results file is one line and exit 2);
summary.md is a pull-request comment (result first, problems before the full table, errors
once per message, links from the repository root)."""

from __future__ import annotations

import base64
import importlib.util
import re
import textwrap
from pathlib import Path

import pytest

from dpaudit.results.records import exit_status
from dpaudit.api import run_suites
from dpaudit.cli.commands import main
from dpaudit.report.json_report import build_report
from dpaudit.report.markdown import figure_link, link_base, render_markdown
from dpaudit.report.results_file import ResultsFileError, read_report

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
name = "bug-curve"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
delta = [0.0, 1e-3]

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "missed"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }

[[audit]]
search = false  # one pair per point: this file is about rendering them
name = "nan-data"
mechanism = "laplace"
params = { epsilon = 1.0 }
delta = [0.0, 1e-4, 1e-3]
[[audit.pairs]]
d0 = [nan]
d1 = [1.0]
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("md") / "tiny.toml"
    path.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    run = run_suites([str(path)], workers=1)
    return build_report(run, command="dpaudit run tiny.toml --out out",
                        exit_status=exit_status(run))


def test_summary_is_a_pull_request_comment(report):
    text = render_markdown(report)
    lines = text.splitlines()
    # the headline first: what failed, by name; known bugs are not failures
    assert lines[0] == ("## ❌ FAIL — 2/4 expectations met — 1 known bug detected, "
                        "1 unexpected violation (tiny/missed), 1 error (tiny/nan-data)")
    header = lines[:lines.index("### Unmet expectations")]
    assert len(header) <= 6
    s = report.summary
    family = report.run.suites[0].tests
    assert header[2].startswith(
        f"4 audit points · 4 pairs · {family} tests · {s.certificates} certificates: "
        f"3 violations (2 expected, 1 unexpected), {s.verdicts['consistent']} consistent "
        f"(1 underpowered), {s.verdicts['error']} errors · ")
    order = [lines.index(h) for h in (
        "### Unmet expectations", "### Errors",
        "### ❌ Unexpected violations (1 certificate of 1 audit point expected consistent)",
        "<details><summary>Known bugs detected as expected: 2 violations of 1 audit point "
        "expecting one</summary>")]
    assert order == sorted(order)
    unexpected = lines[order[2] + 2:order[2] + 5]
    assert unexpected[0].startswith("| ✓/✗ | audit |") and unexpected[2].startswith("| ✗ | missed")
    details = order[3]
    assert lines[details + 1] == ""  # GitHub renders the table
    assert lines[details + 3] == "|---|---|---|---|---|---|---|"
    assert lines[details + 4].startswith("| ✓ | bug-curve")
    assert "</details>" in lines[details:]
    full = lines.index("| " + " | ".join((
        "✓/✗", "audit", "mechanism", "pair", "at", "claimed ε", "certified ε_LB",
        "white-box ε_LB", "exact ε", "detectable ε", "verdict", "expected")) + " |")
    rows = lines[full + 2:lines.index("", full)]
    assert all(row.startswith(("| ✓ |", "| ✗ |")) for row in rows)
    assert any("| violation, detected as expected | violation |" in row for row in rows)
    assert any(row.startswith("| ✗ | missed") and "| **violation** | consistent |" in row
               for row in rows)
    # the glossary closes the comment, folded
    assert lines[-1] == "</details>" and "<details><summary>Glossary: audit point, pair, " \
        "test, certificate</summary>" in lines
    # one error line for the three δs of the same audit and message
    errors = [line for line in lines if line.startswith("- `tiny` / `nan-data`")]
    assert len(errors) == 1 and errors[0].endswith("(3 certificates)")
    assert "- `tiny` / `missed` (laplace-scale-epsilon): expected consistent, got violation" \
        in text
    # one vocabulary: certificates are records, tests are the Bonferroni family members
    family = report.run.suites[0].tests
    assert re.search(rf"family-wise confidence 0\.95 over {family} tests \(each at ", text)
    assert f"All {s.certificates} certificates" in text


def test_all_met_has_a_check_mark(tmp_path):
    path = tmp_path / "ok.toml"
    text = SUITE.split("[[audit]]\nsearch = false  # one pair per point: this file is about "
                       "rendering them\nname = \"missed\"")[0].replace("seed = 5",
                                                                  "seed = 5\nfamily_size = 8")
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    run = run_suites([str(path)], workers=1)
    text = render_markdown(build_report(run, command="t", exit_status=exit_status(run)))
    assert text.startswith("## ✅ PASS — 2/2 expectations met — 1 known bug detected, "
                           "0 unexpected violations\n")
    assert "### Errors" not in text and "### Unmet" not in text
    # a fixed family: N shares, of which the file plans fewer tests
    tests = run.suites[0].tests
    assert tests < 8 and f"over {tests} tests (N = 8 shares, each at 0.99375)" in text


def test_figure_links_start_at_the_output_directory_as_given():
    assert figure_link("figures/a.png", "reports/latest") == "reports/latest/figures/a.png"
    assert figure_link("figures/a.png", "reports/latest/") == "reports/latest/figures/a.png"
    assert figure_link("figures/a.png", ".") == "figures/a.png"
    assert figure_link("figures/a.png", None) == "figures/a.png"
    assert figure_link("figures/a.png", "my reports") == "my%20reports/figures/a.png"


def test_link_base_makes_absolute_directories_under_the_cwd_relative(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert link_base(tmp_path / "reports" / "latest") == "reports/latest"
    assert link_base("reports/latest") == "reports/latest"
    outside = tmp_path.parent / "elsewhere"
    assert link_base(outside) == outside.as_posix()


def test_re_read_report_renders_the_same(report, tmp_path):
    from dpaudit.report.junit import render_junit
    from dpaudit.report.results_file import write_results

    again = read_report(write_results(report, tmp_path / "results.json"))
    assert render_markdown(again) == render_markdown(report)
    assert render_junit(again) == render_junit(report)


@pytest.mark.parametrize("content, fragment", [
    (None, "No such file"),
    ("{oops", "not JSON"),
    ('{"schema": 99, "suites": [], "audits": [], "summary": {}}', "schema 99"),
    ("[1, 2]", "schema"),
])
def test_report_of_a_bad_results_file_is_a_one_line_error(tmp_path, content, fragment, capsys):
    path = tmp_path / "results.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ResultsFileError):
        read_report(path)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dpaudit report: error: {path}") and err.count("\n") == 1
    assert fragment in err and "Traceback" not in err
    assert not (tmp_path / "summary.md").exists()


@pytest.mark.slow
def test_report_command_re_renders_byte_identical(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tiny.toml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    assert main(["run", "tiny.toml", "--out", "reports/latest", "--workers", "1"]) == 2
    out = Path("reports/latest")
    written = {name: (out / name).read_bytes()
               for name in ("summary.md", "junit.xml", "report.html")}
    # report.html embeds the PNGs the run drew (not drawn twice): one per figure file
    pngs = sorted(Path(out / "figures").glob("*.png"))
    page = written["report.html"].decode()
    assert pngs and page.count('<img src="data:image/png;base64,') == len(pngs)
    assert "<svg" in page  # the power figures
    # figure links resolve from the directory the command ran in (the repository root)
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", written["summary.md"].decode())
    assert links and all(link.startswith("reports/latest/figures/") and Path(link).is_file()
                         for link in links)
    for name in written:
        (out / name).unlink()
    assert main(["report", "reports/latest"]) == 0  # byte-identical, report.html too
    assert {name: (out / name).read_bytes() for name in written} == written
    # another output directory: the links still point at the figures next to results.json
    assert main(["report", "reports/latest/results.json", "--format", "md",
                 "--out", "elsewhere"]) == 0
    assert Path("elsewhere/summary.md").read_bytes() == written["summary.md"]
    assert not Path("elsewhere/junit.xml").exists()
    assert "wrote elsewhere/summary.md" in capsys.readouterr().out


def test_png_data_uri_embeds_only_pngs_inside_the_directory(tmp_path):
    from dpaudit.report.html import png_data_uri

    png = b"\x89PNG\r\n\x1a\n" + b"rest"
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.png").write_bytes(png)
    (tmp_path / "figures" / "fake.png").write_bytes(b"<svg>not a png</svg>")
    (tmp_path.parent / "outside.png").write_bytes(png)
    uri = png_data_uri(tmp_path, "figures/a.png")
    assert uri == "data:image/png;base64," + base64.b64encode(png).decode()
    for path in ("figures/fake.png", "figures/missing.png", "../outside.png",
                 str(tmp_path.parent / "outside.png"), None, ""):
        assert png_data_uri(tmp_path, path) is None, path
    assert png_data_uri(None, "figures/a.png") is None


@pytest.mark.slow
def test_html_format(tmp_path, report, capsys):
    from dpaudit.report.results_file import write_results

    write_results(report, tmp_path / "results.json")
    status = main(["report", str(tmp_path), "--format", "md", "html"])
    if importlib.util.find_spec("dpaudit.report.html") is None:
        assert status == 2
        assert "HTML report is not available" in capsys.readouterr().err
        assert not (tmp_path / "summary.md").exists()  # checked before anything is written
    else:
        assert status == 0 and (tmp_path / "report.html").stat().st_size > 0


@pytest.mark.slow
def test_report_honours_the_run_lock_of_its_output_directory(tmp_path, capsys, monkeypatch):
    """Issue 39, item 14: ``dpaudit report --out DIR`` wrote into a directory a run held."""
    from dpaudit.cli.out_lock import OutputLock

    monkeypatch.chdir(tmp_path)
    Path("tiny.toml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    main(["run", "tiny.toml", "--out", "runs/a", "--workers", "1", "-q"])
    capsys.readouterr()
    with OutputLock.acquire("runs/b"):
        assert main(["report", "runs/a", "--format", "md", "--out", "runs/b"]) == 2
    assert "another dpaudit run" in capsys.readouterr().err
    assert not Path("runs/b/summary.md").exists()
    assert main(["report", "runs/a", "--format", "md", "--out", "runs/b"]) == 0  # released


def test_a_committed_link_does_not_send_the_reports_elsewhere(tmp_path, capsys, monkeypatch):
    """Issue 39, item 14: a ``reports/ci`` symbolic link sent every report outside."""
    import os

    (tmp_path / "repo" / "reports").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "repo" / "reports" / "ci")
    monkeypatch.chdir(tmp_path / "repo")
    Path("tiny.toml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    assert main(["run", "tiny.toml", "--out", "reports/ci", "-q"]) == 2
    assert "outside the current directory" in capsys.readouterr().err
    assert list((tmp_path / "elsewhere").iterdir()) == []
