"""Bad run inputs that used to do damage (issue 17 item 9), as a matrix: each is refused with
one clear line, or handled so that nothing is overwritten, merged or run twice."""

from __future__ import annotations

import textwrap

import pytest

from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_report

SUITE = """
[suite]
name = "{name}"
samples = 2000

[[audit]]
name = "laplace"
mechanism = "laplace"
search = false
"""


def suite(tmp_path, file: str, name: str):
    path = tmp_path / file
    path.write_text(textwrap.dedent(SUITE.format(name=name)), encoding="utf-8")
    return path


@pytest.mark.parametrize("out, fragment", [
    ("", "--out must name a directory, got an empty string"),
    ("FILE", "is an existing file, not a directory"),
])
def test_an_output_directory_that_is_not_one_is_refused(tiny_suite, tmp_path, capsys, out,
                                                        fragment):
    path = tiny_suite
    if out == "FILE":
        out = str(tmp_path / "plain.txt")
        (tmp_path / "plain.txt").write_text("keep me", encoding="utf-8")
    assert main(["run", str(path), "--out", out]) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()


@pytest.mark.slow
def test_the_same_file_named_twice_runs_once(tmp_path):
    path = suite(tmp_path, "a.toml", "a")
    (tmp_path / "alias.toml").symlink_to(path)
    out = tmp_path / "out"
    assert main(["run", str(path), str(tmp_path / "alias.toml"), str(path), "--out", str(out),
                 "--workers", "1"]) == 0
    report = read_report(out / "results.json")
    assert [s.file for s in report.run.suites] == [str(path)]
    assert len(report.records) == 1


@pytest.mark.slow
def test_two_suites_with_one_name_are_an_error_not_a_merge(tmp_path, capsys):
    first, second = suite(tmp_path, "a.toml", "same"), suite(tmp_path, "b.toml", "same")
    out = tmp_path / "out"
    assert main(["run", str(first), str(second), "--out", str(out), "--workers", "1"]) == 2
    assert f"{second}: suite name 'same' is already used by {first}" in capsys.readouterr().err
    report = read_report(out / "results.json")
    assert [s.error is None for s in report.run.suites] == [True, False]
    assert len(report.records) == 1  # the first suite still ran


@pytest.mark.slow
def test_a_planted_results_json_symlink_is_replaced_not_followed(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("do not overwrite", encoding="utf-8")
    (out / "results.json").symlink_to(victim)
    assert main(["run", str(suite(tmp_path, "a.toml", "a")), "--out", str(out),
                 "--workers", "1"]) == 0
    assert victim.read_text(encoding="utf-8") == "do not overwrite"
    assert not (out / "results.json").is_symlink()
    assert len(read_report(out / "results.json").records) == 1


@pytest.mark.parametrize("argv, fragment", [
    (["--samples", str(2**63 - 1)], "--samples must be <= 1e+12"),
])
def test_absurd_sample_counts_are_refused_before_anything_runs(tiny_suite, tmp_path, capsys,
                                                               argv, fragment):
    path = tiny_suite
    assert main(["run", str(path), "--out", str(tmp_path / "out"), *argv]) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_absurd_samples_in_a_suite_file_are_a_suite_error(tmp_path):
    from dpaudit.suite.spec import load_suite
    from dpaudit.suite.fields import SuiteError

    path = suite(tmp_path, "a.toml", "a")
    path.write_text(path.read_text(encoding="utf-8") + "samples = 9223372036854775807\n",
                    encoding="utf-8")
    with pytest.raises(SuiteError, match=r"key 'samples': expected an integer between 1000 "
                                         r"and 1e\+12"):
        load_suite(path)


@pytest.mark.slow
def test_workers_above_the_core_count_are_capped_unless_forced(tmp_path, capsys):
    import os

    cores = len(os.sched_getaffinity(0))
    path = suite(tmp_path, "a.toml", "a")
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--workers", str(cores + 5), "-q"]) == 0
    assert f"--workers {cores + 5} is more than the {cores} core(s)" in capsys.readouterr().err
    assert read_report(out / "results.json").run.workers == cores


def test_a_local_cluster_above_the_core_count_is_capped_unless_forced(tmp_path, capsys,
                                                                       monkeypatch):
    """--cluster local:N starts N worker processes: above the cores it is capped like
    --workers, and said (issue 27, item 7); the backend is stopped before it starts."""
    import os

    import dpaudit.backends as backends

    asked = []

    def make_backend(**kwargs):
        asked.append(kwargs["cluster"])
        raise backends.BackendError("stopped by the test before a cluster starts")

    monkeypatch.setattr(backends, "make_backend", make_backend)
    cores = len(os.sched_getaffinity(0))
    path = suite(tmp_path, "a.toml", "a")
    many = f"local:{cores + 14}"
    assert main(["run", str(path), "--out", str(tmp_path / "o1"), "--cluster", many]) == 2
    err = capsys.readouterr().err
    assert f"--cluster {many} starts more workers than the {cores} core(s)" in err
    assert asked == [f"local:{cores}"]
    assert main(["run", str(path), "--out", str(tmp_path / "o2"), "--cluster", many,
                 "--oversubscribe"]) == 2
    assert asked[-1] == many and "starts more workers" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_second_run_into_a_locked_output_directory_is_refused_before_it_writes(
        tiny_suite, tmp_path, capsys):
    """Two runs into one --out would interleave reports and truncate each other's journal
    (issue 27, item 4): while one run holds DIR's lock, another is one line, exit 2, and
    writes nothing there; once the lock is released the run goes ahead."""
    import os

    from dpaudit.cli.out_lock import LOCK_NAME, OutputLock

    out = tmp_path / "out"
    with OutputLock.acquire(out):
        assert main(["run", str(tiny_suite), "--out", str(out), "--workers", "1", "-q"]) == 2
        err = capsys.readouterr().err
        assert f"another dpaudit run (pid {os.getpid()}) is writing to {out}" in err
        assert "Traceback" not in err and sorted(os.listdir(out)) == [LOCK_NAME]
    assert main(["run", str(tiny_suite), "--out", str(out), "--workers", "1", "-q"]) == 0
    assert (out / "results.json").is_file()
    # a planted symbolic link in place of the lock file is not followed
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / LOCK_NAME).symlink_to(tmp_path / "elsewhere")
    assert main(["run", str(tiny_suite), "--out", str(planted), "--workers", "1", "-q"]) == 2
    assert "cannot write to" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere").exists()
