"""The trust model of suite files (issue 39, item 3): a suite names code of its project and
nothing else.  Each probe of the issue — a TOML-only suite that deleted a directory with
``shutil:rmtree``, ran a command with ``pty:spawn``, or imported a file outside the repository —
is now one line naming the reference, and nothing it named ran."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest

from dpaudit.api import run_suites
from dpaudit.mechanisms.reference_policy import trusted_root
from dpaudit.mechanisms.references import CodeReferenceError, load_reference
from dpaudit.suite.spec import SuiteError, load_suite

SAMPLER = ("import numpy as np\n"
           "def noisy(d, n, rng, epsilon=1.0):\n"
           "    return float(np.sum(d)) + rng.laplace(size=n) / epsilon\n")


@pytest.fixture
def project(tmp_path):
    """tmp/project (a pyproject.toml: the project) with audits/, and tmp/outside/ beside it,
    whose evil.py leaves a file when imported."""
    root = tmp_path / "project"
    (root / "audits").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "audits" / "mine.py").write_text(SAMPLER + "from shutil import rmtree\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.py").write_text(
        f"open({str(tmp_path / 'EVIL_RAN')!r}, 'w').close()\n" + SAMPLER)
    return root


def _suite(root, reference, d0):
    path = root / "audits" / "s.toml"
    path.write_text(textwrap.dedent(f"""\
        [suite]
        samples = 2000
        [[audit]]
        name = "x"
        sampler = "{reference}"
        claim = {{ notion = "pure-dp", epsilon = 1.0 }}
        search = false
        [[audit.pairs]]
        d0 = {d0}
        d1 = [1.0]
        """), encoding="utf-8")
    return path


def test_a_toml_only_suite_cannot_delete_a_directory(project, tmp_path):
    victim = tmp_path / "victim"
    (victim / "inner").mkdir(parents=True)
    path = _suite(project, "shutil:rmtree", f'"{victim}"')
    with pytest.raises(SuiteError, match="standard library"):
        load_suite(path)
    run = run_suites([str(path)])
    assert run.suites[0].error and "standard library" in run.suites[0].error
    assert (victim / "inner").is_dir()


def test_a_toml_only_suite_cannot_run_a_command(project, tmp_path):
    marker = tmp_path / "pwned"
    path = _suite(project, "pty:spawn", f'["/bin/sh", "-c", "id > {marker}"]')
    run_suites([str(path)])
    assert not marker.exists()


@pytest.mark.parametrize("reference", [
    "../../outside/evil.py:noisy", "{outside}/evil.py:noisy"])
def test_files_outside_the_project_are_refused_before_they_run(project, tmp_path, reference):
    path = _suite(project, reference.format(outside=tmp_path / "outside"), "[0.0]")
    with pytest.raises(SuiteError, match="outside the project"):
        load_suite(path)
    assert not (tmp_path / "EVIL_RAN").exists()


def test_a_link_inside_the_project_to_a_file_outside_is_refused(project, tmp_path):
    os.symlink(tmp_path / "outside" / "evil.py", project / "audits" / "link.py")
    with pytest.raises(CodeReferenceError, match="outside the project"):
        load_reference("link.py:noisy", project / "audits")
    assert not (tmp_path / "EVIL_RAN").exists()


def test_a_library_function_a_project_file_imports_is_not_nameable(project):
    with pytest.raises(CodeReferenceError, match="shutil.rmtree.*not defined in the project"):
        load_reference("mine.py:rmtree", project / "audits")
    assert callable(load_reference("mine.py:noisy", project / "audits"))  # its own code is


@pytest.mark.parametrize("reference", ["os:system", "numpy:save", "scipy.stats:norm"])
def test_modules_of_the_standard_library_and_installed_packages_are_refused(project, reference):
    with pytest.raises(CodeReferenceError, match="standard library|installed package"):
        load_reference(reference, project / "audits")


def test_installed_packages_in_a_virtual_environment_inside_the_project_are_refused(
        project, monkeypatch):
    site = project / ".venv" / "lib" / "site-packages"
    (site / "fakepkg").mkdir(parents=True)
    (site / "fakepkg" / "__init__.py").write_text(SAMPLER)
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(CodeReferenceError, match="installed package"):
        load_reference("fakepkg:noisy", project / "audits")


def test_dpaudits_own_code_and_project_modules_are_allowed(project, monkeypatch):
    (project / "privpkg").mkdir()
    (project / "privpkg" / "__init__.py").write_text(SAMPLER)
    assert callable(load_reference("privpkg:noisy", project / "audits"))
    assert load_reference("dpaudit.mechanisms.classic:LaplaceMechanism", project / "audits")


def test_the_project_is_the_nearest_root_marker_else_the_suites_folder(tmp_path, monkeypatch):
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a")
    assert trusted_root(tmp_path / "a" / "b") == (tmp_path / "a").resolve()  # inside the cwd
    (tmp_path / "a" / "setup.cfg").write_text("")
    assert trusted_root(tmp_path / "a" / "b") == (tmp_path / "a").resolve()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a" / "setup.cfg").unlink()
    (tmp_path / "c").mkdir()
    monkeypatch.chdir(tmp_path / "c")
    if trusted_root(tmp_path) == tmp_path.resolve():  # no marker above the temporary folder
        assert trusted_root(tmp_path / "a" / "b") == (tmp_path / "a" / "b").resolve()


def test_requires_imports_nothing_it_does_not_know(project, tmp_path, monkeypatch):
    """``requires = ["unittest.__main__"]`` ran unittest's command line while parsing."""
    path = project / "audits" / "r.toml"
    path.write_text('[suite]\nrequires = ["unittest.__main__"]\n[[audit]]\nname = "a"\n'
                    'mechanism = "laplace"\n', encoding="utf-8")
    with pytest.raises(SuiteError, match="no dots"):
        load_suite(path)
    (tmp_path / "noisy_import.py").write_text(
        f"open({str(tmp_path / 'IMPORTED')!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path.write_text('[suite]\nrequires = ["noisy_import"]\n[[audit]]\nname = "a"\n'
                    'mechanism = "laplace"\n', encoding="utf-8")
    assert load_suite(path).audits[0].name == "a"  # present: the suite runs
    assert "noisy_import" not in sys.modules and not (tmp_path / "IMPORTED").exists()
    path.write_text('[suite]\nrequires = ["no_such_library_xyz"]\n[[audit]]\nname = "a"\n'
                    'mechanism = "laplace"\n', encoding="utf-8")
    from dpaudit.suite.requires import SuiteSkipped
    with pytest.raises(SuiteSkipped, match="no_such_library_xyz"):
        load_suite(path)
