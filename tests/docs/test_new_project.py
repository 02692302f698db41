"""The README's "In CI" path, run as written: from a clone of dpaudit to a new project's own
mechanism failing in its own CI configuration, run on the machine (README.md, the numbered
steps between ``<!-- new-project:start -->`` and ``<!-- new-project:end -->``).

Run as written, in a temporary directory holding the "clone" (``dpaudit/``, with the wheel
where step 1 writes it and examples/ci/) and, beside it, the project: every line of steps 2 to
5 — the project made, the wheel and the GitHub workflow copied in with ``DPAUDIT_SPEC`` pinned
to the wheel, the job's install line, ``dpaudit init .``, the job's pytest and ``dpaudit run``
steps (green; the baseline written), the mechanism broken, and the two steps again (red:
pytest fails with the certificate, ``dpaudit run`` exits 1 with the regression, the baseline
is left as it was).  Two lines are done by the session fixtures of tests/installed.py, which
do the same once per session: step 1's build (``dpaudit_dist``: ``python -m build`` on a copy
of the checkout's files) and step 3's fresh environment (``python3 -m venv .venv``:
``dpaudit_venv``, made by uv with pip in it, which has the same wheel installed, so step 3's
install finds it there).
The install line and the two steps are also checked to be the workflow's own lines, and the
pinned ``DPAUDIT_SPEC`` the one the job reads.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support import REPO

README = REPO / "README.md"
WORKFLOW = REPO / "examples" / "ci" / "github-actions.yml"
#: step 3's line that makes the project's fresh environment (dpaudit_venv stands in for it)
NEW_VENV = "python3 -m venv .venv && . .venv/bin/activate"


def steps() -> list[list[str]]:
    """The command lines of each numbered step (one ``sh`` block each), in order."""
    text = README.read_text(encoding="utf-8")
    part = re.search(r"<!-- new-project:start -->\n(.*?)<!-- new-project:end -->", text, re.S)
    assert part, "README.md lost its new-project steps"
    blocks = re.findall(r"^ *```sh\n(.*?)^ *```", part.group(1), re.S | re.M)
    return [[line.strip() for line in block.splitlines() if line.strip()] for block in blocks]


def test_the_steps_are_the_workflows_own_lines():
    build, make, install, job, breaks = steps()
    assert any("python -m build --wheel" in line for line in build)
    assert install[0] == NEW_VENV
    run_steps = [step["run"] for job_ in yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))[
        "jobs"].values() for step in job_["steps"] if "run" in step]
    pinned = re.search(r'export DPAUDIT_SPEC="([^"]+)" && (.*)', install[1])
    assert pinned and any(pinned.group(2) in script for script in run_steps)
    for line in job:  # the job's pytest and dpaudit run steps, as the workflow runs them
        assert any(line in script for script in run_steps), line
    # step 2's sed pins DPAUDIT_SPEC to what step 3 installs
    sed = next(line for line in make if line.startswith("sed "))
    assert f'DPAUDIT_SPEC: "{pinned.group(1)}"' in sed


@pytest.mark.slow
def test_the_readme_path_from_a_clone_to_a_failing_job(dpaudit_dist, dpaudit_venv, tmp_path):
    build, make, install, job, breaks = steps()
    clone = tmp_path / "dpaudit"
    (clone / "dist").mkdir(parents=True)
    shutil.copy2(dpaudit_dist.wheel, clone / "dist" / dpaudit_dist.wheel.name)  # step 1
    (clone / "examples" / "ci").mkdir(parents=True)
    shutil.copy2(WORKFLOW, clone / "examples" / "ci" / WORKFLOW.name)
    status, green_run = tmp_path / "status", tmp_path / "green-results.json"
    fresh = [f". {dpaudit_venv.root}/bin/activate" if line == NEW_VENV else line
             for line in install]
    script = "\n".join([
        "set -euo pipefail", *make, *fresh, *job, f'cp reports/ci/results.json "{green_run}"',
        "echo '=== broken ==='", *breaks, "set +e",
        *(f'{line}; echo $? >> "{status}"' for line in job)])
    done = subprocess.run(["bash", "-c", script], cwd=clone, env=dpaudit_venv.env,
                          capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    project = tmp_path / "my-project"
    green, red = output.split("=== broken ===")

    # the workflow the project keeps installs what the steps installed
    workflow = yaml.safe_load((project / ".github/workflows/dpaudit.yml").read_text())
    assert workflow["env"]["DPAUDIT_SPEC"] == "./vendor/" + dpaudit_dist.wheel.name + "[ml,report]"
    assert (project / "vendor" / dpaudit_dist.wheel.name).is_file()
    # green: the scaffold's test passes, every expectation is met, the baseline is written
    assert "1 passed" in green and "PASS — 2/2 expectations met" in green
    baseline = project / "reports/baseline/results.json"
    assert baseline.read_bytes() == green_run.read_bytes()
    # red: pytest fails with the certificate, dpaudit run with the regression; the baseline stays
    assert status.read_text().split() == ["1", "1"], red[-6000:]
    assert "1 failed" in red and "VIOLATION: ε_LB" in red
    assert "FAIL — 0/2 expectations met" in red and "regression: " in red
    diff = (project / "reports/ci/diff.md").read_text(encoding="utf-8")
    assert "newly unmet" in diff.lower()
    assert baseline.read_bytes() == green_run.read_bytes()  # a red run is never the baseline
    assert (project / "reports/pytest/junit.xml").is_file()
