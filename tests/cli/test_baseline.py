"""``dpaudit run --baseline OLD [--update-baseline]`` (:mod:`dpaudit.cli.baseline`): a missing
baseline is an error that says how to make one; ``--update-baseline`` creates it on a first run
and replaces it after a green run, never after a red one; the refused combinations write
nothing."""

from __future__ import annotations

import pytest

from dpaudit.cli.baseline import baseline_file
from dpaudit.cli.commands import main

#: correct Laplace: every expectation met (exit 0)
GREEN = """
[suite]
name = "green"
samples = 2000
seed = 3

[[audit]]
name = "fine"
mechanism = "laplace"
params = { epsilon = 1.0 }
search = false
"""

#: a correct mechanism expected to be flagged: an unmet expectation (exit 1)
RED = GREEN.replace('search = false', 'search = false\nexpect = "violation"')


def run(suite, out, *extra) -> int:
    return main(["run", str(suite), "--out", str(out), "--workers", "1", "-q", *extra])


@pytest.fixture
def green(tmp_path):
    path = tmp_path / "green.toml"
    path.write_text(GREEN, encoding="utf-8")
    return path


def test_a_missing_baseline_is_an_error_that_says_how_to_create_one(green, tmp_path, capsys):
    base = tmp_path / "reports" / "baseline" / "results.json"

    assert run(green, tmp_path / "out", "--baseline", str(base)) == 2

    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"--baseline: {base} does not exist" in err
    assert "--update-baseline" in err
    assert f"dpaudit run {green} --out {base.parent} && git add {base}" in err
    assert not (tmp_path / "out").exists() and not base.exists()


@pytest.fixture(scope="module")
def accepted(tmp_path_factory) -> bytes:
    """The results.json of one green run: a baseline to start from."""
    folder = tmp_path_factory.mktemp("accepted")
    (folder / "green.toml").write_text(GREEN, encoding="utf-8")
    assert run(folder / "green.toml", folder / "out") == 0
    return (folder / "out" / "results.json").read_bytes()


@pytest.mark.slow
def test_the_first_run_creates_the_baseline(green, tmp_path, capsys):
    base = tmp_path / "reports" / "baseline" / "results.json"
    out = tmp_path / "out"

    assert run(green, out, "--baseline", str(base), "--update-baseline") == 0

    stdout = capsys.readouterr().out
    assert base.read_bytes() == (out / "results.json").read_bytes()
    note = (out / "diff.md").read_text(encoding="utf-8")
    assert note.startswith("# No baseline") and "was written there as the baseline" in note
    assert f"wrote this run's results to {base.as_posix()} -- commit it" in stdout
    written = next(line for line in stdout.splitlines() if line.startswith("wrote "))
    assert str(out / "diff.md") in written  # listed among the files written


@pytest.mark.slow
def test_a_green_run_is_compared_with_the_baseline_then_replaces_it(
        green, accepted, tmp_path, capsys):
    base = tmp_path / "baseline.json"
    base.write_bytes(accepted)
    out = tmp_path / "out"

    assert run(green, out, "--baseline", str(base), "--update-baseline") == 0

    stdout = capsys.readouterr().out
    assert "baseline: 0 regression(s)" in stdout  # compared with the accepted run ...
    assert f"baseline: replaced {base.as_posix()}" in stdout  # ... then replaced by this one
    assert base.read_bytes() == (out / "results.json").read_bytes() != accepted
    assert "No baseline" not in (out / "diff.md").read_text(encoding="utf-8")


@pytest.fixture
def red(tmp_path):
    path = tmp_path / "red.toml"
    path.write_text(RED, encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_red_first_run_does_not_create_the_baseline(red, tmp_path, capsys):
    base = tmp_path / "baseline.json"
    out = tmp_path / "out"

    assert run(red, out, "--baseline", str(base), "--update-baseline") == 1

    assert not base.exists()
    assert "did not become the baseline: its exit status is 1" in (
        out / "diff.md").read_text(encoding="utf-8")
    assert f"baseline: {base.as_posix()} not created: exit status 1" in capsys.readouterr().out


@pytest.mark.slow
def test_a_red_run_leaves_the_baseline_as_it_was(red, accepted, tmp_path, capsys):
    base = tmp_path / "baseline.json"
    base.write_bytes(accepted)

    assert run(red, tmp_path / "out", "--baseline", str(base), "--update-baseline") == 1

    assert base.read_bytes() == accepted
    assert f"baseline: {base.as_posix()} not updated: exit status 1" in capsys.readouterr().out


@pytest.mark.slow
def test_a_baseline_directory_that_does_not_exist_yet_gets_its_results_json(green, tmp_path):
    folder = tmp_path / "reports" / "baseline"

    assert run(green, tmp_path / "out", "--baseline", str(folder), "--update-baseline") == 0

    assert (folder / "results.json").is_file()
    assert baseline_file(str(folder)) == folder / "results.json"  # what a later run reads


def test_a_malformed_baseline_is_an_error_and_is_not_overwritten(green, tmp_path, capsys):
    base = tmp_path / "results.json"
    base.write_text("{not json", encoding="utf-8")

    assert run(green, tmp_path / "out", "--baseline", str(base), "--update-baseline") == 2

    assert base.read_text(encoding="utf-8") == "{not json"
    err = capsys.readouterr().err
    assert err.startswith(f"dpaudit: error: --baseline: {base}") and err.count("\n") == 1, err


@pytest.mark.parametrize("extra, message", [
    (["--update-baseline"], "--update-baseline needs --baseline PATH"),
    (["--update-baseline", "--baseline", "b.json", "--only", "fine"],
     "--update-baseline cannot be used with --only"),
])
def test_refused_combinations_write_nothing(green, tmp_path, capsys, extra, message):
    assert run(green, tmp_path / "out", *extra) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "b.json").exists()


@pytest.mark.slow
def test_a_baseline_that_cannot_be_written_is_an_error(green, tmp_path, capsys):
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    base = tmp_path / "a-file" / "results.json"  # its folder is a file

    assert run(green, tmp_path / "out", "--baseline", str(base), "--update-baseline") == 2

    err = capsys.readouterr().err
    assert f"dpaudit: error: cannot write the baseline {base}:" in err and "Traceback" not in err
    assert "did not become the baseline: it could not be written" in (
        tmp_path / "out" / "diff.md").read_text(encoding="utf-8")
