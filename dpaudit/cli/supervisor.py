"""The ``dpaudit`` console script: every command runs in a child process it supervises.

User code runs inside ``dpaudit run`` (a suite's files at import, samplers, mechanisms'
methods; in this process with ``--workers 1``, and while the suites are planned with any
``--workers``), ``dpaudit check``, and any command that loads plug-ins.  ``sys.exit`` there is
an error of its audit (:mod:`dpaudit.util.user_code`), but ``os._exit(0)`` or a fatal signal
ends the process whatever Python does — and the status of that process is what CI reads: a
sampler calling ``os._exit(0)`` made ``dpaudit run --workers 1`` exit 0 with no results
(issue 39, item 2).  So :func:`main` — the console script and ``python -m dpaudit.cli``, not
:func:`dpaudit.cli.commands.main`, which tests call in-process — runs the command in a child
(:func:`dpaudit.util.supervise.supervise`) and exits with the status the child *reported*
just before it exited.  A child that ended without reporting makes :func:`main` print one
line saying what ended it and where the reports stand, and exit 2:

* ``dpaudit run`` writes reports marked "in progress" (every test "not run yet") before its
  tests start, so a run ended during its tests leaves ``results.json``, ``summary.md``,
  ``junit.xml`` and ``report.html`` saying that it is incomplete, and the line points to them;
  a run ended while its suites were loaded or planned wrote no report of its own, and the line
  says so (the reports in ``--out`` are then an earlier run's, if any);
* ``dpaudit check`` prints each step when it finishes: the steps above the line are what ran.

Signals: Ctrl-C reaches both processes (the terminal's process group) and the child stops as
it always did; a SIGINT or SIGTERM sent to this process alone is forwarded to the child once;
a child that a stop signal ended gives 128 + its number.  Output is the child's own (it
inherits stdout and stderr).  The parent imports nothing the child would not import anyway
(fork shares it) and runs nothing but the wait: the supervision costs a fork
(``benchmarks/supervisor.py``).  Without :func:`os.fork` (Windows) the command runs in this
process.
"""

from __future__ import annotations

import json
import os
import signal
import sys

from dpaudit.cli.announce import results_signature
from dpaudit.util import supervise as supervision

#: what each signal that ends a process by itself usually means
_SIGNAL_HINTS = {"SIGKILL": "by user code, or out of memory?",
                 "SIGSEGV": "a crash in user code or a C extension?",
                 "SIGBUS": "a crash in user code or a C extension?",
                 "SIGILL": "a crash in user code or a C extension?",
                 "SIGFPE": "a crash in user code or a C extension?",
                 "SIGABRT": "an abort() in user code or a C extension?"}


def main(argv: list[str] | None = None) -> int:
    """The ``dpaudit`` command in a supervised child; returns the exit status to pass to
    ``sys.exit``."""
    from dpaudit.cli.commands import main as command

    argv = list(sys.argv[1:] if argv is None else argv)
    if not supervision.available():
        return command(argv)
    ending = supervision.supervise(lambda: command(argv))
    status, line = outcome(ending)
    if line:
        _say(line)
    return status


def outcome(ending: supervision.Ending) -> tuple[int, str | None]:
    """(exit status, the line to print or None) for a supervised command that ended so."""
    if ending.reported is not None:
        return ending.reported, None
    if ending.stopped:  # a stop signal from outside ended it before it could say so
        name = signal.Signals(ending.signal).name
        return 128 + ending.signal, f"dpaudit: stopped by {name}"
    notes = ending.notes
    command = notes.get("command")
    what = {"run": "the run", None: "the command"}.get(command, f"`dpaudit {command}`")
    return 2, (f"dpaudit: error: {_what_ended(ending)} before {what} finished: "
               f"{_where(notes)}; exit status 2")


def _what_ended(ending: supervision.Ending) -> str:
    if ending.signal is None:
        return f"user code ended the dpaudit process (exit status {ending.exit_code})"
    try:
        name = signal.Signals(ending.signal).name
    except ValueError:
        name = f"signal {ending.signal}"
    hint = _SIGNAL_HINTS.get(name, "sent by user code or another process?")
    return f"the dpaudit process was killed by {name} ({hint})"


def _where(notes: dict) -> str:
    """Where the command's output stands, from what the child announced."""
    command = notes.get("command")
    if command == "check":
        json_out = notes.get("json_out")
        return ("the steps printed above are the ones it finished"
                + (f"; {json_out} was not written" if json_out else ""))
    if command != "run" or "out_path" not in notes:
        return "what it printed above is all it did"
    out, path = notes["out"], notes["out_path"]
    results = os.path.join(path, "results.json")
    if results_signature(results) in (None, notes.get("results_before")):
        earlier = (f"the reports in {out} are an earlier run's" if os.path.exists(results)
                   else f"{out} holds no reports")
        return (f"it ended while the suites were loaded and planned, before it wrote any "
                f"report ({earlier})")
    incomplete = _read_incomplete(results)
    if incomplete is False:
        return f"{out}/results.json cannot be read"
    if incomplete is None:
        return f"its reports in {out} were written before it ended"
    counts = ""
    if isinstance(incomplete.get("tests_finished"), int):
        counts = (f", {incomplete['tests_finished']} of {incomplete.get('tests_planned')} "
                  f"tests finished")
    hint = ("; with --workers 2 or more each test runs in a worker process, where this is an "
            "error of its audit and the other audits go on") if notes.get("workers") == 1 else ""
    return (f"{out}/results.json, summary.md, junit.xml and report.html say the run is "
            f"incomplete ({incomplete.get('reason')}{counts}){hint}")


def _read_incomplete(path: str):
    """results.json's ``incomplete`` entry (None: a complete run), or False when it cannot be
    read."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return False
    if not isinstance(document, dict):
        return False
    incomplete = document.get("incomplete")
    return incomplete if isinstance(incomplete, dict) else None


def _say(line: str) -> None:
    stream = sys.stderr
    if stream is None:
        return
    try:
        print(line, file=stream, flush=True)
    except (OSError, ValueError):
        pass


__all__ = ["main", "outcome"]
