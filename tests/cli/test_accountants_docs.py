"""docs/accountants.md shows the output of ``dpaudit accountants`` on issue 35's run with every
accountant installed: the lines it shows are what the command prints (times aside)."""

from __future__ import annotations

import re

import pytest

from dpaudit.cli import main
from tests.support import REPO

PAGE = REPO / "docs" / "accountants.md"
COMMAND = ["accountants", "--noise-multiplier", "1", "--sample-rate", "0.1", "--steps", "10"]


def _shown() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("<!-- test: covered tests/cli/test_accountants_docs.py -->\n```text\n",
                       1)[1].split("```", 1)[0]
    return block.splitlines()


@pytest.mark.slow  # Opacus's import of torch and the Poisson curve: ~15 s
def test_the_page_shows_what_the_command_prints(capsys):
    for module in ("opacus", "prv_accountant", "autodp"):
        pytest.importorskip(module, reason=f"the page's output has every accountant: {module} "
                            f"is not installed (opacus: the opacus extra)")
    assert " ".join(["dpaudit", *COMMAND]) in PAGE.read_text(encoding="utf-8")
    assert main(COMMAND) == 1
    printed = capsys.readouterr().out.splitlines()
    untimed = [re.sub(r" in \d+\.\d s$", "", line) for line in printed]
    assert untimed == [re.sub(r" in \d+\.\d s$", "", line) for line in _shown()]
