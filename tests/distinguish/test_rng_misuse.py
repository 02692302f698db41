"""Samplers that misuse their rng (issue 17 item 6): one that re-seeds a generator of its own
on every call produced a "certified" ε above the truth; its draws are copies of one another, so
the audit is now an error that says why, in the record and on the command line."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.api import audit_sampler
from dpaudit import estimate_epsilon_lower_bound
from dpaudit.distinguish.sampling import (REPEAT_CHECK_ROWS, SamplerError, ignores_rng,
                                          repeated_draws, repeats_between_calls,
                                          two_call_sample)


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


# issue 27: repeats the 256-row probes do not see


def repeat8(d, n, rng):  # each draw repeated 8x: 25/100 seeds certified above the true ε before
    return (float(d[0]) + rng.laplace(size=-(-n // 8))).repeat(8)[:n]


def tile8(d, n, rng):  # the same, periodic: the whole call is one block of n/8 copied 8 times
    return np.tile(float(d[0]) + rng.laplace(size=-(-n // 8)), 8)[:n]


def reseeds_above_1024(d, n, rng):  # honest on the probes' sizes, re-seeds on the audit's
    gen = np.random.default_rng(12345) if n > 1024 else rng
    return float(d[0]) + gen.laplace(size=n)


def gaussian(d, n, rng):
    return float(d[0]) + rng.normal(size=n)


def randomized_response(d, n, rng):
    keep = rng.random(n) < np.e / (1 + np.e)
    return np.where(keep, int(d[0]), 1 - int(d[0]))


def rounded(d, n, rng):  # a float law with a few hundred atoms: duplicates are expected
    return np.round(float(d[0]) + rng.laplace(size=n), 2)


@pytest.mark.parametrize("sampler, phrase", [
    (repeat8, "repeats its draws within a call"), (tile8, "repeats its draws within a call"),
    (reseeds_above_1024, "same 2048 outputs for two different seeds")])
@pytest.mark.parametrize("samples", [2_000, 40_000])  # a first selection chunk of < or > 2048
def test_repeating_samplers_are_an_error_not_a_certificate(sampler, phrase, samples):
    assert repeated_draws(sampler, [0.0], 1) is None  # the 256-row probes do not see them
    with pytest.raises(SamplerError, match=phrase if samples == 2_000 else
                       phrase.replace("2048", "4000")):
        estimate_epsilon_lower_bound(sampler, [0.0], [1.0], samples=samples, seed=5)


def test_the_command_line_records_the_8x_repeater_as_an_error():
    (record,) = audit_sampler(repeat8, epsilon=1.0, pairs=[([0.0], [1.0])],
                              samples=20_000).records
    assert record.verdict == "error" and record.epsilon_lower_bound is None
    assert "repeats its draws within a call" in record.error


@pytest.mark.parametrize("sampler", [honest, gaussian, randomized_response, rounded, constant,
                                     rare_bit])
def test_samplers_that_draw_from_the_rng_pass_the_two_call_check(sampler):
    for seed in range(40):
        first = np.asarray(sampler([0.0], 2048, np.random.default_rng(seed)))
        assert repeats_between_calls(*two_call_sample(sampler, [0.0], first, seed)) is None
        assert repeats_between_calls(*two_call_sample(sampler, [0.0], first[:500], seed)) is None


def test_the_two_call_check_reads_rows_of_vector_outputs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1024, 3)).repeat(4, axis=0)[:2048]
    r = rng.normal(size=(1024, 3)).repeat(4, axis=0)[:2048]
    assert "within a call" in repeats_between_calls(x, r)
    x2 = x.copy()
    x2[:, 1] = rng.normal(size=2048)  # rows now distinct, but columns 0 and 2 repeat: still
    assert "near-copies" in repeats_between_calls(x2, rng.normal(size=(2048, 3)))  # dependent
    x3 = rng.normal(size=(2048, 3))
    assert repeats_between_calls(x3, rng.normal(size=(2048, 3))) is None


_MODULE_RNG = np.random.default_rng(0)


def module_level(d, n, rng):  # ignores rng: one generator per process (copied by a pool)
    return float(d[0]) + _MODULE_RNG.laplace(size=n)


@pytest.mark.slow
def test_a_sampler_that_ignores_the_rng_is_counted_in_this_process(monkeypatch):
    from dpaudit.distinguish import lower_bound
    from dpaudit.distinguish.counting import SerialCounter

    used = []
    original = lower_bound.count
    monkeypatch.setattr(lower_bound, "count",
                        lambda *a: used.append(type(a[-1])) or original(*a))
    with pytest.warns(RuntimeWarning, match="cannot check across processes"):
        estimate_epsilon_lower_bound(module_level, [0.0], [1.0], samples=20_000, seed=1,
                                     workers=2)
    assert used == [SerialCounter]
    used.clear()
    estimate_epsilon_lower_bound(honest, [0.0], [1.0], samples=20_000, seed=1, workers=2)
    assert used != [SerialCounter]  # an honest sampler still uses the pool
