"""Output that survives a closed pipe (dpaudit.util.pipes): `dpaudit run … 2>&1 | head -1` still
runs every audit and writes its reports; a write to a pipe nobody reads is dropped."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dpaudit.util.pipes import PipeSafeStream

def test_a_write_to_a_closed_pipe_is_dropped_not_raised():
    read_end, write_end = os.pipe()
    os.close(read_end)
    raw = os.fdopen(write_end, "w", buffering=1)
    stream = PipeSafeStream(raw)
    assert stream.write("first line\n") == len("first line\n")  # the pipe breaks here
    assert stream.pipe_closed
    stream.write("dropped\n")
    stream.flush()
    assert stream.isatty() is False  # everything else is the wrapped stream's
    raw.close()


@pytest.mark.slow
def test_run_piped_into_a_reader_that_leaves_still_writes_every_report(tiny_suite, tmp_path):
    suite = tiny_suite
    out = tmp_path / "out"
    code = "import sys; from dpaudit.cli.commands import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", code, "run", str(suite), "--out", str(out),
                             "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    proc.stdout.readline()  # like `| head -1`: read one line, then go away
    proc.stdout.close()
    assert proc.wait(timeout=120) == 0
    assert (out / "results.json").is_file() and (out / "summary.md").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_run_with_a_closed_stream_still_writes_every_report(tiny_suite, tmp_path, closed):
    """`dpaudit run … >&-` (or `2>&-`): Python starts with sys.stdout (or sys.stderr) None;
    the run still writes every report and exits 0, no traceback (issue 27, item 5)."""
    out = tmp_path / "out"
    code = "import sys; from dpaudit.cli.commands import main; sys.exit(main())"
    other = subprocess.PIPE
    proc = subprocess.run([sys.executable, "-c", code, "run", str(tiny_suite), "--out",
                           str(out), "--workers", "2"],
                          stdout=other, stderr=other, preexec_fn=lambda: os.close(closed),
                          timeout=180)
    left = (proc.stderr if closed == 1 else proc.stdout).decode()
    assert proc.returncode == 0, left
    assert "Traceback" not in left
    for name in ("results.json", "summary.md", "junit.xml", "report.html"):
        assert (out / name).is_file(), name
