"""Samplers that misuse their rng (issue 17 item 6): one that re-seeds a generator of its own
on every call produced a "certified" ε above the truth; its draws are copies of one another, so
the audit is now an error that says why, in the record and on the command line."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.api import audit_sampler
from dpaudit.distinguish.sampling import (REPEAT_CHECK_ROWS, SamplerError, ignores_rng,
                                          repeated_draws)


def reseeding(d, n, rng):
    return float(d[0]) + np.random.default_rng(12345).laplace(size=n)  # same draws every call


def one_draw(d, n, rng):
    return np.full(n, float(d[0]) + rng.laplace())  # one value, repeated n times


def honest(d, n, rng):
    return float(d[0]) + rng.laplace(size=n)


def constant(d, n, rng):
    return np.zeros(n)  # deterministic: ε = 0, nothing misused


def rare_bit(d, n, rng):  # the check's worst case: a two-valued output, rare value ~ 1/256
    return (rng.random(n) < 1.0 / REPEAT_CHECK_ROWS).astype(np.int64)


def test_a_reseeding_sampler_is_an_error_not_a_certificate():
    result = audit_sampler(reseeding, epsilon=1.0, pairs=[([0.0], [1.0])], samples=20_000)
    (record,) = result.records
    assert record.verdict == "error" and record.epsilon_lower_bound is None
    assert "same 256 outputs for three different seeds" in record.error
    assert "re-seeds a generator of its own" in record.error


def test_a_sampler_that_repeats_one_draw_per_call_is_an_error():
    (record,) = audit_sampler(one_draw, epsilon=1.0, pairs=[([0.0], [1.0])],
                              samples=20_000).records
    assert record.verdict == "error" and "one value repeated 256 times per call" in record.error


@pytest.mark.parametrize("sampler", [honest, constant, rare_bit])
def test_samplers_that_draw_from_the_rng_are_not_flagged(sampler):
    flagged = [e for e in range(300) if repeated_draws(sampler, [0.0], e)]
    assert flagged == []  # the bound for rare_bit is 7.7e-7 per check
    assert not ignores_rng(sampler, [0.0], 7)


def test_the_check_validates_what_the_sampler_returns():
    with pytest.raises(SamplerError, match="shape"):
        repeated_draws(lambda d, n, rng: np.zeros(n + 1), [0.0], 1)


@pytest.mark.slow
def test_the_command_line_names_the_reseeding_sampler(tmp_path, capsys):
    from dpaudit.cli.commands import main
    from dpaudit.report.results_file import read_document

    (tmp_path / "bad.py").write_text(
        "import numpy as np\n"
        "def sampler(d, n, rng):\n"
        "    return float(d[0]) + np.random.default_rng(0).laplace(size=n)\n")
    (tmp_path / "suite.toml").write_text(
        '[suite]\nname = "s"\nsamples = 2000\n'
        '[[audit]]\nname = "reseeds"\nsampler = "bad.py:sampler"\n'
        'claim = { notion = "pure-dp", epsilon = 1.0 }\n'
        '[[audit.pairs]]\nd0 = [0.0]\nd1 = [1.0]\n'
        '[[audit]]\nname = "fine"\nmechanism = "laplace"\n')
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "suite.toml"), "--out", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "re-seeds a generator of its own" in err
    records = {r["audit"]: r for r in read_document(out / "results.json")["audits"]}
    assert "re-seeds a generator of its own" in records["reseeds"]["error"]
    assert records["fine"]["verdict"] == "consistent"  # the other audit still ran
