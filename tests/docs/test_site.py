"""The documentation site: ``mkdocs build --strict`` passes (every link, anchor and docstring
of the API reference renders), the hook that shows repository files in it does what
docs/hooks/repository.py says, and the README stays the front door."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import CI_RUN, REPO, blocks, hooks

#: the README's two commands, byte for byte (tests/docs/test_blocks.py checks the first;
#: .ci/run runs the second)
FIRST = ('python3 -m venv .venv && .venv/bin/pip install -q -e ".[ml,report]" && '
         '.venv/bin/dpaudit run audits/ --out reports/latest')
SECOND = ('{ command -v chromium || { apt-get update -qq && apt-get install -y -qq chromium; } '
          '|| true; } >/dev/null 2>&1; python3 -m venv .venv && .venv/bin/pip install -q -e '
          '".[test]" && .venv/bin/python -m pytest -q')


@pytest.mark.slow
def test_mkdocs_build_strict_passes(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site), "--config-file", str(REPO / "mkdocs.yml")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    assert "WARNING" not in done.stderr, done.stderr[-6000:]
    # the README is the home page; the reproductions are included; the API is rendered
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "What it has found" in home and 'href="getting-started/"' in home
    dpsgd = (site / "reproductions" / "dpsgd" / "index.html").read_text(encoding="utf-8")
    assert "shuffled vs Poisson batches" in dpsgd
    api = (site / "api" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="dpaudit.api.audit_mechanism"' in api
    # a Sphinx role of a docstring became a link to the object's entry
    assert 'href="#dpaudit.mechanisms.base.Mechanism"' in (
        site / "api" / "dpaudit" / "index.html").read_text(encoding="utf-8")
    # a repository file a page links to is served beside the site
    assert (site / "repo" / "audits" / "classic.toml").is_file()


# -- the README ---------------------------------------------------------------------------------

README = REPO / "README.md"


def test_readme_is_a_front_door_of_at_most_250_lines():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for heading in ("## What it has found", "## Two commands", "## Audit your own mechanism",
                    "## In CI", "## What dpaudit guarantees", "## Documentation"):
        assert heading in text


def test_the_two_commands_are_unchanged_and_ci_runs_the_second():
    shown = [b.text.strip() for b in blocks("README.md") if b.lang == "sh"][:2]
    assert shown == [FIRST, SECOND]
    assert CI_RUN.read_text(encoding="utf-8").splitlines()[-1] == SECOND


def test_every_docs_page_is_in_the_navigation():
    import yaml

    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]

    def pages(entry):
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, list):
            for item in entry:
                yield from pages(item)
        elif isinstance(entry, dict):
            for value in entry.values():
                yield from pages(value)

    listed = set(pages(nav))
    found = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")
             if "hooks" not in p.parts}
    assert found == listed


# -- the hook -------------------------------------------------------------------------------------

@pytest.fixture
def repo(tmp_path) -> Path:
    """A small repository: docs/ with two pages, a report and a CI file outside it."""
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "reports" / "r").mkdir(parents=True)
    (tmp_path / "reports" / "r" / "README.md").write_text(
        "# Report\n\nSee [the suite](../../audits/a.toml) and [a figure](fig.png).\n"
        "## Part\n\n```sh\n[not a link](x.toml)\n```\n")
    (tmp_path / "reports" / "r" / "fig.png").write_bytes(b"png")
    (tmp_path / "audits").mkdir()
    (tmp_path / "audits" / "a.toml").write_text("")
    (tmp_path / "ci.yml").write_text("on: push\n")
    (tmp_path / "docs" / "index.md").write_text(
        "# Home\n\n[page](sub/page.md), [report](../reports/r/README.md), "
        "`[code](../nowhere)`\n")
    (tmp_path / "docs" / "sub" / "page.md").write_text(
        "# Page\n\n<!-- include: reports/r/README.md level=2 -->\n\n```yaml\n--8<-- \"ci.yml\"\n```\n")
    return tmp_path


def test_an_include_shows_the_file_with_its_links_and_headings_rebased(repo):
    site = hooks.SiteMap(repo, "docs", ["index.md", "sub/page.md"])
    page = site.resolve(hooks.expand("docs/sub/page.md", repo), "sub/page.md")
    assert "## Report" in page and "### Part" in page
    assert "[the suite](../repo/audits/a.toml)" in page
    assert "[a figure](../repo/reports/r/fig.png)" in page
    assert "[not a link](x.toml)" in page  # code is left alone
    assert "on: push" in page and "--8<--" not in page  # the snippet is shown
    assert site.copies == {"audits/a.toml": "repo/audits/a.toml",
                           "reports/r/fig.png": "repo/reports/r/fig.png"}
    home = site.resolve(hooks.expand("docs/index.md", repo), "index.md")
    # the included README is linked as the page that shows it; code spans stay as written
    assert "[report](sub/page.md)" in home and "`[code](../nowhere)`" in home


def test_a_broken_link_or_an_unshown_markdown_file_is_an_error(repo):
    (repo / "docs" / "index.md").write_text("[gone](../audits/gone.toml)\n")
    site = hooks.SiteMap(repo, "docs", ["index.md"])
    with pytest.raises(hooks.SiteError, match="audits/gone.toml, which does not exist"):
        site.resolve(hooks.expand("docs/index.md", repo), "index.md")
    (repo / "docs" / "index.md").write_text("[report](../reports/r/README.md)\n")
    site = hooks.SiteMap(repo, "docs", ["index.md"])
    with pytest.raises(hooks.SiteError, match="which no page includes"):
        site.resolve(hooks.expand("docs/index.md", repo), "index.md")
    (repo / "docs" / "index.md").write_text("<!-- include: docs/index.md -->\n")
    with pytest.raises(hooks.SiteError, match="include cycle"):
        hooks.expand("docs/index.md", repo)


def test_the_glossary_line_shows_the_reports_glossary(repo):
    from dpaudit.report.glossary import GLOSSARY

    (repo / "dpaudit" / "report").mkdir(parents=True)
    (repo / "dpaudit" / "report" / "glossary.py").write_bytes(
        (REPO / "dpaudit" / "report" / "glossary.py").read_bytes())
    (repo / "docs" / "index.md").write_text("# Words\n\n<!-- glossary -->\n\nAfter.\n")
    page = hooks.expand("docs/index.md", repo)
    shown = [line for line in page.splitlines() if line.startswith("- **")]
    assert [line.split("**")[1] for line in shown] == [term.word for term in GLOSSARY]
    assert "one \\[\\[audit\\]\\] of a suite file" in page and "require\\_power" in page
    assert page.rstrip().endswith("After.")
    (repo / "docs" / "index.md").write_text("```md\n<!-- glossary -->\n```\n")
    assert "**audit point**" not in hooks.expand("docs/index.md", repo)  # code is left alone


def test_a_fence_and_its_test_comment_in_a_list_item_stay_inside_the_item(repo):
    (repo / "docs" / "index.md").write_text(
        "1. Step:\n\n   <!-- test: covered x -->\n\n   ```sh\n   ls\n   ```\n")
    page = hooks.expand("docs/index.md", repo)
    assert "\n    <!-- test: covered x -->\n\n    ```sh\n    ls\n    ```\n" in page
