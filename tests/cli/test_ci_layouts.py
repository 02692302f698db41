"""The GitHub workflow of examples/ci/ run in the three layouts a real project has
(examples/ci/README.md's table): no pyproject.toml at all, a flat layout whose pyproject.toml
pip cannot build ("Multiple top-level packages discovered in a flat-layout", the layout the
README's own steps make: audits/, reports/, vendor/ and the package side by side), and a src
layout, installed editable (a suite may name only its project's code: an installed copy in
site-packages is refused).

Each project is made in a temporary directory: its own package (``<name>/noise.py``, a noisy
count on a grid) that imports a dependency the project declares (``dp_helpers``, a local
wheel given by a ``file://`` requirement, so that the test sees whether the install step
installed it: the fresh environment does not have it), a thin file at the top naming the
sampler for dpaudit, a suite and a pytest test.  The workflow's steps run as in
tests/cli/test_ci_examples.py (bash with errexit and pipefail, the fresh environment of
tests/installed.py, ``gh`` stubbed).  The flat project runs the install step (pip cannot build
it: the declared dependencies are installed instead) and the pytest step with the plugin,
whose test imports the project's code and its dependency (green then red, the whole job, is
tests/cli/test_ci_examples.py's: the layout changes nothing after the install).  The src project runs the install and ``dpaudit run`` steps
(green: its suite's sampler, imported from the editable install, is the project's code).  The project
without pyproject.toml runs the install step (the only step where it differs from the flat
one: both import the code from the project root).

Cost: DPAUDIT_SPEC is the dpaudit the shared environment holds (pip finds it installed), the
dependency is a ready wheel (pip builds only the projects' own pyproject.toml), the audits
use 5000 samples, and each project runs only the steps above.  ``slow``, with the
wheel and the fresh environment the session shares (tests/installed.py).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from tests.cli.test_ci_examples import GITHUB, GITHUB_TARGET, run_github, stubs_dir

#: the dependency every layout declares, as a local wheel (its import proves it installed)
HELPERS = '''"""The grid the project's noise is released on."""
GRID = 2.0 ** -32
'''

#: the project's own sampler; ``{package}`` is the layout's package name
NOISE = '''"""A noisy count: the number of ones plus Laplace noise, released on a grid."""
from dp_helpers import GRID
from dpaudit import laplace_on_grid


def noisy_count(dataset, n, rng, epsilon=1.0):
    return laplace_on_grid(float(sum(dataset)), (1.0 + GRID) / epsilon, n, rng, grid=GRID)
'''
#: the bug: a third of the noise (3ε-DP claimed as ε-DP)

TARGET = "from {package}.noise import noisy_count  # the project's own code\n"

SUITE = """[suite]
samples = 5000
seed = 3

[[audit]]
name = "noisy-count"
sampler = "../audit_targets.py:noisy_count"
claim = {{ notion = "pure-dp" }}
params = {{ epsilon = 1.0 }}
[[audit.pairs]]
d0 = [0, 1, 1]
d1 = [1, 1, 1]
"""

TEST = """from {package}.noise import noisy_count


def test_noisy_count(dpaudit_audit):
    dpaudit_audit.sampler(noisy_count, {{"notion": "pure-dp"}}, [([0, 1, 1], [1, 1, 1])],
                          params={{"epsilon": 1.0}}, samples=5000, seed=5)
"""


def helpers_package(base: Path) -> str:
    """The local dependency as a wheel (pip installs it without building anything); its
    requirement line."""
    import zipfile

    wheel = base / "dp_helpers-1.0-py3-none-any.whl"
    info = "dp_helpers-1.0.dist-info"
    files = {"dp_helpers.py": HELPERS,
             f"{info}/METADATA": "Metadata-Version: 2.1\nName: dp-helpers\nVersion: 1.0\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            archive.writestr(name, text)
    return f"dp-helpers @ {wheel.resolve().as_uri()}"


def make_project(root: Path, layout: str, package: str, requirement: str) -> Path:
    """A project of ``layout`` ("none", "flat" or "src") whose package is ``package``."""
    root.mkdir()
    code = root / "src" / package if layout == "src" else root / package
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("", encoding="utf-8")
    (code / "noise.py").write_text(NOISE, encoding="utf-8")
    (root / "audit_targets.py").write_text(TARGET.format(package=package), encoding="utf-8")
    for folder in ("audits", "tests", "reports", "vendor"):  # the README's flat layout
        (root / folder).mkdir(exist_ok=True)
    (root / "vendor" / "README").write_text("the pinned dpaudit wheel goes here\n")
    (root / "audits" / "counts.toml").write_text(SUITE.format(), encoding="utf-8")
    (root / "tests" / "test_counts.py").write_text(TEST.format(package=package),
                                                   encoding="utf-8")
    if layout == "none":
        (root / "requirements.txt").write_text(requirement + "\n", encoding="utf-8")
    else:
        table = (f'[project]\nname = "{package}"\nversion = "0.1.0"\n'
                 f'dependencies = ["{requirement}"]\n')
        if layout == "src":
            table = ('[build-system]\nrequires = ["setuptools>=61"]\n'
                     'build-backend = "setuptools.build_meta"\n\n' + table)
        (root / "pyproject.toml").write_text(table, encoding="utf-8")
    (root / ".git").mkdir()  # a repository: the project root dpaudit imports from
    workflow = root / PurePosixPath(GITHUB_TARGET)
    workflow.parent.mkdir(parents=True)
    workflow.write_bytes(GITHUB.read_bytes())
    return root


#: the job's steps (a new commit of the code runs the audit steps again)
INSTALL_STEP = "Install dpaudit, pytest and your project's dependencies"
DPAUDIT_STEP = "dpaudit run, against the baseline"
#: the steps each layout runs: the install step is where the layouts differ; the flat project
#: (the README's) runs its install (the fallback that installs the declared dependencies) and
#: its pytest step (the user's test importing them); the src one its install and the audit that
#: imports the editable install (a copy in site-packages would be refused); the project without
#: pyproject.toml imports its code from the root as the flat one does, so its install step is
#: enough.  Green then red, the whole job, is tests/cli/test_ci_examples.py's
STEPS = {"none": (INSTALL_STEP,),
         "flat": (INSTALL_STEP, "pytest"),
         "src": (INSTALL_STEP, DPAUDIT_STEP)}
#: DPAUDIT_SPEC for these jobs: the dpaudit the shared environment holds (installing the
#: wheel's spec is tests/cli/test_ci_examples.py's; pip finds it satisfied either way)
INSTALLED = "dpaudit"


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["none", "flat", "src"])
def test_the_workflow_runs_in_each_layout(layout, dpaudit_venv, tmp_path):
    package = f"{layout}stats"
    project = make_project(tmp_path / "project", layout, package, helpers_package(tmp_path))
    try:
        green = run_github(dpaudit_venv, project, stubs_dir(tmp_path / "green"),
                           only=STEPS[layout], spec=INSTALLED)
    finally:
        dpaudit_venv.run(["python", "-m", "pip", "uninstall", "-y", package, "dp-helpers"],
                         cwd=tmp_path, check=False)

    assert set(dict(green.statuses).values()) == {0}, green.output[-6000:]
    assert "Successfully installed dp-helpers" in green.output  # the declared dependency
    flat_fallback = "installing the dependencies its pyproject.toml declares" in green.output
    assert flat_fallback == (layout == "flat"), green.output[-6000:]
    if layout == "flat":
        assert "Multiple top-level packages discovered in a flat-layout" in green.output
        assert "1 passed" in green.output
    if layout == "src":
        assert f"Successfully installed dp-helpers-1.0 {package}-0.1.0" in green.output
    if DPAUDIT_STEP in STEPS[layout]:
        assert "PASS — 1/1 expectations met" in green.output
        assert (project / "reports/baseline/results.json").is_file()
