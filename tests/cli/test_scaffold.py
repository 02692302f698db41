"""``dpaudit init`` (dpaudit.cli.scaffold): the files it writes, its refusal to overwrite, and a
skeleton that meets the mechanism contract (the README walkthrough that starts from it:
tests/end_to_end/test_walkthrough.py)."""

from __future__ import annotations

import pytest

from dpaudit.cli.commands import main
from dpaudit.cli.scaffold import FILES, write_scaffold


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


def test_init_skeleton_is_a_declared_mechanism_that_passes(tmp_path):
    import numpy as np

    from dpaudit import Mechanism, audit_mechanism
    from dpaudit.mechanisms.capabilities import GreyBoxQuery, SearchableDatasets
    from dpaudit.mechanisms.references import load_reference

    write_scaffold(tmp_path)
    cls = load_reference(str(tmp_path / "my_mechanism.py") + ":clipped_mean")
    assert issubclass(cls, (GreyBoxQuery)) and issubclass(cls, SearchableDatasets)
    mech = cls(epsilon=2.0, n_min=5)
    assert isinstance(mech, Mechanism)
    (pair,) = mech.worst_case_pairs()
    assert mech.check_pair(pair.d0, pair.d1)[0] and len(pair.d0) == 5
    out = mech.sample(pair.d1, 1000, np.random.default_rng(0))
    assert out.shape == (1000,) and np.all(out == np.round(out * 2.0**32) / 2.0**32)
    with pytest.raises(ValueError, match="the declared sizes are 5..9"):
        mech.validate_dataset([0.5])
    result = audit_mechanism(cls, params={"epsilon": 2.0, "n_min": 5}, samples=20_000, seed=3)
    assert result.verdict == "consistent"


@pytest.mark.slow
def test_init_class_writes_the_subclass_with_what_only_a_class_can_say(tmp_path, capsys):
    import numpy as np

    from dpaudit import Mechanism, audit_mechanism
    from dpaudit.mechanisms.capabilities import CalibratedNoise, LogDensity
    from dpaudit.mechanisms.references import load_reference

    assert main(["init", str(tmp_path), "--class"]) == 0
    assert "dpaudit check my_mechanism.py:ClippedMean" in capsys.readouterr().out
    assert ":ClippedMean" in (tmp_path / "audits" / "my_mechanism.toml").read_text()
    cls = load_reference(str(tmp_path / "my_mechanism.py") + ":ClippedMean")
    mech = cls(epsilon=2.0, n_min=5)
    assert isinstance(mech, (Mechanism, LogDensity)) and isinstance(mech, CalibratedNoise)
    (pair,) = mech.worst_case_pairs()
    out = mech.sample(pair.d1, 1000, np.random.default_rng(0))
    assert out.shape == (1000,) and np.isfinite(mech.log_density(pair.d1, out)).all()
    with pytest.raises(ValueError, match="at least n_min = 5"):
        mech.validate_dataset([0.5])
    result = audit_mechanism(cls, params={"epsilon": 2.0, "n_min": 5}, samples=20_000, seed=3)
    assert result.verdict == "consistent"


@pytest.mark.slow
def test_init_makes_its_folder_pytests_root_unless_it_has_a_configuration(tmp_path):
    """The README's walkthrough runs `dpaudit init my-audit` inside the dpaudit clone, whose
    pyproject.toml says addopts = "-n auto": without a pytest.ini of its own, pytest in
    my-audit read it and stopped ("unrecognized arguments: -n") where pytest-xdist is not
    installed (the walkthrough installs pytest only).  Here pytest loads no plugin but
    dpaudit's, as in that environment (about 0.8 s of CPU)."""
    import os
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-n auto"\n')
    assert main(["init", str(tmp_path / "my-audit")]) == 0
    assert (tmp_path / "my-audit" / "pytest.ini").read_text() == FILES["pytest.ini"]
    collected = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only",
                                "-p", "dpaudit.pytest_plugin", "-p", "no:cacheprovider"],
                               cwd=tmp_path / "my-audit", capture_output=True, text=True,
                               timeout=120,
                               env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "test_my_mechanism.py::test_clipped_mean_meets_its_claim" in collected.stdout
    # a project with its own pytest settings keeps them: no pytest.ini beside them
    assert main(["init", str(tmp_path), "--force"]) == 0
    assert not (tmp_path / "pytest.ini").exists()
