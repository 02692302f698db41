"""SmartNoise SQL and Tumult, whose pins conflict with the test extra's, in environments the
tests build and cache (tests/isolated.py): the claims are the libraries' own, and their suites
(audits/external/smartnoise.toml, tumult.toml) meet their expectations at --profile quick.

Slow: the first run installs each environment (benchmarks/RESULTS.md has the cost); a run
that cannot install one skips naming the extra and pip's last line."""

from __future__ import annotations

import pytest

from dpaudit.report.results_file import read_document

from tests.isolated import EnvironmentUnavailable, contract, environment, run

pytestmark = pytest.mark.slow


def _python(extra):
    try:
        return environment(extra)
    except EnvironmentUnavailable as exc:
        pytest.skip(str(exc))


def _suite(python, suite, tmp_path, only=()):
    out = tmp_path / "out"
    select = [arg for pattern in only for arg in ("--only", pattern)]
    done = run(python, ["-m", "dpaudit.cli", "run", f"audits/external/{suite}.toml",
                        "--profile", "quick", "--workers", "2", "--out", str(out), *select],
               timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return read_document(out / "results.json")["audits"]


CLAIMS_SN = """
from dpaudit.mechanisms.registry import create_mechanism
import snsql
for name, params in [("smartnoise-count", {}), ("smartnoise-avg", {}),
                     ("smartnoise-count", {"censor_dims": True})]:
    m = create_mechanism(name, **params)
    eps, delta = m.reader([(0, 0, 0.0)]).get_privacy_cost(m.sql)
    c = m.claim().to_dict()
    assert abs(m.claim().epsilon(float(delta)) - float(eps)) < 1e-12, (name, c)
print("ok", snsql.__name__)
"""


def test_smartnoise_claims_and_suite(tmp_path):
    python = _python("smartnoise")
    done = run(python, ["-c", CLAIMS_SN])
    assert done.stdout.strip() == "ok snsql", done.stderr[-3000:]
    checked = contract(python, "smartnoise")
    assert checked.returncode == 0 and "3 passed" in checked.stdout, checked.stdout[-3000:]
    # one SmartNoise call costs ~1 s: CI runs the censored COUNT and the uncensored COUNT,
    # whose leak the search must find; the full suite is benchmarks/analytics.py's
    records = _suite(python, "smartnoise", tmp_path, only=["count", "count-uncensored"])
    pairs = {r["pair"]["name"] for r in records if r["verdict"] == "violation"}
    assert "searched-key-only-in-one-dataset" in pairs, pairs


CLAIMS_TM = """
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.mechanisms.external.common import library_version
m = create_mechanism("tumult-gaussian", noise=2.0)
assert m.claim().to_dict()["notion"] == "zcdp"
assert m.build().privacy_function(1).to_float(round_up=True) == 0.25
assert create_mechanism("tumult-laplace", noise=0.5).claim().epsilon(0.0) == 2.0
print(library_version("tmlt.core"))
"""


def test_tumult_claims_and_suite(tmp_path):
    python = _python("tumult")
    done = run(python, ["-c", CLAIMS_TM])
    assert done.stdout.strip() == "0.19.1", done.stderr[-3000:]
    checked = contract(python, "tumult")
    assert checked.returncode == 0 and "4 passed" in checked.stdout, checked.stdout[-3000:]
    _suite(python, "tumult", tmp_path)


CORE_020 = """
import numpy as np
from dpaudit import estimate_epsilon_lower_bound
from dpaudit.mechanisms.registry import create_mechanism
for name in ("tumult-laplace", "tumult-geometric", "tumult-discrete-gaussian"):
    assert create_mechanism(name).sample([0], 5, np.random.default_rng(0)).shape == (5,)
try:
    create_mechanism("tumult-laplace", integer=True)
except ValueError as exc:
    print(str(exc).split(":")[0])
gauss = create_mechanism("tumult-gaussian")
r = estimate_epsilon_lower_bound(gauss.sampler(), [0.0], [1.0], delta=1e-3, samples=10000,
                                 seed=3, representation=True)
print(r.epsilon > gauss.claim().epsilon(1e-3))
"""


def test_tumult_core_020_gaussian_still_leaks_through_its_floats():
    """tmlt.core 0.20.0 takes floats only in AddLaplaceNoise and AddGaussianNoise, and its
    AddGaussianNoise still returns ``float(value) + gaussian(σ²)``: the float finding holds."""
    python = _python("tumult-core")
    done = run(python, ["-c", CORE_020])
    assert done.stdout.split("\n")[:2] == ["Tumult AddLaplaceNoise rejects the parameters",
                                           "True"], done.stdout + done.stderr[-3000:]
