"""Your own code, imported as pytest would (issue 26, item 4): a file reference resolves with
the project root on ``sys.path`` — whatever route loads it and in whatever order the audits
come — and ``sys.path`` is left as it was.

Every test builds a throwaway project whose package has a name no other test uses, so that a
module cached in ``sys.modules`` by an earlier test cannot make a test pass."""

from __future__ import annotations

import sys
import textwrap
import uuid
from pathlib import Path

import cloudpickle
import pytest

from dpaudit.api import audit_mechanism, run_suites
from dpaudit.cli.commands import main
from dpaudit.mechanisms.references import (CodeReferenceError, import_directories,
                                           load_reference, locate_module, project_root)
from dpaudit.suite import SuiteError, load_suite

PACKAGE = '''
import numpy as np
from dpaudit import Mechanism, NeighbourPair, Parameter, PureDP, laplace_on_grid


class Count(Mechanism):
    name = "user-count"
    family = "user"
    epsilon = Parameter(1.0, None, "privacy parameter")

    def sample(self, dataset, n, rng):
        return laplace_on_grid(float(np.sum(dataset)), 1.0 / self.epsilon, n, rng)

    def claim(self):
        return PureDP(self.epsilon)

    def worst_case_pairs(self):
        return [NeighbourPair("one", [0.0], [1.0], "")]
'''


@pytest.fixture
def project(tmp_path):
    """``root/{pyproject.toml, <pkg>/stats.py, dpaudit_targets/count.py, audits/}``: the
    target file imports the package that lives at the root, as a user's would."""
    pkg = f"privstats_{uuid.uuid4().hex[:8]}"
    root = tmp_path / "proj"
    (root / pkg).mkdir(parents=True)
    (root / pkg / "__init__.py").write_text("")
    (root / pkg / "stats.py").write_text(PACKAGE)
    (root / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    (root / "dpaudit_targets").mkdir()
    (root / "dpaudit_targets" / "count.py").write_text(f"from {pkg}.stats import Count\n")
    (root / "audits").mkdir()
    return root, pkg


def _suite(root: Path, body: str) -> Path:
    path = root / "audits" / "s.toml"
    path.write_text("[suite]\nsamples = 1000\n" + textwrap.dedent(body))
    return path


def test_the_root_is_the_nearest_folder_with_a_marker(tmp_path, monkeypatch):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "x.py").write_text("")
    outer = project_root(tmp_path)  # whatever holds the temporary folder (normally None)
    for marker in ("setup.cfg", ".git", "pytest.ini"):
        (tmp_path / "a" / marker).write_text("")
        assert project_root(tmp_path / "a" / "b" / "x.py") == (tmp_path / "a").resolve()
        (tmp_path / "a" / marker).unlink()
    assert project_root(tmp_path / "a" / "b" / "x.py") == outer
    monkeypatch.chdir(tmp_path)  # no marker: the current directory stands in for the root
    expected_root = str(outer or tmp_path.resolve())
    assert import_directories("a/b/x.py") == (str((tmp_path / "a" / "b").resolve()),
                                              expected_root)
    assert import_directories("pkg.mod", tmp_path / "a")[0] == str((tmp_path / "a").resolve())


def test_a_file_imports_a_package_at_the_root_and_sys_path_is_restored(project):
    root, pkg = project
    before = list(sys.path)
    cls = load_reference("dpaudit_targets/count.py:Count", root)
    assert cls.__module__ == f"{pkg}.stats" and sys.path == before
    # found only through the root, so it travels by value to workers whatever their sys.path
    assert b"_make_skeleton_class" in cloudpickle.dumps(cls)  # the class itself, by value


def test_a_module_reference_leaves_sys_path_unchanged(project):
    root, pkg = project
    before = list(sys.path)
    assert load_reference(f"{pkg}.stats:Count", root / "audits").__name__ == "Count"
    # a resumed run fingerprints the module's file, found the same way (dpaudit.audit.journal)
    assert locate_module(f"{pkg}.stats", root / "audits") == str(root / pkg / "stats.py")
    assert sys.path == before


def test_the_suite_route_needs_no_earlier_module_reference(project):
    root, _ = project
    path = _suite(root, """
        [[audit]]
        name = "count"
        mechanism = "../dpaudit_targets/count.py:Count"
        white_box = false
        search = false
        """)
    before = list(sys.path)
    run = run_suites([str(path)])
    assert [s.error for s in run.suites] == [None] and sys.path == before
    assert [o.verdict for o in run.outcomes] == ["consistent"]


def test_check_and_the_api_resolve_from_the_project_root(project, monkeypatch, capsys):
    root, _ = project
    monkeypatch.chdir(root / "audits")  # not the root: the root comes from the file
    before = list(sys.path)
    status = main(["check", "../dpaudit_targets/count.py:Count", "--samples", "1000",
                   "--no-search"])
    assert status == 0, capsys.readouterr().err
    result = audit_mechanism("../dpaudit_targets/count.py:Count", samples=1000, search=False,
                             white_box=False)
    assert result.verdict == "consistent" and sys.path == before


def test_a_missing_module_says_where_it_looked(tmp_path):
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "t.py").write_text("import no_such_package_here_xyz\n")
    with pytest.raises(CodeReferenceError) as info:
        load_reference("t.py:X", tmp_path)
    assert "No module named 'no_such_package_here_xyz'" in str(info.value)
    assert f"looked in {tmp_path.resolve()}" in str(info.value)


def test_a_misspelt_class_gets_did_you_mean(project):
    root, _ = project
    path = _suite(root, '[[audit]]\nname = "x"\nmechanism = "../dpaudit_targets/count.py:Cuont"\n')
    with pytest.raises(SuiteError, match="did you mean 'Count'"):
        load_suite(path)


@pytest.mark.slow
def test_workers_get_the_user_classes_whatever_their_path(project):
    """A local pool: the suite's file reference is re-imported by the workers, and a class
    found only through the root (given as an object) is pickled by value."""
    root, _ = project
    path = _suite(root, """
        [[audit]]
        name = "count"
        mechanism = "../dpaudit_targets/count.py:Count"
        white_box = false
        search = false
        [[audit.pairs]]
        d0 = [0.0]
        d1 = [1.0]
        [[audit.pairs]]
        d0 = [1.0]
        d1 = [0.0]
        """)
    one, two = (run_suites([str(path)], workers=w) for w in (1, 2))
    assert [r.epsilon_lower_bound for r in one.records] == \
        [r.epsilon_lower_bound for r in two.records]
    cls = load_reference("dpaudit_targets/count.py:Count", root)
    result = audit_mechanism(cls, pairs=[([0.0], [1.0]), ([1.0], [0.0])], samples=1000,
                             workers=2, search=False, white_box=False)
    assert result.verdict == "consistent", result.explain()
