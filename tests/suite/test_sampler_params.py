"""Samplers take their audit's parameters (issue 26, item 4): ``sampler(dataset, n, rng,
**params)``, detected by signature, in suites (``params``, ``sweep``), the API
(``audit_sampler(params=...)``) and the pytest fixture; a claim key left out of the claim
table is read from the params, so one function serves every ε."""

from __future__ import annotations

import inspect
import textwrap

import pytest

from dpaudit.api import audit_sampler, run_suites
from dpaudit.mechanisms.sampler import (SamplerParameterError, bind_sampler_params,
                                        sampler_signature)
from dpaudit.suite import SuiteError, load_suite
from dpaudit.suite.targets import ClaimTableError, claim_from_dict, claim_template

SAMPLERS = '''
import numpy as np
from dpaudit import laplace_on_grid

def noisy_sum(dataset, n, rng, epsilon=1.0, scale_bug=1.0):
    """Laplace(1/epsilon) on the sum; scale_bug < 1 understates the noise."""
    return laplace_on_grid(float(np.sum(dataset)), scale_bug / epsilon, n, rng)

def needs_k(dataset, n, rng, *, k):
    return laplace_on_grid(float(np.sum(dataset)), float(k), n, rng)
'''

PAIR = "[[audit.pairs]]\nd0 = [0, 0]\nd1 = [0, 1]\n"


@pytest.fixture
def suite_dir(tmp_path):
    (tmp_path / "samplers.py").write_text(SAMPLERS)
    return tmp_path


def _suite(directory, body: str):
    path = directory / "s.toml"
    path.write_text("[suite]\nsamples = 4000\n" + textwrap.dedent(body))
    return path


def test_a_swept_sampler_claims_each_swept_value(suite_dir):
    path = _suite(suite_dir, f"""
        [[audit]]
        name = "sum"
        sampler = "samplers.py:noisy_sum"
        claim = {{ notion = "pure-dp" }}
        sweep = {{ epsilon = [0.5, 2.0] }}
        {PAIR}
        [[audit]]
        name = "bug"
        sampler = "samplers.py:noisy_sum"
        claim = {{ notion = "pure-dp", epsilon = 0.5 }}
        params = {{ epsilon = 0.5, scale_bug = 0.25 }}
        expect = "violation"
        {PAIR}
        """)
    run = run_suites([str(path)])
    assert [s.error for s in run.suites] == [None]
    assert [(o.audit, o.met_expectation) for o in run.outcomes] == [
        ("sum", True), ("sum", True), ("bug", True)]
    claims = sorted({r.claim["text"] for r in run.records if r.audit == "sum"})
    assert claims == ["pure-dp(epsilon=0.5)", "pure-dp(epsilon=2)"]
    first = next(r for r in run.records if r.audit == "sum")
    assert first.parameters["epsilon"] == 0.5
    assert first.defaulted_parameters == {"scale_bug": 1.0}  # the function's default, reported


@pytest.mark.parametrize("body, key, words", [
    ('params = { epsiln = 0.5 }', "params", "no parameter 'epsiln' (did you mean 'epsilon'?)"),
    ('sweep = { k = [1, 2] }', "params", "no parameter 'k'"),
    ('claim = { notion = "pure-dp" }\nparams = { scale_bug = 2.0 }', None, None),
    ('claim = { notion = "gdp" }', "claim", "a gdp claim needs mu: give mu in the claim "
                                             "table or in the audit's params"),
    ('claim = { notion = "pure-dp", epsilom = 1 }', "claim", "did you mean 'epsilon'"),
    ('claim = { notion = "pure_dp", epsilon = 1 }', "claim", "did you mean 'pure-dp'"),
])
def test_bad_sampler_params_and_claims_name_the_key(suite_dir, body, key, words):
    claim = "" if body.startswith("claim") else 'claim = { notion = "pure-dp" }\n'
    path = _suite(suite_dir, f'[[audit]]\nname = "x"\nsampler = "samplers.py:noisy_sum"\n'
                             f'{claim}{body}\n{PAIR}')
    if key is None:  # epsilon comes from the function's default
        assert load_suite(path).audits[0].params == {"scale_bug": 2.0}
        return
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert f"'x': key '{key}'" in str(info.value) and words in str(info.value)


def test_a_required_keyword_must_be_given(suite_dir):
    path = _suite(suite_dir, f'[[audit]]\nname = "x"\nsampler = "samplers.py:needs_k"\n'
                             f'claim = {{ notion = "pure-dp", epsilon = 1 }}\n{PAIR}')
    with pytest.raises(SuiteError, match="needs the parameter.*k .no default.: give them in "
                                         "params"):
        load_suite(path)


def test_signatures():
    def plain(dataset, n, rng):
        pass

    def keywords(dataset, n, rng, epsilon=1.0, *, k):
        pass

    def anything(dataset, n, rng, **kw):
        pass

    def positional_star(*args, epsilon=1.0):
        pass

    assert sampler_signature(plain, "p").keywords == {}
    sig = sampler_signature(keywords, "k")
    assert sig.keywords == {"epsilon": 1.0, "k": inspect.Parameter.empty}
    assert bind_sampler_params(sig, {"k": 2}, "k") == {"epsilon": 1.0, "k": 2}
    assert bind_sampler_params(sampler_signature(anything, "a"), {"z": 1}, "a") == {"z": 1}
    assert sampler_signature(positional_star, "s").keywords == {"epsilon": 1.0}
    with pytest.raises(SamplerParameterError, match="takes no parameters, got 'epsilon': "
                                                    "declare them as keyword arguments"):
        bind_sampler_params(sampler_signature(plain, "p"), {"epsilon": 1}, "p")
    for bad in (lambda d, n: None, lambda d, n, rng, x, /: None, int):
        with pytest.raises(ValueError):
            sampler_signature(bad, "bad")


def test_claim_tables():
    assert claim_template({"notion": "pure-dp"}) == {"notion": "pure-dp"}
    assert claim_template({"notion": "pure-dp", "epsilon": 1}).describe() == \
        "pure-dp(epsilon=1)"
    assert claim_from_dict({"notion": "approx-dp", "delta": 1e-6},
                           {"epsilon": 2.0}).describe() == "approx-dp(epsilon=2, delta=1e-06)"
    with pytest.raises(ClaimTableError, match="claim key 'epsilon' of a pure-dp claim must be "
                                              "a number, got 'big' .from params."):
        claim_from_dict({"notion": "pure-dp"}, {"epsilon": "big"})


def test_the_api_passes_params_and_completes_the_claim(suite_dir, monkeypatch):
    monkeypatch.chdir(suite_dir)
    result = audit_sampler("samplers.py:noisy_sum", {"notion": "pure-dp"},
                           [([0, 0], [0, 1])], params={"epsilon": 0.5}, samples=4000)
    assert result.verdict == "consistent"
    assert result.records[0].claim["text"] == "pure-dp(epsilon=0.5)"
    assert result.defaulted_parameters == {"scale_bug": 1.0}
    with pytest.raises(ValueError, match="did you mean 'epsilon'"):
        audit_sampler("samplers.py:noisy_sum", {"notion": "pure-dp"}, [([0], [1])],
                      params={"epsilom": 0.5})
