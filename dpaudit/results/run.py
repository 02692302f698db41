"""One run's results: :class:`AuditRun`, what every report renders and results.json holds.

An :class:`AuditRun` holds the run's suites (:class:`~dpaudit.results.records.SuiteSummary`),
its judged audit points (:class:`~dpaudit.results.hierarchy.AuditPoint`, each with its tests
and their certificates), the figure data, the ``[[series]]`` results, the options it was
given, where it ran, and — for a run that did not finish — why (:class:`Incomplete`).
:attr:`AuditRun.records` and :attr:`AuditRun.outcomes` are views of the points: the flat
records (results.json's schema-2 rows) and one outcome per point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from dpaudit.results.figure_data import CurveFigure
from dpaudit.results.hierarchy import AuditPoint, points_from_records
from dpaudit.results.options import RunOptions
from dpaudit.results.records import AuditOutcome, CertificateRecord, SuiteSummary
from dpaudit.results.series import SeriesResult


@dataclass(frozen=True)
class Incomplete:
    """Why a run's results are partial: ``reason`` ("in progress" while it runs, "interrupted
    by SIGINT" / "interrupted by SIGTERM" after a stop) and how many of its tests finished."""

    reason: str
    tests_finished: int
    tests_planned: int

    @property
    def signal(self) -> str | None:
        """The signal that stopped the run ("SIGINT", "SIGTERM"), None while in progress."""
        prefix = "interrupted by "
        return self.reason[len(prefix):] if self.reason.startswith(prefix) else None

    def to_json(self) -> dict:
        return {"reason": self.reason, "tests_finished": self.tests_finished,
                "tests_planned": self.tests_planned}

    @classmethod
    def from_json(cls, data: dict | None) -> "Incomplete | None":
        return None if data is None else cls(str(data["reason"]), int(data["tests_finished"]),
                                             int(data["tests_planned"]))


@dataclass(frozen=True)
class AuditRun:
    """Everything one run produced; :mod:`dpaudit.report` renders it.

    Attributes:
      suites: one entry per suite file, in the order given (malformed and skipped ones too).
      points: the judged audit points, in plan order (suite, audit, swept value).
      curves: figure data, one per (audit point, pair) with a figure
        (:class:`~dpaudit.results.privacy_curve.PrivacyCurveFigure`), then the ε-over-sweep
        curves of swept audits (:class:`~dpaudit.results.sweep_curve.SweepCurve`).
      series: the ``[[series]]`` results (:class:`~dpaudit.results.series.SeriesResult`; a
        failed one has its ``error``).
      seconds: wall time of the run.
      options: what the run was asked (:class:`~dpaudit.results.options.RunOptions`).
      workers: how many workers ran its tests; backend: where (``Backend.describe()``).
      incomplete: None when every planned test ran, else why not.
    """

    suites: list[SuiteSummary] = field(default_factory=list)
    points: list[AuditPoint] = field(default_factory=list)
    curves: list[CurveFigure] = field(default_factory=list)
    series: list[SeriesResult] = field(default_factory=list)
    seconds: float = 0.0
    options: RunOptions = field(default_factory=RunOptions)
    workers: int = 1
    backend: str = "local"
    incomplete: Incomplete | None = None

    @classmethod
    def from_records(cls, records, **fields) -> "AuditRun":
        """The run of flat records (as read back from a results.json): grouped into points and
        judged again (a pure function of the stored verdicts)."""
        points = [p.judged() for p in points_from_records(records)]
        return cls(points=points, **fields)

    @cached_property
    def records(self) -> list[CertificateRecord]:
        """Every certificate as a flat record, points in order, then tests, then δ, then α."""
        return [record for point in self.points for record in point.records()]

    @cached_property
    def outcomes(self) -> list[AuditOutcome]:
        """One outcome per audit point, in order."""
        return [point.outcome() for point in self.points]

    def points_of(self, suite: SuiteSummary) -> list[AuditPoint]:
        """The audit points of one suite file (its :attr:`~SuiteSummary.file`), in order."""
        return [point for point in self.points if point.suite_file == suite.file]

    def audits(self) -> list[list[AuditPoint]]:
        """The points grouped by audit (suite file × audit index: an audit's swept values),
        audits in order of their first point, points in order."""
        audits: dict[tuple, list[AuditPoint]] = {}
        for point in self.points:
            audits.setdefault(point.key[:2], []).append(point)
        return list(audits.values())

    @property
    def profile(self) -> str:
        return self.options.profile

    @property
    def samples_override(self) -> int | None:
        return self.options.samples

    @property
    def seed_override(self) -> int | None:
        return self.options.seed

    @property
    def only(self) -> tuple[str, ...]:
        return self.options.only


__all__ = ["AuditRun", "Incomplete"]
