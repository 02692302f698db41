"""Names go into summary.md and diff.md (pull-request comments) escaped: a suite, audit, pair,
mechanism or parameter name cannot inject HTML, a link, emphasis or a table cell, nor break a
line (:mod:`dpaudit.report.md_escape`)."""

from __future__ import annotations

import re
import textwrap

import pytest

from dpaudit.api import run_suites
from dpaudit.report.diff import diff_reports
from dpaudit.report.html import render_html
from dpaudit.report.json_report import build_report
from dpaudit.report.markdown import render_markdown
from dpaudit.report.md_escape import md_code, md_text
from dpaudit.results.records import exit_status

EVIL = r"<b>x</b> | *em* _u_ `tick` [link](http://e.x) ~s~ $m$ &amp; \ end"
EVIL_TOML = EVIL.replace("\\", "\\\\") + r"\nsecond line"

SUITE = f"""
[suite]
name = "{EVIL_TOML} suite"
samples = 4000

[[audit]]
name = "{EVIL_TOML} audit"
mechanism = "laplace-scale-epsilon"
params = {{ epsilon = 0.5 }}
delta = [0.0, 1e-3]
expect = "violation"

[[audit.pairs]]
name = "{EVIL_TOML} pair"
d0 = [1.0]
d1 = []

[[audit]]
name = "{EVIL_TOML} errs"
mechanism = "laplace"
params = {{ epsilon = 1.0 }}

[[audit.pairs]]
name = "{EVIL_TOML} not neighbours"
d0 = [0.0]
d1 = [1.0]
"""


#: the markup of EVIL, unescaped (a backslash before it makes it text)
RAW = [r"(?<!\\)<b", r"(?<!\\)\]\(http", r"(?<!\\)\*em", r"(?<!\\)_u", r"(?<!\\)~s",
       r"(?<!\\)\$m", r"(?<!\\)&amp", r"(?<!\\)`tick"]


def _raw_markup(line: str) -> list[str]:
    """The pieces of EVIL's markup left unescaped in ``line`` outside its code spans."""
    outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", line)
    return [p for p in RAW if re.search(p, outside_code)]


def _unescaped(text: str, char: str) -> int:
    return len(re.findall(r"(?<!\\)" + re.escape(char), text))


@pytest.fixture(scope="module")
def evil(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "evil.toml"
    path.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    run = run_suites([str(path)], workers=1)
    report = build_report(run, command="test evil", exit_status=exit_status(run))
    assert [p.audit for p in run.points] == [EVIL + "\nsecond line audit",
                                             EVIL + "\nsecond line errs"]
    assert [p.verdict for p in run.points] == ["violation", "error"]
    return report


def test_md_text_escapes_what_markdown_reads_and_nothing_else():
    assert md_text("gaussian_mixing lemma-3.8 ε=1 (x)") == "gaussian_mixing lemma-3.8 ε=1 (x)"
    assert md_text("a|b\nc\r\nd") == r"a\|b c d"
    assert md_text("<b>*x*</b> _y_ [l](u) `c` ~s~ $m$ & \\") == (
        r"\<b\>\*x\*\</b\> \_y\_ \[l\](u) \`c\` \~s\~ \$m\$ \& \\")
    assert md_text("_lead trail_ a__b") == r"\_lead trail\_ a\_\_b"


def test_md_code_fences_backticks_and_keeps_the_rest_literal():
    assert md_code("classic") == "`classic`"
    assert md_code("<b>x</b> *y*") == "`<b>x</b> *y*`"
    assert md_code("a`b") == "``a`b``"
    assert md_code("`a``") == "``` `a`` ```"
    assert md_code("a|b\nc") == "`a|b c`"
    assert md_code("a|b", table=True) == r"`a\|b`"


def test_summary_md_escapes_every_name(evil):
    text = render_markdown(evil)
    assert not any(line.startswith("second line") for line in text.splitlines())
    assert [line for line in text.splitlines() if _raw_markup(line)] == []
    assert sum(line.startswith("|") for line in text.splitlines()) > 4
    # every row of every table has as many unescaped pipes as its header
    block: list[str] = []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            assert {_unescaped(row, "|") for row in block} == {_unescaped(block[0], "|")}, block
            block = []
    assert "pair" in text and "audit" in text


@pytest.mark.slow
def test_diff_md_escapes_every_name(evil, tmp_path):
    empty = tmp_path / "empty.toml"
    empty.write_text('[suite]\nname = "x"\n[[audit]]\nname = "lap"\nmechanism = "laplace"\n'
                     'params = { epsilon = 1.0 }\n', encoding="utf-8")
    run = run_suites([str(empty)], workers=1)
    old = build_report(run, command="test old", exit_status=exit_status(run))
    text = diff_reports(old, evil).to_markdown()
    assert "### New violations" in text and "### Audit points added" in text
    assert not any(line.startswith("second line") for line in text.splitlines())
    assert [line for line in text.splitlines() if _raw_markup(line)] == []
    for line in text.splitlines():
        if line.startswith("| ") and "---" not in line:
            assert _unescaped(line, "|") == 6, line


@pytest.mark.slow
def test_report_html_escapes_every_name(evil):
    html = render_html(evil)
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
