"""Reading a suite runs none of its code when it is malformed or only collected (issue 39,
item 3: import side effects ran for malformed files and ``pytest --collect-only``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from dpaudit.suite.spec import SuiteError, load_suite


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "audits").mkdir()
    (tmp_path / "audits" / "side.py").write_text(textwrap.dedent(f"""\
        open({str(tmp_path / 'SIDE_EFFECT')!r}, 'w').close()
        import numpy as np
        def noisy(d, n, rng, epsilon=1.0):
            return float(np.sum(d)) + rng.laplace(size=n) / epsilon
        """))
    return tmp_path


GOOD = """\
[suite]
samples = 2000
[[audit]]
name = "mine"
sampler = "side.py:noisy"
claim = { notion = "pure-dp", epsilon = 1.0 }
search = false
[[audit.pairs]]
d0 = [0.0]
d1 = [1.0]
"""


def test_a_malformed_file_imports_none_of_the_code_it_names(project):
    path = project / "audits" / "bad.toml"
    path.write_text(GOOD + '[[audit]]\nname = "typo"\nmechanism = "laplace"\nbogus = 1\n')
    with pytest.raises(SuiteError, match="bogus"):
        load_suite(path)
    assert not (project / "SIDE_EFFECT").exists()


def test_a_well_formed_file_is_checked_with_its_code(project):
    path = project / "audits" / "good.toml"
    path.write_text(GOOD.replace("side.py:noisy", "side.py:missing"))
    with pytest.raises(SuiteError, match="no attribute 'missing'"):
        load_suite(path)
    assert (project / "SIDE_EFFECT").exists()  # the full check imports it, as it must


def test_reading_without_code_keeps_names_and_points(project):
    path = project / "audits" / "good.toml"
    path.write_text(GOOD.replace("search = false", "search = false\nsweep = { epsilon = [1, 2] }")
                    .replace(', epsilon = 1.0 }', ' }'))
    suite = load_suite(path, load_code=False)
    assert [(a.name, len(a.points())) for a in suite.audits] == [("mine", 2)]
    assert not (project / "SIDE_EFFECT").exists()


@pytest.mark.slow
def test_pytest_collect_only_runs_no_user_code(project):
    (project / "audits" / "good.toml").write_text(GOOD)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p",
                           "no:cacheprovider", "--dpaudit-suites", "audits/"],
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert "good.toml::mine" in done.stdout, done.stdout + done.stderr
    assert not (project / "SIDE_EFFECT").exists()


@pytest.mark.slow
def test_a_code_error_found_when_the_file_runs_fails_its_items(project):
    (project / "audits" / "good.toml").write_text(GOOD.replace("side.py:noisy",
                                                               "side.py:missing"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--dpaudit-suites", "audits/"],
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "no attribute 'missing'" in done.stdout, done.stdout
