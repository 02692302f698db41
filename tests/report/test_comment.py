"""comment.md always fits a pull-request comment (issue 39, item 10): summary.md of the
default run was 63 299 characters, a δ list of 1000 gave 352 KB, and GitHub refuses a comment
over 65 536 characters; the CI example's comment then vanished silently."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dpaudit.cli.commands import main
from dpaudit.report.comment import GITHUB_COMMENT_LIMIT, fit_comment

HEAD = "## ❌ FAIL — 3/2000 expectations met\n\n- unmet: a/b\n"
BIG = (HEAD + "<details><summary>every certificate</summary>\n\n| a | b |\n|---|---|\n"
       + "".join(f"| row {i} | {'x' * 60} |\n" for i in range(6000))
       + "</details>\n\n```text\n" + "code line\n" * 4000 + "```\n")


def test_a_short_comment_is_the_summary_itself():
    assert fit_comment(["diff", "summary"]) == "diff\n\nsummary\n"


@pytest.mark.parametrize("limit", [1000, 4096, 65_536])
def test_a_long_summary_is_cut_to_the_limit_with_a_link_and_closed_blocks(limit):
    text = fit_comment(["", BIG], limit=limit, link="https://ci.example/run/7")
    assert len(BIG) > 300_000 and len(text) <= limit
    assert text.startswith(HEAD) and "https://ci.example/run/7" in text
    assert "Cut to fit a pull-request comment" in text
    assert text.count("<details") == text.count("</details>")
    assert text.count("```") % 2 == 0


def test_the_limit_holds_whatever_the_lines():
    long_line = "y" * 100_000 + "\n"
    for limit in (1000, 5000, GITHUB_COMMENT_LIMIT):
        assert len(fit_comment([long_line * 3], limit=limit)) <= limit
        assert len(fit_comment(["```\n" + long_line], limit=limit, link="u" * 50)) <= limit


SUITE = """
[suite]
samples = 2000
[[audit]]
name = "lap"
mechanism = "laplace"
search = false
delta = [{deltas}]
"""


@pytest.mark.slow
def test_dpaudit_report_writes_the_comment(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    deltas = ", ".join(f"{d:.6g}" for d in [0.0] + [10.0 ** -(3 + i / 50) for i in range(120)])
    Path("big.toml").write_text(textwrap.dedent(SUITE.format(deltas=deltas)), encoding="utf-8")
    main(["run", "big.toml", "--out", "out", "-q"])
    summary = Path("out/summary.md").read_text(encoding="utf-8")
    assert main(["report", "out", "--format", "comment", "--comment-limit", "4000",
                 "--link", "https://ci.example/run/1"]) == 0
    comment = Path("out/comment.md").read_text(encoding="utf-8")
    assert len(summary) > 4000 >= len(comment) and "https://ci.example/run/1" in comment
    assert comment.splitlines()[0] == summary.splitlines()[0]  # the headline first
    assert main(["report", "out", "--format", "comment"]) == 0  # the default: GitHub's limit
    assert Path("out/comment.md").read_text(encoding="utf-8") == summary
