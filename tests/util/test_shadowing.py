"""A folder named ``dpaudit`` that hides the installed package (dpaudit/util/shadowing.py):
found before it bites, named where dpaudit's code runs when it has (the pytest plugin, a user
file's import), and the trap itself reproduced where it exists (an editable install)."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from dpaudit.mechanisms.references import CodeReferenceError, load_reference
from dpaudit.util.shadowing import (folder_that_would_shadow, shadowing_folders,
                                    shadowing_message)
from tests.installed import clean_environment

#: sys.path without any folder that holds a regular ``dpaudit`` package (the repository root
#: pytest puts first, site-packages of a wheel install): what Python run elsewhere sees
#: besides its current directory when dpaudit is reached through an editable finder
STDLIB_ONLY = [p for p in sys.path if p and "site-packages" not in p
               and not (Path(p) / "dpaudit" / "__init__.py").is_file()]


def namespace_dpaudit(folder: Path) -> types.ModuleType:
    """What ``import dpaudit`` makes of a folder without __init__.py: a namespace package."""
    spec = importlib.machinery.PathFinder.find_spec("dpaudit", [str(folder.parent)])
    assert spec is not None and spec.loader is None or spec.origin in (None, "namespace")
    module = types.ModuleType("dpaudit")
    module.__path__ = list(spec.submodule_search_locations)
    return module


def test_the_imported_package_is_not_a_shadow():
    assert shadowing_folders() == ()  # this test run imported the real package


def test_a_namespace_dpaudit_is_named_with_its_folder(tmp_path):
    (tmp_path / "dpaudit").mkdir()
    assert shadowing_folders(namespace_dpaudit(tmp_path / "dpaudit")) == (tmp_path / "dpaudit",)
    message = shadowing_message(tmp_path / "dpaudit")
    assert str(tmp_path / "dpaudit") in message and "(unknown location)" in message
    assert "cd into it" in message


def test_a_folder_that_would_shadow_is_found_before_it_bites(tmp_path, monkeypatch):
    (tmp_path / "dpaudit" / "dpaudit").mkdir(parents=True)  # a clone: no __init__.py at its top
    monkeypatch.setattr(sys, "path", [str(tmp_path), *STDLIB_ONLY])
    assert folder_that_would_shadow(tmp_path) == (tmp_path / "dpaudit").resolve()
    # a real package folder, or no folder, or a regular dpaudit later on the path: no shadow
    (tmp_path / "dpaudit" / "__init__.py").write_text("")
    assert folder_that_would_shadow(tmp_path) is None
    assert folder_that_would_shadow(tmp_path / "elsewhere") is None
    (tmp_path / "dpaudit" / "__init__.py").unlink()
    regular = tmp_path / "site" / "dpaudit"
    regular.mkdir(parents=True)
    (regular / "__init__.py").write_text("")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *STDLIB_ONLY, str(tmp_path / "site")])
    assert folder_that_would_shadow(tmp_path) is None


def test_the_pytest_plugin_refuses_to_start_under_a_shadow(tmp_path, monkeypatch):
    from dpaudit import pytest_plugin

    (tmp_path / "dpaudit").mkdir()
    monkeypatch.setitem(sys.modules, "dpaudit", namespace_dpaudit(tmp_path / "dpaudit"))
    with pytest.raises(pytest.UsageError, match="hides the installed dpaudit package"):
        pytest_plugin.pytest_configure(None)


def test_a_user_file_whose_import_fails_under_a_shadow_says_why(tmp_path, monkeypatch):
    (tmp_path / "dpaudit").mkdir()
    user = tmp_path / "mine.py"
    user.write_text("from dpaudit import not_a_name_of_dpaudit\n")
    monkeypatch.setitem(sys.modules, "dpaudit", namespace_dpaudit(tmp_path / "dpaudit"))
    with pytest.raises(CodeReferenceError) as caught:
        load_reference(f"{user}:f")
    assert "hides the installed dpaudit package" in str(caught.value)


def editable_install() -> bool:
    """Whether the dpaudit this test runs is reached through a meta-path finder (an editable
    install, as `.ci/run`'s `pip install -e`), not a folder on sys.path."""
    spec = importlib.machinery.PathFinder.find_spec("dpaudit", STDLIB_ONLY + [
        p for p in sys.path if "site-packages" in p])
    return spec is None or spec.origin in (None, "namespace")


@pytest.mark.slow
@pytest.mark.skipif(not editable_install(), reason="dpaudit is installed as a regular package "
                    "(a wheel): a folder named dpaudit cannot hide it")
def test_the_trap_reproduced_and_named(tmp_path):
    (tmp_path / "dpaudit" / "dpaudit").mkdir(parents=True)  # the README's clone, beside
    (tmp_path / "tests").mkdir()                              # the project
    (tmp_path / "tests" / "test_it.py").write_text(
        "from dpaudit import laplace_on_grid\n\ndef test_it():\n    pass\n")
    env = clean_environment()
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    plain = subprocess.run([sys.executable, "-c", "from dpaudit import laplace_on_grid"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert "cannot import name 'laplace_on_grid' from 'dpaudit' (unknown location)" in \
        plain.stderr  # the trap, as the issue met it
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-p", "no:xdist", "tests"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120)
    assert tests.returncode == 4, tests.stdout + tests.stderr  # pytest's usage error
    assert f"{tmp_path / 'dpaudit'} hides the installed dpaudit package" in tests.stderr
    init = subprocess.run([str(Path(sys.executable).parent / "dpaudit"), "init", "."],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert init.returncode == 0 and "hides the installed dpaudit package" in init.stderr
