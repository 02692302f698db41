"""The typed run report every output renders from: results.json, summary.md, report.html,
junit.xml and ``dpaudit diff``.

The file itself (layout, schema 4, atomic writing, reading schemas 2, 3 and 4 back into a
:class:`RunReport`) is :mod:`dpaudit.report.results_file`; the JSON Schema is
:data:`dpaudit.results.records.SCHEMA_FILE`.

* :class:`Provenance` — when, by which command, on which versions and platform;
* :class:`RunSummary` — verdict counts, exact-only violations, unmet expectations and the exit
  status, computed from the typed records and outcomes of an
  :class:`~dpaudit.results.run.AuditRun`;
* :class:`RunReport` — run, provenance, summary and figure paths; :meth:`RunReport.to_json` is
  the results.json document.
"""

from __future__ import annotations

import datetime as _dt
import platform
import sys
from dataclasses import dataclass, field

import numpy as np

from dpaudit.results.records import SCHEMA_VERSION, VERDICTS, AuditOutcome, CertificateRecord
from dpaudit.results.figure_data import CurveFigure
from dpaudit.results.run import AuditRun
from dpaudit.results.series import SeriesResult
from dpaudit.util.jsonable import to_jsonable
from dpaudit.util.shared_json import SharedValues
from dpaudit.report.figures import Figures


@dataclass(frozen=True)
class Provenance:
    """When and how a run was made (the metadata keys of results.json)."""

    created: str  # UTC, ISO 8601
    command: str
    dpaudit_version: str
    python: str
    numpy: str
    scipy: str
    platform: str
    executable: str

    @classmethod
    def collect(cls, command: str) -> "Provenance":
        import scipy

        from dpaudit.version import __version__

        return cls(created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                   command=command, dpaudit_version=__version__,
                   python=platform.python_version(), numpy=np.__version__,
                   scipy=scipy.__version__, platform=platform.platform(),
                   executable=sys.executable)


@dataclass(frozen=True)
class RunSummary:
    """The ``summary`` of results.json."""

    certificates: int
    verdicts: dict  # verdict -> number of certificates
    exact_violations: tuple[CertificateRecord, ...]  # exact ε above the claim
    exact_only_violations: tuple[CertificateRecord, ...]  # … and not certified
    audits: int  # audit points (one per swept value)
    audits_met: int
    unmet_expectations: tuple[AuditOutcome, ...]
    errors: int  # erroring certificates + malformed suites + erroring series
    suite_errors: int
    exit_status: int

    @classmethod
    def of(cls, run: AuditRun, exit_status: int) -> "RunSummary":
        """The summary of a run's points, their tests and certificates."""
        verdicts = {v: 0 for v in VERDICTS}
        exact = []
        for point in run.points:
            for test, c in point.certificates():
                verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
                if c.exact_verdict == "violation":
                    exact.append(point.record(test, c))
        suite_errors = sum(1 for s in run.suites if s.error)
        series_errors = sum(1 for s in run.series if s.error)
        return cls(certificates=sum(verdicts.values()), verdicts=verdicts,
                   exact_violations=tuple(exact),
                   exact_only_violations=tuple(r for r in exact if r.verdict != "violation"),
                   audits=len(run.points),
                   audits_met=sum(1 for p in run.points if p.met_expectation),
                   unmet_expectations=tuple(p.outcome() for p in run.points
                                            if not p.met_expectation),
                   errors=verdicts["error"] + suite_errors + series_errors,
                   suite_errors=suite_errors,
                   exit_status=exit_status)

    def to_json(self) -> dict:
        return to_jsonable({
            "certificates": self.certificates,
            "verdicts": self.verdicts,
            "exact_violations": len(self.exact_violations),
            "exact_only_violations": [
                {"suite": r.suite, "audit": r.audit,
                 "sweep": None if r.sweep is None else r.sweep.to_json(),
                 "pair": r.pair_name, "delta": r.delta, "alpha": r.alpha,
                 "claimed_epsilon": r.claimed_epsilon, "exact_epsilon": r.exact_epsilon,
                 "epsilon_lower_bound": r.epsilon_lower_bound}
                for r in self.exact_only_violations],
            "audits": self.audits,
            "audits_met": self.audits_met,
            "unmet_expectations": [o.to_json() for o in self.unmet_expectations],
            "errors": self.errors,
            "suite_errors": self.suite_errors,
            "exit_status": self.exit_status,
        })


@dataclass(frozen=True)
class RunReport:
    """A finished run with its provenance, summary and figures: what every report renders."""

    run: AuditRun
    provenance: Provenance
    summary: RunSummary
    figures: Figures = field(default_factory=Figures)

    @property
    def records(self) -> list[CertificateRecord]:
        return self.run.records

    def curve_figures(self) -> list[tuple[CurveFigure, str | None]]:
        """Each curve of the run with the path of its figure (None: none was drawn)."""
        return list(zip(self.run.curves, self.figures.for_curves(self.run.curves)))

    def series_figures(self) -> list[tuple[SeriesResult, str | None]]:
        """Each ``[[series]]`` result with the path of its figure (None: none was drawn)."""
        return list(zip(self.run.series, self.figures.for_series(self.run.series)))

    def curves_json(self) -> list[dict]:
        """The ``curves`` of results.json, each with its ``figure`` when one was drawn."""
        return [_with_figure(c.to_json(), path) for c, path in self.curve_figures()]

    def series_json(self) -> list[dict]:
        """The ``series`` of results.json, each with its ``figure`` when one was drawn."""
        return [_with_figure(s.to_json(), path) for s, path in self.series_figures()]

    def to_json(self) -> dict:
        """The run as one plain-JSON document: results.json (schema 4) — provenance, options,
        suites, summary, then the result tree (``points`` → ``tests`` → ``certificates`` →
        ``evidence``, :meth:`~dpaudit.results.hierarchy.AuditPoint.to_json`), the figure data,
        and the ``shared`` table its bulky values are written once in
        (:class:`~dpaudit.util.shared_json.SharedValues`)."""
        p, run = self.provenance, self.run
        shared = SharedValues()
        points = shared.share_repeated_strings(
            [point.to_json(shared, curves=False) for point in run.points])
        return to_jsonable({
            "schema": SCHEMA_VERSION,
            "dpaudit_version": p.dpaudit_version,
            "created": p.created,
            "command": p.command,
            "python": p.python,
            "numpy": p.numpy,
            "scipy": p.scipy,
            "platform": p.platform,
            "executable": p.executable,
            "options": {"profile": run.profile, "samples": run.samples_override,
                        "seed": run.seed_override, "workers": run.workers,
                        "backend": run.backend, "only": list(run.only) or None},
            "seconds": run.seconds,
            **({} if run.incomplete is None else {"incomplete": run.incomplete.to_json()}),
            "suites": [s.to_json() for s in run.suites],
            "summary": self.summary.to_json(),
            "points": points,
            "curves": self.curves_json(),
            "series": self.series_json(),
            "shared": shared.to_json(),
        })


def _with_figure(entry: dict, path: str | None) -> dict:
    return entry if path is None else {**entry, "figure": path}


def build_report(run: AuditRun, *, command: str, exit_status: int,
                 figures: Figures | None = None) -> RunReport:
    """The report of an :class:`dpaudit.results.run.AuditRun` (``figures``: what
    :func:`dpaudit.report.figures.write_figures` drew for it)."""
    return RunReport(run=run, provenance=Provenance.collect(command),
                     summary=RunSummary.of(run, exit_status),
                     figures=figures if figures is not None else Figures())


__all__ = ["Provenance", "RunReport", "RunSummary", "build_report", "to_jsonable"]
