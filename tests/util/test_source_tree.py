"""``dpaudit.proofs`` is the repository's ``proofs/`` folder — installed under that name, or
mapped by :mod:`dpaudit.util.source_tree` for a checkout on ``sys.path`` — and this checkout never
provides a top-level ``proofs`` package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpaudit.util import source_tree

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def checkout(tmp_path):
    """A minimal source checkout: pyproject.toml, dpaudit/ and proofs/ side by side."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "dpaudit").mkdir()
    (tmp_path / "proofs").mkdir()
    (tmp_path / "proofs" / "__init__.py").write_text("")
    yield tmp_path
    sys.meta_path[:] = [f for f in sys.meta_path
                        if not (isinstance(f, source_tree.SourceProofsFinder)
                                and f.directory == tmp_path / "proofs")]


def test_a_checkout_maps_exactly_dpaudit_proofs_to_its_proofs_folder(checkout):
    before = len(sys.meta_path)
    finder = source_tree.map_source_proofs(checkout / "dpaudit")
    assert sys.meta_path[0] is finder and len(sys.meta_path) == before + 1
    spec = finder.find_spec("dpaudit.proofs")
    assert Path(spec.origin) == checkout / "proofs" / "__init__.py"
    assert list(spec.submodule_search_locations) == [str(checkout / "proofs")]
    assert finder.find_spec("proofs") is None and finder.find_spec("dpaudit.audit") is None
    assert source_tree.map_source_proofs(checkout / "dpaudit") is finder  # not added twice
    assert len(sys.meta_path) == before + 1


def test_nothing_is_mapped_for_an_installed_layout_or_without_a_checkout(checkout):
    (checkout / "dpaudit" / "proofs").mkdir()  # a wheel: dpaudit/proofs/ exists
    assert source_tree.map_source_proofs(checkout / "dpaudit") is None
    (checkout / "dpaudit" / "proofs").rmdir()
    (checkout / "pyproject.toml").unlink()  # site-packages: no pyproject beside dpaudit/
    assert source_tree.map_source_proofs(checkout / "dpaudit") is None


@pytest.mark.slow
def test_this_checkout_provides_dpaudit_proofs_and_no_top_level_proofs(tmp_path):
    """Only dpaudit/ on the path (a link to this checkout's package, the way an install
    exposes it), not the repository root: dpaudit.proofs is this checkout's proofs/, and
    nothing dpaudit does makes a top-level ``proofs`` importable."""
    (tmp_path / "path").mkdir()
    (tmp_path / "path" / "dpaudit").symlink_to(ROOT / "dpaudit", target_is_directory=True)
    code = ("import importlib.util, dpaudit.proofs, dpaudit.proofs.framework\n"
            "top = importlib.util.find_spec('proofs')\n"
            "print(dpaudit.proofs.__file__)\n"
            "print(top.origin if top else None)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, text=True, check=True,
                         capture_output=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "path")})
    mapped, top = out.stdout.splitlines()
    assert Path(mapped) == ROOT / "proofs" / "__init__.py"
    # another installed dpaudit may still ship an old top-level `proofs`; this one must not
    assert top == "None" or not Path(top).resolve().is_relative_to(ROOT), top
