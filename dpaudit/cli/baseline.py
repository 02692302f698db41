"""``dpaudit run --baseline OLD [--update-baseline]``: reading, creating and replacing a baseline.

A baseline is the ``results.json`` of a run you accepted, committed to your repository; a
later run given ``--baseline OLD`` is compared with it (``DIR/diff.md``, exit status 1 on a
regression, :func:`dpaudit.cli.reports.baseline_diff`).  ``OLD`` is a results.json or the
directory holding one; a path that does not exist names a file if it ends in ``.json`` and a
directory otherwise (so ``--baseline reports/baseline`` means reports/baseline/results.json).

Without ``--update-baseline`` a missing baseline is an error (exit status 2) whose message says
how to create one.  With it:

* the baseline is missing: the run is compared with nothing; ``DIR/diff.md`` says so;
* the baseline exists: the run is compared with it as usual;
* then, if the run's final exit status is 0 (every expectation met, no regression, every
  report written), ``DIR/results.json`` is copied to the baseline path, atomically; otherwise
  the baseline is left as it was and the output says why.

So the same command creates the baseline on a project's first run and refreshes it whenever a
run is green; a malformed baseline file is still an error (it is never overwritten unread).
``--update-baseline`` with ``--only`` is refused: the baseline would keep only the selected
audits.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from dpaudit.util.atomic import write_bytes_atomic


class BaselineError(ValueError):
    """The baseline cannot be used: the message names the file and what to do."""


@dataclass(frozen=True)
class Baseline:
    """The baseline of a run.

    Attributes:
      path: the results.json path that ``--baseline`` names.
      report: its :class:`~dpaudit.report.json_report.RunReport`; None when the file does not
        exist yet (only with ``update``).
      update: ``--update-baseline``: a green run is written to ``path``.
    """

    path: Path
    report: object | None
    update: bool


def baseline_file(text: str) -> Path:
    """The results.json that ``--baseline text`` names: an existing directory or a missing path
    without a ``.json`` suffix stands for its ``results.json``."""
    path = Path(text)
    if path.is_dir() or (not path.exists() and path.suffix.lower() != ".json"):
        return path / "results.json"
    return path


def create_command(suites: list[str], path: Path) -> str:
    """The commands that make ``path`` a baseline from the given suites, for messages."""
    folder = path.parent.as_posix() or "."
    run = " ".join(shlex.quote(s) for s in suites)
    return f"dpaudit run {run} --out {shlex.quote(folder)} && git add {shlex.quote(path.as_posix())}"


def read_baseline(text: str, *, update: bool, suites: list[str]) -> Baseline:
    """Read the baseline ``--baseline text`` names.

    Args:
      text: the ``--baseline`` argument.
      update: ``--update-baseline`` was given: a missing file is allowed.
      suites: the run's suite arguments (for the message saying how to create a baseline).

    Returns:
      The :class:`Baseline`; its ``report`` is None when the file is missing and ``update``.

    Raises:
      BaselineError: the file is missing (without ``update``): the message says how to create
        it; or it exists but cannot be read as a results.json.
    """
    from dpaudit.report.results_file import ResultsFileError, read_report

    path = baseline_file(text)
    if not path.exists():
        if update:
            return Baseline(path=path, report=None, update=True)
        raise BaselineError(
            f"{path} does not exist. A baseline is the results.json of a run you accepted: add "
            f"--update-baseline to write this run's results there when it meets every "
            f"expectation, or create it with `{create_command(suites, path)}` and commit it")
    try:
        return Baseline(path=path, report=read_report(path), update=update)
    except ResultsFileError as exc:
        raise BaselineError(str(exc)) from None


def missing_note(path: Path, why_not: str | None) -> str:
    """diff.md of a run that had no baseline to compare with (``--update-baseline``):
    ``why_not`` is None when the run was written as the baseline, else why it was not."""
    head = f"# No baseline\n\nThere was no baseline at `{path.as_posix()}`: this run was not " \
           f"compared with one.\n\n"
    if why_not is None:
        return head + (f"This run met every expectation, so its results.json was written "
                       f"there as the baseline. Commit `{path.as_posix()}` (in CI it is among "
                       f"the job's artefacts) and later runs are compared with it.\n")
    return head + f"This run did not become the baseline: {why_not}.\n"


def not_written_reason(status: int) -> str:
    """Why a run with exit status ``status`` (not 0) is not written as the baseline."""
    return (f"its exit status is {status}, and only a run that meets every expectation (exit "
            f"status 0) is written as the baseline")


def update_baseline(baseline: Baseline, results: Path, status: int) -> tuple[bool, str]:
    """Write the run's ``results`` (its results.json) to the baseline path if ``status`` is 0.

    Returns:
      (whether it was written, one line for the run's output).

    Raises:
      OSError: the baseline path cannot be written (it is left as it was).
    """
    where = baseline.path.as_posix()
    if status != 0:
        return False, (f"baseline: {where} not {'updated' if baseline.report else 'created'}: "
                       f"exit status {status} (only a run that meets every expectation becomes "
                       f"the baseline)")
    write_bytes_atomic(baseline.path, results.read_bytes())
    if baseline.report is None:
        return True, (f"baseline: there was none; wrote this run's results to {where} -- "
                      f"commit it to compare later runs with it")
    return True, f"baseline: replaced {where} with this run's results"


__all__ = ["Baseline", "BaselineError", "baseline_file", "create_command", "missing_note",
           "not_written_reason", "read_baseline", "update_baseline"]
