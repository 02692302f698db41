"""Where ``dpaudit run`` draws the slow part of its reports.

After the audits, a run draws its figures (matplotlib PNGs, one per curve and series) and then
renders report.html, whose slow part is one matplotlib power figure per pair
(:func:`dpaudit.report.html.power_figures`; 127 of them in the default run, about as long as
all the other figures together).  Both are independent, and the cores that ran the tests are
idle by then: :class:`PowerFiguresElsewhere` draws the power figures in one worker process
(:func:`dpaudit.util.processes.process_pool`) while the run's own process draws the figures,
and report.html takes them from it.  The page is the same whichever process drew them.
"""

from __future__ import annotations


class PowerFiguresElsewhere:
    """report.html's power figures (:func:`dpaudit.report.html.power_figures`: a matplotlib
    drawing per pair, the page's slow part) drawn in one more process while this one draws
    the run's figures — when the run had several local workers (cores it may use) and its
    figures will be drawn.  ``result()`` is None when they were not (then the page draws
    them itself, as before) or the process failed.  It changes no number and no figure, only
    where and when the power figures are drawn."""

    def __init__(self, report, run):
        self.pool = self.future = None
        if run.incomplete is not None or run.workers < 2 or not str(run.backend).startswith(
                "local"):
            return
        try:
            from dpaudit.report.figures import matplotlib_available
            from dpaudit.report.html import power_figures
            from dpaudit.util.processes import process_pool, submit

            if matplotlib_available():
                self.pool = process_pool(1)
                self.future = submit(self.pool, power_figures, report)
        except Exception:  # noqa: BLE001 - the page draws them itself
            self.close()

    def result(self) -> dict | None:
        try:
            return None if self.future is None else self.future.result()
        except Exception:  # noqa: BLE001 - a process that failed: the page draws them
            return None

    def close(self) -> None:
        if self.pool is not None:
            from dpaudit.util.processes import stop_pool

            stop_pool(self.pool)
            self.pool = None


__all__ = ["PowerFiguresElsewhere"]
