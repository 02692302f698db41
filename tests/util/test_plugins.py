"""dpaudit.util.plugins: an entry-point group's rows are registered once, under the key their
entry point advertises, or refused with the entry point named."""

from __future__ import annotations

import importlib
import sys

import pytest

from dpaudit.util.plugins import EntryPointRows


@pytest.fixture
def plugin_site(tmp_path, monkeypatch):
    """A distribution ``rows-demo`` whose group ``dpaudit.test_rows`` names two classes, one of
    them under a key it does not carry."""
    site = tmp_path / "site"
    (site / "rows_demo").mkdir(parents=True)
    (site / "rows_demo" / "__init__.py").write_text(
        "class Good:\n    kind = 'good'\n\nclass Liar:\n    kind = 'something-else'\n")
    info = site / "rows_demo-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rows-demo\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield info
    sys.modules.pop("rows_demo", None)


def test_rows_are_registered_once(plugin_site):
    (plugin_site / "entry_points.txt").write_text("[dpaudit.test_rows]\ngood = rows_demo:Good\n")
    registered = []
    rows = EntryPointRows("dpaudit.test_rows", "kind", registered.append)
    rows.load()
    rows.load()
    assert [cls.kind for cls in registered] == ["good"]
    rows.forget()
    rows.load()
    assert len(registered) == 2


def test_a_row_under_another_key_is_refused_with_its_entry_point_named(plugin_site):
    (plugin_site / "entry_points.txt").write_text("[dpaudit.test_rows]\nliar = rows_demo:Liar\n")
    rows = EntryPointRows("dpaudit.test_rows", "kind", lambda row: pytest.fail("registered"))
    with pytest.raises(ValueError, match=r"entry point 'liar' of dpaudit.test_rows names "
                                         r"rows_demo:Liar, whose kind is 'something-else'"):
        rows.load()
