"""User code that exits (issue 39, item 1; item 12's KeyboardInterrupt): ``sys.exit(0)`` at
import of a suite's file, in a sampler or in ``worst_case_pairs()`` made ``dpaudit run`` exit
0 with no results; ``dpaudit check`` exited 0; a ``KeyboardInterrupt`` raised by a sampler was
reported as Ctrl-C.  Each is now an error of its audit (exit status 2), the others go on."""

from __future__ import annotations

import os
from pathlib import Path
import signal
import textwrap

import pytest

from dpaudit.api import audit_sampler
from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document
from dpaudit.util.user_code import UserCodeExit, user_code

CODE = {
    "exits.py": """\
        import sys
        import numpy as np
        from dpaudit import Mechanism
        from dpaudit.claims import PureDP

        def exits(d, n, rng):
            sys.exit(0)

        def interrupts(d, n, rng):
            raise KeyboardInterrupt

        class ExitingPairs(Mechanism):
            def claim(self):
                return PureDP(1.0)

            def worst_case_pairs(self):
                sys.exit(0)

            def sample(self, d, n, rng):
                return rng.laplace(size=n)
        """,
    "exits_on_import.py": """\
        import sys
        sys.exit(0)
        def sampler(d, n, rng):
            return d
        """,
}
SAMPLER = ('[suite]\nsamples = 2000\n[[audit]]\nname = "x"\nsampler = "{ref}"\n'
           'claim = {{ notion = "pure-dp", epsilon = 1.0 }}\nsearch = false\n'
           '[[audit.pairs]]\nd0 = [0]\nd1 = [1]\n')


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    audits = tmp_path / "audits"
    audits.mkdir()
    for name, text in CODE.items():
        (audits / name).write_text(textwrap.dedent(text))
    for name, ref in [("a_exit", "exits.py:exits"), ("a_interrupt", "exits.py:interrupts"),
                      ("a_import", "exits_on_import.py:sampler")]:
        (audits / f"{name}.toml").write_text(SAMPLER.format(ref=ref))
    (audits / "a_pairs.toml").write_text('[suite]\nsamples = 2000\n[[audit]]\nname = "p"\n'
                                         'mechanism = "exits.py:ExitingPairs"\n')
    (audits / "z_ok.toml").write_text('[suite]\nsamples = 2000\n[[audit]]\nname = "ok"\n'
                                      'mechanism = "laplace"\nsearch = false\n')
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_every_exit_of_user_code_is_an_error_and_the_other_audits_run(project, workers,
                                                                     capsys):
    out = project / "out"
    status = main(["run", str(project / "audits"), "--out", str(out), "--workers", workers,
                   "-q"])
    assert status == 2, capsys.readouterr().err
    doc = read_document(out / "results.json")
    records = {r["suite"]: r for r in doc["audits"]}
    assert records["z_ok"]["verdict"] == "consistent"
    assert "called sys.exit(0)" in records["a_exit"]["error"]
    assert "raised KeyboardInterrupt" in records["a_interrupt"]["error"]
    assert "ExitingPairs.worst_case_pairs called sys.exit(0)" in records["a_pairs"]["error"]
    assert "a_import" not in records  # a suite file that cannot be read: its error line
    assert "called sys.exit(0)" in capsys.readouterr().err


def test_dpaudit_check_of_code_that_exits_is_an_error(project, monkeypatch, capsys):
    monkeypatch.chdir(project / "audits")
    assert main(["check", "exits.py:ExitingPairs", "--samples", "2000"]) == 2
    assert "called sys.exit(0)" in capsys.readouterr().out


def test_the_api_records_an_exit_as_an_error_of_its_audit():
    import sys

    def exits(d, n, rng):
        sys.exit(0)

    (record,) = audit_sampler(exits, epsilon=1.0, pairs=[([0.0], [1.0])], samples=2000).records
    assert record.verdict == "error" and "called sys.exit(0)" in record.error


def test_a_real_signal_still_stops():
    with pytest.raises(KeyboardInterrupt):
        with user_code("sleeper"):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10**7):  # the handler runs between bytecodes
                pass
    with pytest.raises(UserCodeExit, match="raised KeyboardInterrupt"):
        with user_code("raiser"):
            raise KeyboardInterrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


@pytest.mark.slow
def test_a_sampler_that_closes_the_standard_streams_is_an_error(tmp_path):
    """Issue 39, item 12: a sampler closing fds 1 and 2 made the run exit 1 with no message;
    now its audit is an error, the streams lead to /dev/null and the run writes its reports."""
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "closer.py").write_text(textwrap.dedent("""\
        import os
        def sampler(d, n, rng):
            os.close(1)
            os.close(2)
            return float(d[0]) + rng.laplace(size=n)
        """))
    (tmp_path / "s.toml").write_text(SAMPLER.format(ref="closer.py:sampler")
                                     + '[[audit]]\nname = "ok"\nmechanism = "laplace"\n'
                                       'search = false\n')
    dpaudit = str(Path(sys.executable).with_name("dpaudit"))
    done = subprocess.run([dpaudit, "run", "s.toml", "--out", "out",
                           "--workers", "1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    records = {r["audit"]: r for r in read_document(tmp_path / "out" / "results.json")["audits"]}
    assert "closed the standard stream(s) stdout, stderr" in records["x"]["error"]
    assert records["ok"]["verdict"] == "consistent"
