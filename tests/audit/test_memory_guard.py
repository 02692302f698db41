"""The memory guard (dpaudit.audit.memory): a task whose estimated peak memory exceeds its limit
is refused before anything large is allocated, as an error record that says how to raise the
limit; the limit is set by --memory-limit, [suite] memory_limit or memory_limit= and parsed
strictly; the estimate stays within a stated factor of the measured peak."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from dpaudit.results.options import RunOptions
from dpaudit.api import audit_mechanism
from dpaudit.audit.memory import estimate_task_memory
from dpaudit.util.sizes import DEFAULT_MEMORY_LIMIT, GIB, MIB, parse_memory_size
from dpaudit.audit.plan import plan_suite
from dpaudit.api import run_suites
from dpaudit.suite.spec import SuiteError, load_suite
from dpaudit.cli.commands import main
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.report.results_file import read_report

SUITE = """
[suite]
name = "rr-big"
samples = 2000
{suite_extra}

[[audit]]
name = "rr"
mechanism = "randomized-response"
params = {{ epsilon = 1.0, k = {k} }}

[[audit]]
name = "laplace"
mechanism = "laplace"
"""


def write_suite(tmp_path, k: int, suite_extra: str = "", file: str = "rr.toml"):
    path = tmp_path / file
    path.write_text(textwrap.dedent(SUITE.format(k=k, suite_extra=suite_extra)),
                    encoding="utf-8")
    return path


def by_audit(records):
    out = {}
    for r in records:
        out.setdefault(r.audit, []).append(r)
    return out


@pytest.mark.slow
def test_rr_k_1e8_is_refused_at_once_and_the_other_audit_still_runs(tmp_path):
    # k = 10⁸ took 9.8 GB in the issue (96–105 B per outcome measured): exact_epsilon alone
    # would take ~1 minute to allocate and sort; the refusal comes before any of it
    run = run_suites([write_suite(tmp_path, 10**8)], workers=1)
    records = by_audit(run.records)
    refused = records["rr"]
    assert refused and all(r.verdict == "error" for r in refused)
    error = refused[0].error
    assert error.startswith("MemoryLimitError: estimated peak memory ")
    assert "exceeds the memory limit 4.0 GiB" in error
    assert "randomized-response enumerates k = 100000000 outputs" in error
    assert "--memory-limit" in error and "[suite] memory_limit" in error
    assert max(r.seconds for r in refused) < 1.0  # measured 1.5 ms
    other = records["laplace"]  # its named pair and the two its pair search found
    assert [r.error for r in other] == [None, None, None]
    assert all(r.verdict == "consistent" and r.epsilon_lower_bound is not None for r in other)


@pytest.mark.slow
def test_a_raised_limit_accepts_what_a_lower_one_refuses(tmp_path):
    # k = 10⁶: estimate 200 MiB + 10⁶ × 112 B ≈ 307 MiB, above a 300 MiB suite limit
    path = write_suite(tmp_path, 10**6, 'memory_limit = "300MiB"')
    low = by_audit(run_suites([path], workers=1).records)["rr"]
    assert all("exceeds the memory limit 300.0 MiB" in r.error for r in low)
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--workers", "1",
                 "--memory-limit", "1GB"]) == 0  # the command line overrides the suite
    report = read_report(out / "results.json")
    assert all(r.error is None for r in report.records)
    result = audit_mechanism("randomized-response", params={"k": 10**6}, samples=2000,
                             memory_limit="300MiB", white_box=False)
    assert result.verdict == "error" and "300.0 MiB" in result.records[0].error
    result = audit_mechanism("randomized-response", params={"k": 10**6}, samples=2000,
                             memory_limit=2 * GIB, white_box=False)
    assert result.verdict == "consistent"


@pytest.mark.parametrize("text, expected", [
    ("16GB", 16 * 10**9), ("512 MiB", 512 * MIB), ("4gib", 4 * GIB), ("2e9", 2 * 10**9),
    (2e9, 2 * 10**9), (3 * GIB, 3 * GIB), ("1.5 GiB", 3 * GIB // 2), ("300000000 B", 3 * 10**8),
])
def test_sizes_parse(text, expected):
    assert parse_memory_size(text) == expected


@pytest.mark.parametrize("value", ["16 XB", "16G", "-1GB", "", "lots", "1MB", True, None,
                                   float("nan"), float("inf"), [16], "1e400"])
def test_bad_sizes_are_refused_with_the_expected_format(value):
    with pytest.raises(ValueError) as info:
        parse_memory_size(value)
    message = str(info.value)
    assert 'such as "16GB", "512 MiB"' in message and repr(value) in message


def test_bad_suite_key_and_typo_are_suite_errors(tmp_path):
    with pytest.raises(SuiteError) as info:
        load_suite(write_suite(tmp_path, 2, 'memory_limit = "16 gigs"'))
    assert "[suite]: key 'memory_limit': expected a memory size" in str(info.value)
    assert "'16 gigs'" in str(info.value)
    with pytest.raises(SuiteError) as info:
        load_suite(write_suite(tmp_path, 2, 'memory_limt = "16GB"'))
    assert "did you mean 'memory_limit'" in str(info.value)


def test_bad_command_line_and_api_values_are_one_line_errors(tiny_suite, tmp_path, capsys):
    assert main(["run", str(tiny_suite), "--out", str(tmp_path / "o"),
                 "--memory-limit", "lots"]) == 2
    assert ("argument --memory-limit: expected a memory size of at least 256 MiB"
            in capsys.readouterr().err)
    with pytest.raises(ValueError, match="memory_limit: expected a memory size"):
        audit_mechanism("laplace", samples=2000, memory_limit="-3GB")
    with pytest.raises(ValueError, match="memory_limit: expected a memory size"):
        run_suites([tiny_suite], memory_limit="16 XB")


def test_the_limit_reaches_every_task(tmp_path):
    suite = load_suite(write_suite(tmp_path, 2, 'memory_limit = "16GB"'))
    tasks, _ = plan_suite(suite)
    assert {t.memory_limit for t in tasks} == {16 * 10**9}
    tasks, _ = plan_suite(suite, RunOptions(memory_limit=8 * GIB))
    assert {t.memory_limit for t in tasks} == {8 * GIB}
    tasks, _ = plan_suite(load_suite(write_suite(tmp_path, 2)))
    assert {t.memory_limit for t in tasks} == {DEFAULT_MEMORY_LIMIT}


def test_output_spaces_count_what_the_exact_laws_hold():
    from dpaudit.mechanisms.sparse_vector.exact import pattern_count, svt_patterns

    rr = create_mechanism("randomized-response", k=1000)
    assert rr.output_space(0, 1).outcomes == rr.log_probabilities(0).size == 1000
    ex = create_mechanism("exponential")
    assert ex.output_space([0.0] * 7, [1.0] * 7).outcomes == ex.log_probabilities([0.0] * 7).size
    geo = create_mechanism("geometric", sensitivity=40)
    assert geo.output_space([0], [0, 40]).outcomes == 41  # y ≤ 0, 1..39, y ≥ 40
    for m in range(1, 9):
        for c in (None, 1, 2, 3, 9):
            assert pattern_count(m, c) == len(list(svt_patterns(m, c)))
    assert create_mechanism("svt-lyu5", num_queries=30).output_space(
        [0.0] * 30, [1.0] * 30).outcomes == 2 ** 30
    assert create_mechanism("noisy-max-laplace").output_space([0.0] * 9, [1.0] * 9).outcomes == 9
    assert create_mechanism("laplace").output_space([0.0], [1.0]) is None


def test_wide_outputs_count_too():
    class Wide:
        name = "wide"

        def sampler(self):
            return lambda d, n, rng: rng.normal(size=(n, 1000))

        def output_space(self, d0, d1):
            return None

    # 20 000 samples: 4 000 selection rows per side + a 16 000-row chunk, 10³ values each
    est = estimate_task_memory(Wide(), [0.0], [1.0], samples=20_000)
    assert est.width == 1000 and est.rows == 24_000
    assert est.total > 0.5 * GIB and "24000 outputs of 1000 values" in est.reason()


MEASURE = """
import json, sys
import numpy as np
from dpaudit.audit.memory import estimate_task_memory
from dpaudit.audit.plan import plan_suite

from dpaudit.suite.spec import parse_suite
kind, value = sys.argv[1], int(sys.argv[2])
if kind == "sampler":
    from dpaudit.api import audit_sampler
    def sampler(d, n, rng):
        return rng.normal(float(d[0]), 1.0, size=(n, value))
    from dpaudit.suite.targets import Target, SAMPLER, claim_from_dict
    from dpaudit.api import PYTHON_SUITE
    target = Target("wide", SAMPLER, "", claim_from_dict({"notion": "pure-dp", "epsilon": 1.0}),
                    sampler)
    mech, d0, d1, samples = target.build(), [0.0], [1.0], 20000
    est = estimate_task_memory(mech, d0, d1, samples=samples)
    from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound
    estimate_privacy_curve_lower_bound(mech.sampler(), d0, d1, samples=samples, seed=1)
else:
    params = {"randomized-response": "k", "geometric": "sensitivity"}
    suite = parse_suite({"suite": {"samples": 2000}, "audit": [{
        "name": "a", "mechanism": kind, "params": {params[kind]: value},
        "delta": [0.0, 1e-3]}]})
    tasks, _ = plan_suite(suite)
    task = tasks[0]
    mech = task.build_mechanism()
    d0, d1 = mech.validate_dataset(task.pair.d0), mech.validate_dataset(task.pair.d1)
    est = estimate_task_memory(mech, d0, d1, samples=task.samples)
    for t in tasks:
        result = t.run()
        assert result.error is None, result.error
# VmHWM, not getrusage: Linux carries ru_maxrss over execve from the forking process (a
# large pytest), while the high-water mark of /proc/self/status is this image's own
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps({"estimate": est.total, "peak": peak}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.parametrize("kind, value", [("randomized-response", 10**6),
                                         ("geometric", 10**6), ("sampler", 400)])
def test_the_estimate_is_within_a_stated_factor_of_the_measured_peak(kind, value):
    # the estimate adds terms that peak at different moments, so it errs high: it must lie
    # between 0.8× and 2× the peak resident set size (VmHWM) of a fresh process running the
    # task(s)
    # (the white-box test and the 40-point dense exact curve included for the mechanisms)
    out = subprocess.run([sys.executable, "-c", MEASURE, kind, str(value)], check=True,
                         capture_output=True, text=True, timeout=300)
    numbers = json.loads(out.stdout.strip().splitlines()[-1])
    ratio = numbers["estimate"] / numbers["peak"]
    assert 0.8 <= ratio <= 2.0, numbers


def test_the_dense_exact_curve_of_a_sweep_is_guarded_too(tmp_path):
    from dpaudit.audit.plan import plan_jobs
    from dpaudit.audit.sweeps import dense_exact_job

    out = dense_exact_job("randomized-response", {}, "k", [2, 10**8], 0, None, (0.0,),
                          DEFAULT_MEMORY_LIMIT)
    assert [row[0] for row in out["rows"]] == [2]
    assert len(out["errors"]) == 1 and "k=100000000: MemoryLimitError" in out["errors"][0]
    assert out["seconds"] < 1.0
    path = tmp_path / "sweep.toml"
    path.write_text(textwrap.dedent("""
        [suite]
        samples = 2000
        memory_limit = "1GiB"
        [[audit]]
        name = "rr"
        mechanism = "randomized-response"
        sweep = { k = [2, 4] }
        exact_points = 3
        """), encoding="utf-8")
    suite = load_suite(path)
    tasks, _ = plan_suite(suite)
    jobs = plan_jobs([suite], tasks)
    assert jobs and {job.memory_limit for job in jobs} == {GIB}
