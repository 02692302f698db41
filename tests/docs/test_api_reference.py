"""The API reference pages (docs/api/*.md) are Markdown generated from the docstrings by
docs/hooks/api_reference.py: current, covering every public name of ``dpaudit``, readable
without building the site (no ``:::`` stubs), and converted faithfully (roles, literals,
literal blocks, tables).  Loading the package with griffe takes about a second of CPU."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.docs.blocks import REPO

_spec = importlib.util.spec_from_file_location("docs_hooks_api_reference",
                                               REPO / "docs" / "hooks" / "api_reference.py")
api_reference = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = api_reference  # its dataclasses look their module up
_spec.loader.exec_module(api_reference)


@pytest.fixture(scope="module")
def reference():
    return api_reference.Reference(api_reference.load_package())


@pytest.mark.slow
def test_the_pages_are_current(reference):
    stale = [name for name in api_reference.PAGES
             if (api_reference.API / name).read_text(encoding="utf-8")
             != reference.render_page(name)]
    assert not stale, (f"docs/api/{', '.join(stale)} differ from the docstrings: run "
                       f"`python docs/hooks/api_reference.py` and commit the pages")


def test_every_page_is_generated_and_readable_in_the_repository_view():
    pages = sorted(p.name for p in api_reference.API.glob("*.md"))
    assert pages == sorted(api_reference.PAGES)
    for name in pages:
        text = (api_reference.API / name).read_text(encoding="utf-8")
        assert text.startswith(api_reference.HEADER)
        assert "\n::: " not in text  # a mkdocstrings stub shows nothing outside the site
        assert ":class:`" not in text and "``" not in text.replace("```", "")


@pytest.mark.slow
def test_every_public_name_of_dpaudit_has_an_entry(reference):
    import dpaudit

    missing = [name for name in dpaudit.__all__ if name != "__version__"
               and api_reference._final(reference.package[name]).path not in reference.anchors]
    assert not missing


@pytest.mark.slow
def test_an_entry_shows_the_signature_and_the_contract(reference):
    page = reference.render_page("api.md")
    entry = page.split('<a id="dpaudit.api.audit_sampler"></a>', 1)[1].split("<a id=", 1)[0]
    assert "```python\naudit_sampler(\n    sampler,\n" in entry
    assert "**Args:**" in entry and "**Returns:**" in entry and "**Raises:**" in entry
    # a role to an object documented on another page is a link to its entry
    assert "[`AuditResult`](#dpaudit.api.AuditResult)" in entry
    mechanism = reference.render_page("dpaudit.md")
    assert "[`PureDP`](claims.md#dpaudit.claims.PureDP)" in mechanism
    assert "#### `Mechanism.worst_case_pairs`" in mechanism  # its methods, one level down
    assert "`known_bad: bool = False` — True for the published buggy variants" in mechanism


def test_literal_blocks_and_simple_tables_become_markdown():
    lines = ["Use it so::", "", "    x = f(1)", "    y = x", "", "After.", "",
             "=====  ==========", "name   what", "=====  ==========",
             "``a``  first line", "       continued", "``b``  second", "=====  =========="]
    out = "\n".join(api_reference._blocks(lines, lambda s: s.replace("``", "`")))
    assert "Use it so:\n\n```python\nx = f(1)\ny = x\n```\n" in out
    assert "| name | what |\n|---|---|\n| `a` | first line continued |\n| `b` | second |" in out
