"""The external-library adapters (diffprivlib, OpenDP, PyDP), the suite ``requires`` key, the
floating-point representation statistics, the rng-ignoring warning and the row-pattern fix.

Library tests skip with a reason when the library is not installed (the ``test`` extra
installs all three on Python 3.11)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from dpaudit.results.records import exit_status
from dpaudit.api import run_suites
from dpaudit.suite.spec import SuiteError, load_suite
from dpaudit.distinguish.floating import (Exponent, LowestSetBit, MantissaTrailingZeros,
                                          representation_statistics)
from dpaudit.distinguish.lower_bound import estimate_epsilon_lower_bound
from dpaudit.distinguish.sampling import ignores_rng
from dpaudit.mechanisms.external.common import LibraryMissing, require
from dpaudit.mechanisms.registry import create_mechanism

pytest_plugins = ["pytester"]


def _lib(name):
    try:
        return require(name)
    except LibraryMissing as exc:
        pytest.skip(str(exc))


# -- claims come from the library ------------------------------------------------------------

def test_diffprivlib_claim_is_the_objects_epsilon_and_delta():
    _lib("diffprivlib")
    mech = create_mechanism("diffprivlib-gaussian-analytic", epsilon=0.7, delta=1e-4)
    built = mech.build()
    assert mech.claim().epsilon(1e-4) == pytest.approx(built.epsilon)
    assert mech.claim().parameters() == {"epsilon": built.epsilon, "delta": built.delta}
    with pytest.raises(ValueError, match="diffprivlib Gaussian rejects the parameters"):
        create_mechanism("diffprivlib-gaussian", epsilon=2.0)  # classical Gaussian needs ε ≤ 1


def test_opendp_claim_is_its_privacy_map_at_d_in():
    _lib("opendp")
    lap = create_mechanism("opendp-laplace", scale=2.0, sensitivity=1.0)
    assert lap.claim().epsilon(0.0) == pytest.approx(0.5)
    total = create_mechanism("opendp-sum", scale=1.0)
    # OpenDP's map accounts for float rounding of the sum: not the retyped Δ/b = 1
    assert total.claim().epsilon(0.0) == float(total.make().map(1))
    assert total.claim().epsilon(0.0) > 1.0
    gauss = create_mechanism("opendp-gaussian", scale=1.0)
    assert gauss.claim().to_dict()["notion"] == "zcdp"
    mean = create_mechanism("opendp-mean")
    assert mean.claim().epsilon(0.0) == float(mean.make().map(2))
    assert mean.relation().name == "replace-one"


def test_pydp_claim_is_the_objects_epsilon():
    _lib("pydp")
    mech = create_mechanism("pydp-gaussian", epsilon=0.8, delta=1e-6)
    assert mech.claim().parameters() == {"epsilon": 0.8, "delta": 1e-6}


# -- default pairs with power (issue 23) ----------------------------------------------------

def test_diffprivlib_exponential_default_pair_nearly_attains_epsilon():
    _lib("diffprivlib")
    mech = create_mechanism("diffprivlib-exponential", epsilon=1.0)
    (pair,) = mech.worst_case_pairs()
    assert mech.check_pair(pair.d0, pair.d1)[0]
    exact = mech.exact_epsilon(pair.d0, pair.d1)
    assert exact == pytest.approx(math.log((1 + 10 * math.e) / 11), rel=1e-6)  # 0.941
    # the old swap pair (Δ, 0) vs (0, Δ) is only ε/2: it could never fail
    assert mech.exact_epsilon([1.0, 0.0], [0.0, 1.0]) == pytest.approx(0.5)
    assert create_mechanism("diffprivlib-permute-and-flip", epsilon=1.0).exact_epsilon(
        pair.d0, pair.d1) is None  # not the softmax law


@pytest.mark.slow
def test_diffprivlib_median_default_pairs_and_their_exact_epsilon():
    _lib("diffprivlib")
    mech = create_mechanism("diffprivlib-median", epsilon=1.0)
    pairs = {p.name: p for p in mech.worst_case_pairs()}
    replace, add = pairs["replace-one"], pairs["add-remove-one"]
    assert mech.exact_epsilon(replace.d0, replace.d1) == pytest.approx(
        math.log(0.1 + 0.9 * math.e), rel=1e-9)  # 0.935
    assert 0.44 < mech.exact_epsilon(add.d0, add.d1) < 0.5  # ε/2-DP under add/remove
    # the old pairs (nine records at the lower bound, one moved or added) are exactly 0
    assert mech.exact_epsilon([0.0] * 9, [1.0] + [0.0] * 8) == 0.0
    # the closed form agrees with diffprivlib's own draws: P[output < 0.1] = 10% vs 3.9%
    rng = np.random.default_rng(3)
    low = [float(np.mean(mech.sample(d, 4000, rng) < 0.1)) for d in (replace.d0, replace.d1)]
    assert low[0] == pytest.approx(0.1, abs=0.02)
    assert low[1] == pytest.approx(0.1 / (0.1 + 0.9 * math.e), abs=0.015)


def test_missing_library_is_one_line_naming_the_extra():
    with pytest.raises(LibraryMissing, match=r"pip install 'dpaudit\[no_such_lib_x\]'"):
        require("no_such_lib_x")


# -- seeds ------------------------------------------------------------------------------------

def test_diffprivlib_honours_the_rng_opendp_and_pydp_do_not():
    _lib("diffprivlib")
    dpl = create_mechanism("diffprivlib-laplace").sampler()
    assert not ignores_rng(dpl, [0.0], 5)
    a = dpl([0.0], 50, np.random.default_rng(3))
    np.testing.assert_array_equal(a, dpl([0.0], 50, np.random.default_rng(3)))
    for name in ("opendp-laplace", "pydp-laplace"):
        _lib(name.split("-")[0])
        assert ignores_rng(create_mechanism(name).sampler(), [0.0], 5)


def test_own_mechanisms_do_not_warn_about_the_rng():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimate_epsilon_lower_bound(create_mechanism("laplace").sampler(), [0.0], [1.0],
                                     samples=2000, seed=1)


def test_rng_ignoring_sampler_warns_and_the_bound_is_still_computed():
    def own_generator(d, n, rng):  # draws from a generator of its own, like a library
        return np.random.default_rng().laplace(float(d[0]), 1.0, size=n)

    # the draws are not reproducible, so the bound is checked at a confidence where it
    # exceeds the true ε = 1 with probability ≤ 1e-6 (at 0.95 this failed ~1 run in 20)
    with pytest.warns(RuntimeWarning, match="ignores the rng.*not reproducible"):
        r = estimate_epsilon_lower_bound(own_generator, [0.0], [1.0], samples=5000, seed=1,
                                         confidence=1 - 1e-6)
    assert 0.0 <= r.epsilon < 1.0


# -- floating point -----------------------------------------------------------------------------

def test_lowest_set_bit_and_friends():
    x = np.array([1.0, 0.5, 3.0, 0.0, 0.75, 1 + 2 ** -52, np.inf])
    np.testing.assert_array_equal(LowestSetBit()(x)[:6], [0, -1, 0, 2000, -2, -52])
    assert np.isnan(LowestSetBit()(x)[6])
    np.testing.assert_array_equal(MantissaTrailingZeros()(x[:3]), [52, 52, 51])
    np.testing.assert_array_equal(Exponent()(np.array([1.0, -0.75])), [1101, -1100])
    ints = np.arange(100.0)
    assert representation_statistics(ints, ints) == []  # integer-valued: nothing to read
    assert [s.name for s in representation_statistics(ints + 0.5 ** 30 * 3, ints)] == [
        "lowest set bit of output",
        "float64 cell (exponent × lowest set bit) of output log-ratio score"]
    from dpaudit.distinguish.floating import ALL_STATISTICS
    assert len(representation_statistics(ints + 0.5 ** 30 * 3, ints, kinds=ALL_STATISTICS)) == 4


def test_naive_float_laplace_leaks_through_its_low_bits_the_grid_one_does_not():
    naive = create_mechanism("naive-float-laplace", epsilon=1.0)
    pair = naive.worst_case_pairs()[0]
    values = estimate_epsilon_lower_bound(naive.sampler(), pair.d0, pair.d1, samples=20000,
                                          seed=2)
    bits = estimate_epsilon_lower_bound(naive.sampler(), pair.d0, pair.d1, samples=20000,
                                        seed=2, representation=True)
    assert values.epsilon < 1.0 < bits.epsilon
    assert "lowest set bit" in bits.event
    grid = create_mechanism("grid-laplace", epsilon=1.0)
    safe = estimate_epsilon_lower_bound(grid.sampler(), pair.d0, pair.d1, samples=20000,
                                        seed=2, representation=True)
    assert safe.epsilon <= 1.0


@pytest.mark.slow
def test_diffprivlib_laplace_leaks_snapping_does_not():
    _lib("diffprivlib")
    lap = create_mechanism("diffprivlib-laplace")
    r = estimate_epsilon_lower_bound(lap.sampler(), [0.0], [1.0], samples=10000, seed=4,
                                     representation=True)
    assert r.epsilon > 1.0, r.event
    snap = create_mechanism("diffprivlib-snapping")
    s = estimate_epsilon_lower_bound(snap.sampler(), [0.0], [1.0], samples=4000, seed=4,
                                     representation=True)
    assert s.epsilon <= 1.0, s.event


# -- histogram-like outputs --------------------------------------------------------------------

def _histogram(d, n, rng):
    p = 1 - math.exp(-1.0)
    return np.asarray(d, np.int64) + rng.geometric(p, (n, 3)) - rng.geometric(p, (n, 3))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_three_bin_histogram_row_patterns_do_not_crowd_out_coordinates(seed):
    r = estimate_epsilon_lower_bound(_histogram, [4, 0, 0], [4, 0, 1], samples=200_000,
                                     seed=seed)
    assert r.epsilon > 0.93, r.event  # output[2] ≤ 0 alone certifies ≈ 0.96


# -- suites: requires ----------------------------------------------------------------------------

SUITE = """
[suite]
requires = {requires}
[[audit]]
name = "a"
mechanism = "laplace"
samples = 1000
"""


def test_suite_with_a_missing_library_is_skipped_not_an_error(tmp_path):
    path = tmp_path / "needs.toml"
    path.write_text(SUITE.format(requires='["no_such_lib_x"]'))
    seen = []
    run = run_suites([str(path)], on_suite_skipped=seen.append)
    assert [s.skipped for s in run.suites] == [
        "requires no_such_lib_x, which is not installed (pip install no_such_lib_x)"]
    assert run.suites[0].to_json()["skipped"].startswith("requires no_such_lib_x")
    assert "points" not in run.suites[0].to_json() and run.suites[0].error is None
    assert len(seen) == 1 and str(seen[0]).startswith(f"{path}: skipped: requires")
    assert exit_status(run) == 0 and run.records == []


def test_requires_must_be_a_list_of_names(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(SUITE.format(requires='"numpy"'))
    with pytest.raises(SuiteError, match="requires"):
        load_suite(path)
    path.write_text(SUITE.format(requires='["numpy"]'))
    assert load_suite(path).audits[0].name == "a"


@pytest.mark.slow
def test_shipped_external_suites_parse_or_skip():
    from dpaudit.suite.requires import SuiteSkipped
    for name in ("diffprivlib", "opendp", "pydp"):
        try:
            suite = load_suite(f"audits/external/{name}.toml")
        except SuiteSkipped:
            continue
        assert suite.audits and all(a.mechanism.startswith(name) for a in suite.audits)


@pytest.mark.slow
def test_cli_reports_skipped_suites_and_rng_warnings(tmp_path, capsys):
    from dpaudit.cli.commands import main

    (tmp_path / "own_rng.py").write_text(
        "import numpy as np\n"
        "def sampler(d, n, rng):\n"
        "    return float(d[0]) + np.random.default_rng().laplace(0.0, 1.0, size=n)\n")
    (tmp_path / "a.toml").write_text(
        '[[audit]]\nname = "own-rng"\nsampler = "own_rng.py:sampler"\n'
        # claim 5 against a true ε of 1: the sampler ignores the rng, so its numbers differ
        # run to run; a claim at the true ε would fail this test in ~5 % of runs
        'claim = { notion = "pure-dp", epsilon = 5.0 }\nsamples = 1000\n'
        '[[audit.pairs]]\nd0 = [0.0]\nd1 = [1.0]\n')
    (tmp_path / "b.toml").write_text(SUITE.format(requires='["no_such_lib_x"]'))
    out = tmp_path / "out"
    status = main(["run", str(tmp_path), "--out", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 0
    assert f"{tmp_path / 'b.toml'}: skipped: requires no_such_lib_x" in err
    md = (out / "summary.md").read_text()
    assert "skipped: requires no_such_lib_x" in md
    assert "### Warnings" in md and "ignores the rng" in md and "`a/own-rng`" in md
    import json

    from dpaudit.report.results_file import read_document
    data = json.loads((out / "results.json").read_text())
    records = read_document(out / "results.json")["audits"]
    assert any("ignores the rng" in w for w in records[0]["warnings"])
    assert [s.get("skipped") for s in data["suites"]][1].startswith("requires no_such_lib_x")
    assert 'skipped="1"' in (out / "junit.xml").read_text()  # CI shows it as skipped
    assert "Not run: skipped: requires no_such_lib_x" in (out / "report.html").read_text()
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.results.records import SCHEMA_FILE
    jsonschema.validate(data, json.loads(Path(SCHEMA_FILE).read_text()))


@pytest.mark.slow
def test_shipped_pydp_and_opendp_suites_meet_their_expectations_at_quick_profile():
    _lib("pydp")
    _lib("opendp")
    run = run_suites(["audits/external/pydp.toml", "audits/external/opendp.toml"],
                     profile="quick", workers=2)
    assert exit_status(run) == 0, [(o.audit, o.verdict) for o in run.outcomes
                                   if not o.met_expectation]
    assert all(any("ignores the rng" in w for w in r.warnings) for r in run.records)


@pytest.mark.slow
def test_pytest_plugin_skips_a_suite_whose_library_is_missing(pytester):
    pytester.makefile(".toml", needs=SUITE.format(requires='["no_such_lib_x"]'))
    result = pytester.runpytest("--dpaudit-suites", "needs.toml", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*skipped: requires no_such_lib_x, which is not installed*"])
