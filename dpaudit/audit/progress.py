"""Progress of a run on stderr: what is planned, how far the certificates are, what stands out.

Vocabulary (the same in every line, and in every report: :mod:`dpaudit.report.glossary`):

* an **audit point** is one ``[[audit]]`` entry, or one swept value of a swept audit;
* a **pair** is one neighbouring pair of datasets of an audit point;
* a **test** is one curve certificate — one estimator call on one (audit point, pair),
  black-box, or white-box where the mechanism has a log-density — and one member of its
  suite's Bonferroni family; a task computes one or two tests of a pair;
* a **certificate** is one record of results.json: one (audit point, pair) at one δ (or one
  Rényi order α), certified by its tests at once.

A run reports through a :class:`RunProgress`, whose methods are called in this order:
:meth:`~RunProgress.planning` (before the suites are loaded and their worst-case pairs built),
:meth:`~RunProgress.suite_planned` once per suite, each followed by
:meth:`~RunProgress.defaults_planned` with the suite's audits that leave parameters at their
defaults (:mod:`dpaudit.results.defaults`), :meth:`~RunProgress.started` with the
:class:`RunCounts`, :meth:`~RunProgress.record` once per finished certificate (completion
order), then optionally :meth:`~RunProgress.phase` / :meth:`~RunProgress.advance` for the work
after the run (the CLI's figures), and :meth:`~RunProgress.close`.  The base class does
nothing: the Python API and the pytest plugin are silent unless given a reporter.

:func:`make_progress` picks the CLI's reporter for a stream:

* :class:`BarProgress` when the stream is a terminal: tqdm bars (planning over suite files,
  the run over certificates with k/N, rate and ETA, figures over figures).  Only the
  **noteworthy** certificates are printed above the bar (:func:`noteworthy`): a certified
  ``violation``, an ``error``, and a certificate whose exact ε exceeds the claim although the
  sample could not certify it.  Every certificate is in results.json and summary.md; unmet
  expectations are judged per audit point after the run and listed by ``dpaudit run`` at the
  end.
* :class:`LineProgress` otherwise (CI logs, pipes, files): every event as one plain line,
  flushed at once, ``[k/N] `` + :func:`format_progress` per certificate; no carriage returns.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence, TextIO

from dpaudit.util.numbers import PLAIN_INFINITY, format_number
from dpaudit.results.defaults import AuditDefaults, planning_notes
from dpaudit.results.records import CertificateRecord, SuiteSummary
from dpaudit.results.power_text import looks_text


def _display_number(x) -> str:
    return format_number(x, 4, none="-", infinity=PLAIN_INFINITY)


def verdict_text(record: CertificateRecord) -> str:
    """A certificate's verdict as a progress line says it: a violation of an audit point
    that expects one is ``violation (expected)`` — a known bug, detected — any other violation
    ``VIOLATION (unexpected)``; a consistent certificate below its power target
    ``consistent (UNDERPOWERED)``; a certificate against a claim of ε = ∞ ``vacuous (claim
    ε = ∞: no bound can contradict it)`` — never ``consistent`` (its point is an error when
    every certificate is such, issue 39 item 12); otherwise the verdict itself."""
    if record.verdict == "consistent" and record.claimed_epsilon == float("inf"):
        return "vacuous (claim ε = ∞: no bound can contradict it)"
    if record.verdict != "violation":
        return "consistent (UNDERPOWERED)" if record.underpowered else record.verdict
    return ("violation (expected)" if record.expect == "violation"
            else "VIOLATION (unexpected)")


def power_text(record: CertificateRecord) -> str:
    """For a consistent ε(δ) certificate, what its test could have caught:
    ``could detect ε ≥ 1.013`` (its ``detectable_epsilon``), or, when that is ∞, that no
    event of the test could certify a violation at these samples; else ""."""
    if record.verdict != "consistent" or record.detectable_epsilon is None \
            or record.claimed_epsilon == float("inf"):
        return ""
    if record.detectable_epsilon == float("inf"):
        return " (no event of this test could certify a violation at these samples)"
    return f" could detect ε ≥ {_display_number(record.detectable_epsilon)}"


def format_progress(record: CertificateRecord) -> str:
    """One line per finished record: where (suite, audit, pair, δ or α, swept value), the
    certified bounds, the claim, the verdict (:func:`verdict_text`: an expected violation
    says so) and the task's time; for a consistent one, the smallest ε the same test would
    certify half the time (:func:`power_text`)."""
    pair = record.pair_name or "-"
    where = f"δ={record.delta:g}" if record.notion == "dp" else f"α={record.alpha:g}"
    if record.sweep is not None:
        value = record.sweep.value
        where = (f"{record.sweep.parameter}={value:g} " if isinstance(value, float) else
                 f"{record.sweep.parameter}={value} ") + where
    white = record.white_box_epsilon_lower_bound
    white_text = "" if white is None else f" white-box={_display_number(white)}"
    line = (f"[{record.suite}] {record.audit} pair={pair} {where} "
            f"ε_LB={_display_number(record.epsilon_lower_bound)}{white_text} "
            f"claim={_display_number(record.claimed_epsilon)} {verdict_text(record)} "
            f"({record.seconds:.1f}s)")
    if record.floating_point:
        line += (f" floating point: value-level ε_LB="
                 f"{_display_number(record.value_epsilon_lower_bound)} — "
                 f"{record.floating_point_finding}")
    if record.rejection_reason:
        line += f" — {record.rejection_reason}"
    line += power_text(record)
    line += looks_text(record.sequential)
    if record.exact_verdict == "violation" and record.verdict != "violation":
        line += f" [exact ε={_display_number(record.exact_epsilon)} > claim: not certifiable here]"
    if record.warnings:
        line += f" [{len(record.warnings)} warning(s)]"
    if record.error:
        line += f" — {record.error}"
    return line


def print_progress(record: CertificateRecord) -> None:
    """:func:`format_progress` on stderr, flushed (a per-record callback)."""
    print(format_progress(record), file=sys.stderr, flush=True)


def noteworthy(record: CertificateRecord) -> bool:
    """Whether a terminal shows this certificate above the bar: a certified violation, an
    error, or an exact ε above the claim that this sample could not certify."""
    return (record.verdict in ("violation", "error")
            or (record.exact_verdict == "violation" and record.verdict != "violation"))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class RunCounts:
    """The size of a planned run (see the module docstring for the words).

    Attributes:
      suites: suite files that run (after ``--only``).
      audit_points: audit points that run.
      tests: curve certificates (black-box, and white-box where there is a density).
      certificates: records the run will write (tests × their δs and αs).
      workers: worker processes.
      only: the ``--only`` patterns (empty: every audit).
      all_audit_points: audit points of the planned suites before ``--only``.
      where: where the tasks run when not in local processes (e.g. a Dask scheduler).
      resumed: certificates already finished by the interrupted run being resumed.
    """

    suites: int
    audit_points: int
    tests: int
    certificates: int
    workers: int
    only: tuple[str, ...] = ()
    all_audit_points: int | None = None
    where: str = ""
    resumed: int = 0

    def describe(self) -> str:
        """``running 5 suites: 69 audit points, 204 tests, 174 certificates on 2 workers``."""
        text = (f"running {_plural(self.suites, 'suite')}: "
                f"{_plural(self.audit_points, 'audit point')}, {_plural(self.tests, 'test')}, "
                f"{_plural(self.certificates, 'certificate')} on "
                f"{self.where or _plural(self.workers, 'worker')}")
        if self.only:
            text += (f" (--only {' '.join(repr(p) for p in self.only)}: "
                     f"{self.audit_points} of {self.all_audit_points} audit points of these "
                     f"suites)")
        if self.resumed:
            text += (f"; resuming: {self.resumed} of the certificates were finished by the "
                     f"interrupted run")
        return text


class RunProgress:
    """Receives the events of a run; every method does nothing (a silent run)."""

    def planning(self, paths: Sequence[str]) -> None:
        """Before the suite files are loaded and planned."""

    def suite_planned(self, summary: SuiteSummary, seconds: float) -> None:
        """After one suite file was planned (its worst-case pairs built)."""

    def defaults_planned(self, defaults: Sequence[AuditDefaults]) -> None:
        """After a suite was planned: its audits (those that run) that leave parameters at
        their defaults (possibly none)."""

    def started(self, counts: RunCounts) -> None:
        """After planning, before the first task runs."""

    def record(self, record: CertificateRecord) -> None:
        """One certificate finished (completion order, not task order)."""

    def phase(self, description: str, total: int) -> None:
        """Work after the run (e.g. ``"writing figures"``) of ``total`` steps."""

    def advance(self) -> None:
        """One step of the current phase done."""

    def close(self) -> None:
        """The run and its phases are over (flushes and removes any bar)."""

    def note(self, text: str) -> None:
        """A message that must be seen even when quiet (e.g. a malformed suite): stderr."""
        print(text, file=sys.stderr, flush=True)


class CallbackProgress(RunProgress):
    """Adapts a per-record callable (:data:`dpaudit.audit.execute.Progress`, e.g.
    :func:`print_progress`) to :class:`RunProgress`; the other events are ignored."""

    def __init__(self, callback: Callable[[CertificateRecord], None]):
        self.callback = callback

    def record(self, record: CertificateRecord) -> None:
        self.callback(record)


def as_run_progress(progress) -> RunProgress:
    """``None`` → silent; a :class:`RunProgress` as is; a callable → :class:`CallbackProgress`.

    Raises:
      TypeError: anything else.
    """
    if progress is None:
        return RunProgress()
    if isinstance(progress, RunProgress):
        return progress
    if callable(progress):
        return CallbackProgress(progress)
    raise TypeError(f"progress must be a RunProgress or a callable, got {type(progress).__name__}")


class LineProgress(RunProgress):
    """Plain lines for logs: one per event, flushed, ``[k/N] …`` per certificate."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.total = 0
        self.done = 0
        self.phase_total = 0
        self.phase_done = 0
        self.phase_start = 0.0
        self.phase_name = ""

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def note(self, text):
        self._line(text)

    def planning(self, paths):
        self._line(f"planning {_plural(len(paths), 'suite file')}: {', '.join(paths)} "
                   f"(loading, building worst-case pairs)")

    def suite_planned(self, summary, seconds):
        self._line(f"planned {summary.name}: {_plural(summary.points or 0, 'audit point')}, "
                   f"{_plural(summary.tests or 0, 'test')} in a family of "
                   f"{summary.family_size} ({seconds:.1f} s)")

    def defaults_planned(self, defaults):
        for line in planning_notes(defaults):
            self._line(line)

    def started(self, counts):
        self.total = counts.certificates
        self.done = counts.resumed
        self._line(counts.describe())

    def record(self, record):
        self.done += 1
        self._line(f"[{self.done}/{self.total}] {format_progress(record)}")

    def phase(self, description, total):
        if total <= 0:
            return
        self.phase_name, self.phase_total, self.phase_done = description, total, 0
        self.phase_start = time.perf_counter()
        self._line(f"{description} ({total})")

    def advance(self):
        self.phase_done += 1
        if self.phase_done == self.phase_total:
            self._line(f"{self.phase_name}: done ({self.phase_done}/{self.phase_total}, "
                       f"{time.perf_counter() - self.phase_start:.1f} s)")


class BarProgress(RunProgress):
    """tqdm bars on a terminal; noteworthy certificates (:func:`noteworthy`) printed above."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.bar = None

    def _open(self, total: int, description: str, unit: str):
        from tqdm import tqdm

        self._close_bar()
        self.bar = tqdm(total=total, desc=description, unit=unit, file=self.stream,
                        dynamic_ncols=True, leave=True)

    def _close_bar(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _write(self, text: str) -> None:
        from tqdm import tqdm

        tqdm.write(text, file=self.stream)

    def note(self, text):
        self._write(text)

    def planning(self, paths):
        self._write(f"planning {_plural(len(paths), 'suite file')} (building worst-case pairs)")
        self._open(len(paths), "planning", "suite")

    def suite_planned(self, summary, seconds):
        if self.bar is not None:
            self.bar.set_postfix_str(str(summary.name), refresh=False)
            self.bar.update(1)

    def defaults_planned(self, defaults):
        for line in planning_notes(defaults):
            self._write(line)

    def started(self, counts):
        self._close_bar()
        self._write(counts.describe())
        self._open(counts.certificates, "certificates", "cert")
        if counts.resumed:
            self.bar.update(counts.resumed)

    def record(self, record):
        if noteworthy(record):
            self._write(format_progress(record))
        if self.bar is not None:
            self.bar.update(1)

    def phase(self, description, total):
        if total > 0:
            self._open(total, description, "step")

    def advance(self):
        if self.bar is not None:
            self.bar.update(1)

    def close(self):
        self._close_bar()


def make_progress(stream: TextIO | None = None, *, quiet: bool = False) -> RunProgress:
    """The CLI's reporter for ``stream`` (default stderr): silent when ``quiet``, bars when
    ``stream.isatty()``, plain lines otherwise."""
    if quiet:
        return RunProgress()
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return BarProgress(stream) if callable(isatty) and isatty() else LineProgress(stream)


__all__ = ["BarProgress", "CallbackProgress", "LineProgress", "RunCounts", "RunProgress",
           "as_run_progress", "format_progress", "make_progress", "noteworthy", "power_text",
           "print_progress", "verdict_text"]
