"""A ``[[series]]`` entry's job (dpaudit.audit.sweeps.series_job): the mechanism's answer as a
typed SeriesResult, a failure as its error with what was read before it, a worker that failed
as an entry every report can name."""

from __future__ import annotations

import textwrap
from types import SimpleNamespace

import numpy as np

from dpaudit.api import run_suites
from dpaudit.audit.sweeps import SeriesJob, series_job
from dpaudit.backends.base import Backend
from dpaudit.backends.local import LocalBackend
from dpaudit.report.json_report import build_report
from dpaudit.report.markdown import render_markdown
from dpaudit.results.records import exit_status
from dpaudit.results.series import Marker, SeriesResult
from dpaudit.spec.fields import Sweep
from dpaudit.suite.series_keys import SeriesSpec

SPEC = SeriesSpec(index=0, name="fig", mechanism="closed-form", params={"n": 3},
                  quantity="separation", sweep=Sweep("steps", (0, 10, 20)), delta=1e-5,
                  note="a note", options={"scale": 2})


class ClosedForm:
    """A mechanism with a closed-form series: ``answer`` is what its ``series`` returns (or
    raises)."""

    def __init__(self, answer):
        self.answer = answer

    def worst_case_pairs(self):
        return [SimpleNamespace(name="eq7", d0=[0.0], d1=[1.0])]

    def validate_dataset(self, d):
        return np.asarray(d)

    def claim(self):
        return SimpleNamespace(to_dict=lambda: {"notion": "dp", "text": "ε = 1"},
                               epsilon=lambda delta: 1.0)

    def series(self, quantity, d0, d1, values, *, delta=None, scale=1):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def run_with(monkeypatch, answer) -> SeriesResult:
    monkeypatch.setattr("dpaudit.mechanisms.registry.create_mechanism",
                        lambda name, **params: ClosedForm(answer))
    return series_job("s", "s.toml", SPEC)


def test_the_answer_becomes_a_typed_result(monkeypatch):
    result = run_with(monkeypatch, {
        "y": np.array([0.0, 1.0, 4.0]), "label": "sep", "markers": [{"x": np.int64(10),
                                                                     "label": "T"}],
        "facts": {"k̂": np.float64(2.5)}, "ignored": "not kept"})
    assert result.error is None and result.pair == "eq7" and result.claimed_epsilon == 1.0
    assert result.y == (0.0, 1.0, 4.0) and result.markers == (Marker(10, "T"),)
    assert result.ylabel == "separation"  # the quantity, when the mechanism gives none
    assert result.facts == {"k̂": 2.5} and result.has_figure
    data = result.to_json()
    assert list(data)[-3:] == ["pair", "facts", "seconds"] and "ignored" not in data


def test_a_failing_mechanism_is_the_result_s_error_with_what_was_read(monkeypatch):
    result = run_with(monkeypatch, ValueError("unknown series 'separatoin'"))
    assert result.error == "ValueError: unknown series 'separatoin'"
    assert result.pair == "eq7" and result.claim["text"] == "ε = 1"
    assert result.y is None and result.markers == () and result.facts is None
    assert not result.has_figure


def test_an_answer_that_breaks_the_contract_is_an_error_not_a_figure(monkeypatch):
    for answer, fragment in (({"y": [1.0, 2.0, 3.0], "markers": [{"label": "no x"}]}, "'x'"),
                             ({"y": [1.0, "high", 3.0]}, "expected a number"),
                             ({"y": [1.0, 2.0, 3.0], "facts": ["a", "list"]}, "items")):
        result = run_with(monkeypatch, answer)
        assert fragment in result.error and result.y is None and result.markers == ()


def test_a_failed_worker_is_an_entry_with_what_was_asked():
    failed = SeriesJob("s", "s.toml", SPEC).failed("worker process died")
    assert (failed.name, failed.mechanism, failed.values, failed.error) == (
        "fig", "closed-form", (0, 10, 20), "worker process died")
    assert failed.seconds is None and failed.pair is None and not failed.has_figure


class JobsFail(Backend):
    """Runs the tests here; every job's worker 'dies' (the local backend's result then)."""

    kind = "test"

    @property
    def workers(self) -> int:
        return 1

    def run(self, tasks, jobs, on_task=None):
        results, _ = LocalBackend(1).run(tasks, [], on_task)
        return results, [{"error": "worker process died while running this job"}
                         for _ in jobs]


def test_a_series_whose_worker_died_is_reported_by_name(tmp_path):
    suite = tmp_path / "s.toml"
    suite.write_text(textwrap.dedent("""
        [suite]
        name = "s"
        samples = 1000
        [[audit]]
        name = "lap"
        mechanism = "laplace"
        params = { epsilon = 1.0 }
        [[series]]
        name = "figure-1"
        mechanism = "sgld"
        quantity = "separation"
        sweep = { steps = [0, 10] }
        """), encoding="utf-8")
    run = run_suites([str(suite)], backend=JobsFail())
    (result,) = run.series
    assert isinstance(result, SeriesResult) and result.name == "figure-1"
    assert result.error == "worker process died while running this job"
    assert exit_status(run) == 2
    text = render_markdown(build_report(run, command="test", exit_status=2))
    assert "`figure-1` (sgld, separation over steps): **error** worker process died" in text
