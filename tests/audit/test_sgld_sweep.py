"""Suite sweeps (parsing, planning, seeds, records, per-point verdicts, ε-over-sweep curves and
figures), [[series]] entries, and the SGLD audit at reduced samples."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from dpaudit.audit.plan import plan_suite, task_key, task_seed
from dpaudit.api import run_suites
from dpaudit.suite.spec import SuiteError, load_suite, parse_suite
from dpaudit.audit.sweeps import dense_values
from dpaudit.report.figures import write_figures
from dpaudit.report.json_report import build_report
from dpaudit.report.markdown import render_markdown
from dpaudit.results.sweep_curve import SweepCurve
from tests.support import REPO


SWEEP = """
[suite]
name = "sweepdemo"
samples = 4000
seed = 5

[[audit]]
name = "lap"
mechanism = "laplace"
sweep = { epsilon = [0.5, 1.0, 2.0] }
delta = [0.0, 0.01]
exact_points = 4
expect = ["consistent", "consistent", "consistent"]

[[audit]]
name = "plain"
mechanism = "laplace"
params = { epsilon = 1.0 }
"""


def write(tmp_path: Path, text: str, name: str = "suite.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def audit(**extra) -> dict:
    return {"audit": [{"name": "a", "mechanism": "laplace", **extra}]}


def test_sweep_parses_lists_and_ranges():
    s = parse_suite(audit(sweep={"epsilon": [0.5, 1.0]}, expect="violation"), "x.toml")
    a = s.audits[0]
    assert a.sweep.parameter == "epsilon" and a.sweep.values == (0.5, 1.0)
    assert a.expects == ("violation", "violation")
    assert [p[1] for p in a.points()] == [{"epsilon": 0.5}, {"epsilon": 1.0}]
    s = parse_suite(audit(sweep={"epsilon": {"start": 0.5, "stop": 2.0, "num": 4}}), "x.toml")
    assert s.audits[0].sweep.values == (0.5, 1.0, 1.5, 2.0)
    s = parse_suite(audit(sweep={"sensitivity": {"start": 1, "stop": 1000, "num": 4,
                                                 "spacing": "log"}}), "x.toml")
    assert s.audits[0].sweep.values == (1, 10, 100, 1000)
    s = parse_suite(audit(), "x.toml")
    assert s.audits[0].sweep is None and s.audits[0].points() == [(None, {}, "consistent")]


@pytest.mark.parametrize("extra, fragments", [
    ({"sweep": {"epsilon": [1.0], "sensitivity": [1.0]}}, ["'sweep'", "exactly one"]),
    ({"sweep": {"epsilon": []}}, ["sweep.epsilon", "non-empty"]),
    ({"sweep": {"epsilon": [1.0, "a"]}}, ["sweep.epsilon", "one kind"]),
    ({"sweep": {"epsilon": [1.0, 1.0]}}, ["distinct"]),
    ({"sweep": {"epsilon": 1.0}}, ["sweep.epsilon", "range table"]),
    ({"sweep": {"epsilon": [1.0, -1.0]}}, ["'params'", "epsilon=-1"]),
    ({"sweep": {"epsilon": [1.0]}, "params": {"epsilon": 2.0}}, ["'sweep'", "in both"]),
    ({"sweep": {"epsilon": [1.0, 2.0]}, "expect": ["consistent"]}, ["'expect'", "(2)"]),
    ({"expect": ["consistent"]}, ["'expect'", "needs a sweep"]),
    ({"exact_points": 5}, ["'exact_points'", "a sweep"]),
    ({"sweep": {"epsilon": [1.0]}, "exact_points": -1}, ["'exact_points'"]),
    ({"sweep": {"epsilon": {"start": 1, "stop": 2}}}, ["sweep.epsilon.num"]),
    ({"sweep": {"epsilon": {"start": 1, "stop": 2, "num": 3, "step": 1}}}, ["'step'"]),
    ({"sweep": {"epsilon": {"start": 0, "stop": 2, "num": 3, "spacing": "log"}}},
     ["start > 0"]),
])
def test_malformed_sweeps_name_the_key(extra, fragments):
    with pytest.raises(SuiteError) as info:
        parse_suite(audit(**extra), "bad.toml")
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))


@pytest.mark.parametrize("series, fragment", [
    ({"name": "s", "mechanism": "sgld", "quantity": "separation"}, "'sweep'"),
    ({"name": "s", "mechanism": "laplace", "quantity": "x", "sweep": {"epsilon": [1.0]}},
     "series()"),
    ({"name": "s", "mechanism": "sgld", "quantity": "separation", "sweep": {"steps": [1]},
      "options": 3}, "'options'"),
    ({"name": "s", "mechanism": "sgld", "quantity": "separation", "sweep": {"steps": [1]},
      "colour": "red"}, "'colour'"),
])
def test_malformed_series(series, fragment):
    with pytest.raises(SuiteError, match=None) as info:
        parse_suite({**audit(), "series": [series]}, "bad.toml")
    assert fragment in str(info.value)


def test_plan_counts_every_point_in_the_family_and_seeds_points_apart(tmp_path):
    suite = load_suite(write(tmp_path, SWEEP))
    tasks, info = plan_suite(suite)
    # 3 swept points + 1 plain audit, one pair each, black- and white-box, and each point's
    # two searched pairs (black-box)
    assert info.family_size == 2 * 4 + 2 * 4 and info.points == 4
    swept = [t for t in tasks if t.audit_index == 0 and t.search is None]
    assert [t.point.sweep.value for t in swept] == [0.5, 1.0, 2.0]
    assert [t.seed for t in swept] == [
        task_seed(5, task_key(t.audit, t.pair.name, (t.point.sweep.parameter, v)))
        for t, v in zip(swept, (0.5, 1.0, 2.0))]
    assert len({t.seed for t in tasks}) == len(tasks)
    plain = [t for t in tasks if t.audit_index == 1 and t.search is None][0]
    assert plain.seed == task_seed(5, task_key(plain.audit, plain.pair.name))
    assert plain.point.sweep is None


def test_dense_values():
    assert dense_values([0, 10, 100000], 5) == [100, 1000, 10000]   # geometric
    assert dense_values([1.0, 2.0], 3) == [1.25, 1.5, 1.75]
    assert dense_values(["a", "b"], 3) == [] and dense_values([1, 2], 0) == []


@pytest.mark.slow
def test_sweep_run_records_verdicts_curves_and_figures(tmp_path):
    run = run_suites([str(write(tmp_path, SWEEP))], workers=1)
    swept = [r for r in run.records if r.audit == "lap" and r.search is None]
    assert len(swept) == 6 and {r.sweep.parameter for r in swept} == {"epsilon"}
    # each point's two searched pairs are certified too, but draw no ε-over-sweep curve
    assert len([r for r in run.records if r.audit == "lap" and r.search]) == 2 * 6
    assert [r.sweep.value for r in swept if r.delta == 0.0] == [0.5, 1.0, 2.0]
    assert all(r.parameters["epsilon"] == r.sweep.value for r in swept)
    # one outcome per audit point (three) plus the plain audit
    assert len(run.outcomes) == 4 and all(o.met_expectation for o in run.outcomes)
    curves = [c for c in run.curves if isinstance(c, SweepCurve)]
    assert sorted(c.delta for c in curves) == [0.0, 0.01]
    c0 = next(c for c in curves if c.delta == 0.0)
    assert [p.claimed for p in c0.points] == [0.5, 1.0, 2.0]
    assert [p.exact for p in c0.points] == pytest.approx([0.5, 1.0, 2.0])
    assert len(c0.dense) == 4 and all(d.exact == pytest.approx(d.value) for d in c0.dense)
    figures = write_figures(run, tmp_path / "out")
    assert any(p.name.endswith("__sweep.png") for p in figures.written)
    report = build_report(run, command="test", exit_status=0, figures=figures)
    document = report.to_json()
    json.dumps(document, allow_nan=False)
    assert sum("figure" in c for c in document["curves"]) == len(figures.curves)
    text = render_markdown(report)
    assert "lap [epsilon=0.5]" in text and "ε over epsilon" in text


@pytest.mark.slow
def test_sweep_unmet_point_is_reported(tmp_path):
    text = SWEEP.replace('expect = ["consistent", "consistent", "consistent"]',
                         'expect = ["consistent", "violation", "consistent"]')
    run = run_suites([str(write(tmp_path, text))], workers=1)
    unmet = [o for o in run.outcomes if not o.met_expectation]
    assert len(unmet) == 1 and unmet[0].sweep.value == 1.0


def test_sgld_suite_parses_and_its_claims():
    suite = load_suite(REPO / "audits" / "sgld.toml")
    names = {a.mechanism for a in suite.audits}
    assert {"sgld", "posterior", "propose-test-sample", "propose-test-sample-sgld"} <= names
    leak = next(a for a in suite.audits if a.name == "sgld-interim-leak")
    assert leak.sweep.parameter == "steps" and 0 in leak.sweep.values
    assert "violation" in leak.expects and leak.expects[0] == "consistent"
    assert leak.expects[-1] == "consistent"
    assert [s.name for s in suite.series] == ["figure-1"]
    post = next(a for a in suite.audits if a.name == "posterior")
    assert post.alphas == (3.0, 5.7, 20.0)


@pytest.mark.slow
def test_sgld_interim_leak_at_reduced_samples(tmp_path):
    """The flagship audit's shape at 1/5 of its samples: consistent at T = 0, a certified
    violation at the peak of the interim regime, consistent near convergence."""
    text = """
    [suite]
    name = "mini"
    samples = 40000
    seed = 3

    [[audit]]
    name = "leak"
    mechanism = "sgld"
    params = { n = 2000, c = 2000.0, alpha = 1.0, beta = 1.0, x_h = 1.8, x_l = 0.9, gamma1 = 0.01 }
    sweep = { steps = [0, 26000, 100000] }
    delta = 0.01
    expect = ["consistent", "violation", "consistent"]
    """
    run = run_suites([str(write(tmp_path, text))], workers=1)
    assert all(o.met_expectation for o in run.outcomes), run.outcomes
    peak = next(r for r in run.records if r.sweep.value == 26000)
    assert peak.epsilon_lower_bound > peak.claimed_epsilon > 2.0
    assert peak.exact_epsilon == pytest.approx(8.19, abs=0.01)
