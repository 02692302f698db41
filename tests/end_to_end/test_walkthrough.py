"""The "Audit your own mechanism" walkthrough of README.md and docs/own-mechanism.md, run as
written (``dpaudit init`` alone: tests/cli/test_scaffold.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support import REPO

#: the pages that show the walkthrough, each between <!-- walkthrough:start/end --> markers
PAGES = (REPO / "README.md", REPO / "docs" / "own-mechanism.md")


def walkthrough_lines(page: Path = PAGES[0]) -> list[str]:
    text = page.read_text(encoding="utf-8")
    block = re.search(r"<!-- walkthrough:start -->\s*```sh\n(.*?)```\s*<!-- walkthrough:end -->",
                      text, re.S)
    assert block, f"{page.name} lost its walkthrough block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_every_page_shows_the_same_walkthrough():
    assert all(walkthrough_lines(page) == walkthrough_lines() for page in PAGES)


def install_line(page: Path) -> str:
    """The install command shown just before the walkthrough (not run here: it installs)."""
    head = page.read_text(encoding="utf-8").split("<!-- walkthrough:start -->", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", head, re.S)
    assert blocks, f"{page.name} shows no install line before its walkthrough"
    return blocks[-1].strip()


def test_the_install_line_before_the_walkthrough_installs_pytest():
    # the walkthrough runs `python -m pytest`: installing dpaudit alone left it out (issue 37)
    readme_first = re.search(r'pip install -q -e "(\.\[[a-z,]+\])"',
                             PAGES[0].read_text(encoding="utf-8"))  # README command 1's extras
    for page in PAGES:
        words = install_line(page).split()
        assert "pytest" in words and f'"{readme_first.group(1)}"' in words, page.name


def test_readme_walkthrough_runs_as_written(tmp_path):
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("PYTEST_ADDOPTS", None)
    script = "set -euo pipefail\n" + "\n".join(walkthrough_lines()) + "\n"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = tmp_path / "my-audit"
    assert (out / "reports" / "results.json").is_file()
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert junit.count("<testcase") == 2
    assert 'failures="0"' in junit and 'errors="0"' in junit and "<failure" not in junit
    assert "exit status 0" in done.stdout  # dpaudit check's last line
