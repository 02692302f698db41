"""Every command and code block the documentation shows is run (or, where running it would
not fit a test, checked), source by source, as tests/docs/blocks.py describes."""

from __future__ import annotations

import pytest

from tests.docs.blocks import LANGS, REPO, blocks, commands, describe, is_slow, sources
from tests.docs.session import Session, output_matches

SOURCES = sources()


def _named(path: str, code: str) -> bool:
    """``code`` refers to the repository file ``path`` (its parts quoted, or its name)."""
    return path in code or all(f'"{part}"' in code for part in path.split("/"))


def test_the_documentation_is_readme_docs_and_what_they_include():
    assert SOURCES[0] == "README.md"
    assert {"docs/index.md", "docs/check.md", "docs/own-mechanism.md"} <= set(SOURCES)
    # one source of truth: the reproductions and benchmarks are included, not copied
    assert {"reports/dpsgd/README.md", "reports/external/README.md",
            "benchmarks/RESULTS.md"} <= set(SOURCES)


def test_every_block_is_accounted_for():
    """Each block has a language the sessions know, or a directive; a ``covered`` block names
    a test that exists and reads this source; the inventory is printed with ``-s``."""
    problems, inventory = [], []
    for source in SOURCES:
        for block in blocks(source):
            inventory.append(f"{block.where} [{block.lang}] {describe(block)}")
            kind, arg = block.directive or (None, "")
            if kind is None and block.lang not in LANGS - {"text"}:
                problems.append(f"{block.where}: a {block.lang or 'plain'} block needs a "
                                f"<!-- test: ... --> line")
            if kind == "covered":
                test = REPO / arg
                if not test.is_file():
                    problems.append(f"{block.where}: covered by {arg}, which does not exist")
                    continue
                code = test.read_text(encoding="utf-8")
                # the covering test names the page, or the files the block shows
                names = block.shows or (source,)
                if not all(_named(name, code) for name in names):
                    problems.append(f"{block.where}: {arg} does not read {' '.join(names)}")
            if kind is None and block.lang in ("sh", "console"):
                if not commands(block):
                    problems.append(f"{block.where}: no command in the block")
    print("\n".join(inventory))
    assert not problems, "\n".join(problems)


def test_the_output_comparison_can_fail():
    actual = "head line\nA: 1\nB: 2\nresult: ok in 1.4 s; exit status 0\n"
    assert output_matches(("head line", "...", "B: 2", "result: ok in 9.9 s; exit status 0"),
                          actual) is None
    assert output_matches(("head line", "B: 2", "A: 1"), actual) == "missing (in this order): 'A: 1'"
    assert "first line" in output_matches(("other head", "..."), actual)
    assert output_matches(("...", "C: 3"), actual) is not None


@pytest.mark.parametrize("source", [
    pytest.param(source, marks=[pytest.mark.slow] if is_slow(source) else [])
    for source in SOURCES if blocks(source)])
def test_source_blocks_run(source, tmp_path):
    Session(source, tmp_path / "sandbox").run()


@pytest.mark.slow  # starts python to parse the suites
def test_a_refused_suite_must_not_parse(tmp_path):
    from tests.docs.blocks import Block

    session = Session("docs/suite-files.md", tmp_path / "sandbox")
    bad = Block("page.md", 1, "toml", '[[audit]]\nname = "a"\nmechanism = "laplac"\n',
                ("refused", "audits/bad.toml"))
    session.block(bad)  # refused, as shown
    good = Block("page.md", 5, "toml", '[[audit]]\nname = "a"\nmechanism = "laplace"\n',
                 ("refused", "audits/good.toml"))
    with pytest.raises(AssertionError, match="shown as refused, but it parses"):
        session.block(good)


def test_installs_are_checked_not_run_however_pip_is_called():
    from tests.docs.blocks import plan_command

    for command in ('pip install "dpaudit[report] @ git+https://example.org/d.git@abc"',
                    'python -m pip install "$DPAUDIT_SPEC" pytest',
                    '.venv/bin/python -m pip install -e ".[opacus]"'):
        assert plan_command(command) == ("check", "installs: extras checked against "
                                                  "pyproject.toml"), command
    assert plan_command("python -m pytest -q tests/test_counts.py")[0] == "run"
