"""The README's "Audit your own mechanism" walkthrough, run as written, and ``dpaudit init``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpaudit.cli.commands import main
from dpaudit.cli.scaffold import FILES, write_scaffold
from tests.support import REPO

README = REPO / "README.md"


def walkthrough_lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- walkthrough:start -->\s*```sh\n(.*?)```\s*<!-- walkthrough:end -->",
                      text, re.S)
    assert block, "README.md lost its walkthrough block"
    return [line for line in block.group(1).splitlines() if line.strip()]


@pytest.mark.slow
def test_readme_walkthrough_runs_as_written(tmp_path):
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("PYTEST_ADDOPTS", None)
    script = "set -euo pipefail\n" + "\n".join(walkthrough_lines()) + "\n"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = tmp_path / "my-audit"
    assert (out / "reports" / "results.json").is_file()
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert junit.count("<testcase") == 2
    assert 'failures="0"' in junit and 'errors="0"' in junit and "<failure" not in junit
    assert "exit status 0" in done.stdout  # dpaudit check's last line


def test_init_writes_the_files_and_refuses_to_overwrite(tmp_path, capsys):
    assert main(["init", str(tmp_path / "x")]) == 0
    assert sorted(str(p.relative_to(tmp_path / "x")) for p in (tmp_path / "x").rglob("*")
                  if p.is_file()) == sorted(FILES)
    assert main(["init", str(tmp_path / "x")]) == 2
    assert "already exist" in capsys.readouterr().err
    (tmp_path / "x" / "my_mechanism.py").write_text("edited")
    write_scaffold(tmp_path / "x", force=True)
    assert (tmp_path / "x" / "my_mechanism.py").read_text() == FILES["my_mechanism.py"]
    assert not list((tmp_path / "x").rglob("*.tmp"))


def test_init_skeleton_meets_the_mechanism_contract(tmp_path):
    import numpy as np

    from dpaudit import Mechanism, audit_mechanism
    from dpaudit.mechanisms.references import load_reference

    write_scaffold(tmp_path)
    cls = load_reference(str(tmp_path / "my_mechanism.py") + ":ClippedMean")
    mech = cls(epsilon=2.0, n_min=5)
    assert isinstance(mech, Mechanism)
    (pair,) = mech.worst_case_pairs()
    assert mech.check_pair(pair.d0, pair.d1)[0]
    out = mech.sample(pair.d1, 1000, np.random.default_rng(0))
    assert out.shape == (1000,) and np.isfinite(mech.log_density(pair.d1, out)).all()
    with pytest.raises(ValueError, match="at least n_min = 5"):
        mech.validate_dataset([0.5])
    result = audit_mechanism(cls, params={"epsilon": 2.0, "n_min": 5}, samples=20_000, seed=3)
    assert result.verdict == "consistent"
