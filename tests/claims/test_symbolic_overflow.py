"""Formulas whose float64 evaluation overflows (issue 39, item 7): the Gaussian and randomized
response claims at ε ≥ 710 raised OverflowError from a lambdified e^ε (through the API; in a
suite the whole file was refused).  The formula is evaluated again in mpmath and rounded."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from dpaudit.api import audit_mechanism
from dpaudit.claims.symbolic import SymbolicFormula
from dpaudit.mechanisms.registry import create_mechanism

EPS, K = sp.symbols("epsilon k", positive=True)
P_TRUE = SymbolicFormula("p_true", sp.exp(EPS) / (sp.exp(EPS) + K - 1))
P_OTHER = SymbolicFormula("p_other", 1 / (sp.exp(EPS) + K - 1))


@pytest.mark.parametrize("epsilon", [709.0, 710.0, 800.0, 1e6])
def test_a_ratio_of_overflowing_exponentials_keeps_its_value(epsilon):
    assert P_TRUE(epsilon=epsilon, k=2) == pytest.approx(1.0 / (1.0 + math.exp(-epsilon)))
    assert P_OTHER.log_value(epsilon=epsilon, k=2) == pytest.approx(
        -epsilon - math.log1p(math.exp(-epsilon)), rel=1e-12)


def test_a_value_beyond_float64_is_infinite_not_an_error():
    assert SymbolicFormula("big", sp.exp(EPS))(epsilon=800.0) == math.inf


def test_an_expression_without_a_value_is_still_a_clear_error():
    with pytest.raises(ValueError):  # math domain error: no real value
        SymbolicFormula("odd", sp.log(EPS - 2))(epsilon=1.0)


@pytest.mark.parametrize("epsilon", [710.0, 1e6])
def test_randomized_response_is_audited_beyond_float_exp(epsilon):
    mech = create_mechanism("randomized-response", epsilon=epsilon)
    pair = mech.worst_case_pairs()[0]
    assert mech.exact_epsilon(pair.d0, pair.d1) == pytest.approx(epsilon, rel=1e-9)
    (record,) = audit_mechanism("randomized-response", params={"epsilon": epsilon},
                                samples=2_000, search=False).records
    assert record.verdict == "consistent" and record.error is None


@pytest.mark.slow
def test_the_gaussian_is_audited_beyond_float_exp():
    (record,) = audit_mechanism("gaussian", params={"epsilon": 710.0, "delta": 1e-5},
                                delta=1e-5, samples=2_000, search=False).records
    assert record.verdict == "consistent" and record.claimed_epsilon == 710.0
    assert record.error is None


SUITE = '''[suite]
samples = 2000
[[audit]]
name = "gaussian-710"
mechanism = "gaussian"
params = { epsilon = 710.0, delta = 1e-5 }
delta = 1e-5
search = false
[[audit]]
name = "rr-710"
mechanism = "randomized-response"
params = { epsilon = 710.0 }
search = false
'''


@pytest.mark.slow
def test_a_suite_with_claims_beyond_float_exp_runs(tmp_path):
    from dpaudit.api import run_suites

    (tmp_path / "big.toml").write_text(SUITE, encoding="utf-8")
    records = run_suites([tmp_path / "big.toml"]).records
    assert sorted(r.audit for r in records) == ["gaussian-710", "rr-710"]
    assert all(r.verdict == "consistent" for r in records)


def test_diffprivlibs_discrete_gaussian_beyond_float_exp_is_refused_not_a_hang(tmp_path):
    """diffprivlib's own constructor loops forever at ε ≥ 710; the adapter refuses it first."""
    pytest.importorskip("diffprivlib")  # in the test extra; a bare install lacks it
    from dpaudit.suite.spec import SuiteError, load_suite

    path = tmp_path / "dgauss.toml"
    path.write_text('[[audit]]\nname = "dg"\nmechanism = "diffprivlib-gaussian-discrete"\n'
                    'params = { epsilon = 710.0, delta = 1e-5 }\n', encoding="utf-8")
    with pytest.raises(SuiteError, match="overflows above 709.78"):
        load_suite(path)
