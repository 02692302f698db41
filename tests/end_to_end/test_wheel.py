"""Issue 26, item 3: the wheel a user installs holds everything, and a new project goes green
with it from a fresh virtual environment outside the repository.

The wheel and sdist are built by ``python -m build`` and pass ``twine check --strict``; the
wheel holds every module of dpaudit/ and of proofs/ (as ``dpaudit.proofs``), every data file
(the results.json schemas, the report templates, the proof certificates), no top-level
``proofs`` or ``tests``, and the ``dpaudit`` script and ``pytest11`` entry points.  In the
fresh environment (tests/installed.py) a project made by ``dpaudit init`` passes ``dpaudit
check``, ``dpaudit run`` and pytest through the plugin the wheel registers, and ``dpaudit prove
--check`` finds the installed certificates up to date.
"""

from __future__ import annotations

import configparser
import json
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from dpaudit.version import __version__
from tests.installed import checkout_files
from tests.support import REPO

#: repository folder -> where it is installed in the wheel (pyproject's ``package-dir``)
INSTALLED_AS = {"dpaudit": "dpaudit", "proofs": "dpaudit/proofs"}


def source_files() -> dict[str, str]:
    """Every file of dpaudit/ and proofs/ in the checkout (modules and data): its path in the
    checkout -> its path in the wheel."""
    out = {}
    for name in checkout_files():
        folder, _, rest = name.partition("/")
        if folder in INSTALLED_AS and "__pycache__" not in name:
            out[name] = f"{INSTALLED_AS[folder]}/{rest}"
    return out


def wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def wheel_metadata(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        (path,) = [n for n in archive.namelist()
                   if n.endswith(f".dist-info/{name}") and n.count("/") == 1]
        return archive.read(path).decode()


def test_wheel_and_sdist_pass_twine_check(dpaudit_dist):
    assert dpaudit_dist.wheel.name == f"dpaudit-{__version__}-py3-none-any.whl"
    assert dpaudit_dist.sdist.name == f"dpaudit-{__version__}.tar.gz"
    assert dpaudit_dist.twine.count("PASSED") == 2, dpaudit_dist.twine


def test_the_wheel_holds_every_module_and_data_file(dpaudit_dist):
    names = wheel_names(dpaudit_dist.wheel)
    expected = set(source_files().values())
    # the shipped data files are among them (a new one must be in package-data to be here)
    assert {"dpaudit/results/results.schema.json", "dpaudit/report/templates/report.html.j2",
            "dpaudit/proofs/certificates/classic.json"} <= expected
    assert expected - names == set()
    installed = {n for n in names if ".dist-info/" not in n}
    assert installed - expected == set()  # nothing else: no top-level proofs/ or tests/
    assert all(n.startswith("dpaudit/") for n in installed)


def test_the_wheel_registers_the_script_and_the_pytest_plugin(dpaudit_dist):
    entry_points = configparser.ConfigParser()
    entry_points.read_string(wheel_metadata(dpaudit_dist.wheel, "entry_points.txt"))
    assert dict(entry_points["console_scripts"]) == {"dpaudit": "dpaudit.cli.supervisor:main"}
    assert dict(entry_points["pytest11"]) == {"dpaudit": "dpaudit.pytest_plugin"}
    metadata = wheel_metadata(dpaudit_dist.wheel, "METADATA")
    assert "License-Expression: Apache-2.0" in metadata
    assert "Requires-Dist: matplotlib>=3.8; extra == \"report\"" in metadata
    assert "Description-Content-Type: text/markdown" in metadata


def test_the_sdist_holds_the_sources_the_wheel_is_built_from(dpaudit_dist):
    with tarfile.open(dpaudit_dist.sdist) as archive:
        names = {PurePosixPath(n).relative_to(f"dpaudit-{__version__}").as_posix()
                 for n in archive.getnames() if "/" in n}
    assert {"pyproject.toml", "README.md"} <= names
    assert set(source_files()) - names == set()


@pytest.fixture(scope="module")
def project(dpaudit_venv, tmp_path_factory) -> Path:
    """A new user's project: ``dpaudit init`` in an empty folder outside the repository."""
    folder = tmp_path_factory.mktemp("user-project")
    assert not folder.resolve().is_relative_to(REPO)
    result = dpaudit_venv.run(["dpaudit", "init", "."], cwd=folder)
    assert "wrote my_mechanism.py" in result.stdout
    return folder


def test_the_fresh_environment_runs_the_installed_dpaudit(dpaudit_venv, project):
    where = dpaudit_venv.run(["python", "-c", "import dpaudit, dpaudit.proofs as p; "
                              "print(dpaudit.__file__); print(p.__file__)"], cwd=project)
    site = dpaudit_venv.root.resolve()
    for line in where.stdout.split():
        assert Path(line).resolve().is_relative_to(site), where.stdout
    assert dpaudit_venv.run(["python", "-c", "import proofs"], cwd=project,
                            check=False).returncode == 1  # never a top-level package
    version = dpaudit_venv.run(["dpaudit", "--version"], cwd=project)
    assert version.stdout.strip() == f"dpaudit {__version__}"


def test_dpaudit_check_of_the_scaffold_passes(dpaudit_venv, project):
    result = dpaudit_venv.run(["dpaudit", "check", "my_mechanism.py:clipped_mean",
                               "--json", "check.json"], cwd=project)
    steps = json.loads((project / "check.json").read_text(encoding="utf-8"))
    assert "exit status 0" in result.stdout, result.stdout
    assert steps  # the four steps, written by the installed code


def test_dpaudit_run_of_the_scaffold_suite_passes(dpaudit_venv, project):
    result = dpaudit_venv.run(["dpaudit", "run", "audits/", "--out", "reports"], cwd=project)
    assert "PASS — 2/2 expectations met" in result.stdout, result.stdout
    for name in ("results.json", "summary.md", "junit.xml", "report.html"):
        assert (project / "reports" / name).is_file(), name
    # report.html's figures are drawn by matplotlib, which the `report` extra installed
    assert "<svg" in (project / "reports" / "report.html").read_text(encoding="utf-8")


def test_pytest_runs_the_scaffold_test_through_the_installed_plugin(dpaudit_venv, project):
    result = dpaudit_venv.run(["python", "-m", "pytest", "-p", "no:cacheprovider"],
                              cwd=project)
    plugins = [line for line in result.stdout.splitlines() if line.startswith("plugins:")]
    assert plugins and f"dpaudit-{__version__}" in plugins[0], result.stdout
    assert "1 passed" in result.stdout


def test_prove_check_finds_the_installed_certificates_up_to_date(dpaudit_venv, project):
    result = dpaudit_venv.run(["dpaudit", "prove", "noisy_max", "--check"], cwd=project)
    assert "noisy_max:" in result.stdout and "certificate up to date" in result.stdout
