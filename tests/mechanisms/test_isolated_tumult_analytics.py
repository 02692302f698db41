"""Tumult Analytics sessions on Spark (dpaudit/mechanisms/external/tumult_analytics_mechanisms.py)
in the environment of the ``tumult`` extra (tmlt.analytics 0.21.0, tmlt.core 0.19.1, pyspark
3.5), which tests/isolated.py builds in the background and caches.

One subprocess, one SparkSession: the claims are the session budgets (pure, zCDP, approx);
``AddOneRow`` refuses a user with three rows; a COUNT's batched outputs pass the independence
check; and a known outcome — COUNT under ``PureDPBudget(2)`` and ``AddOneRow`` on a one-row pair,
whose true ε is exactly 2 (two-sided geometric noise of scale 1/2 on counts 1 and 2) — is
certified above 1 and not above 2 (99.9 % confidence: a false violation has probability ≤
0.1 %).  The assertion fails if the session adds the wrong noise, none, or claims another
budget.

Cost (benchmarks/RESULTS.md): ~10 CPU-s to start Spark and import Tumult, ~16 CPU-s for the
first Spark job (warm-up), 3–5 CPU-s for each later one; five jobs in all here.  The
environment (pyspark 3.5.9, 1.1 GB) is built in the background from collection on.  The
mechanism contract of the three adapters is not run here (six more Spark jobs): what it checks
that this test does not — the sum's and average's sampling — is benchmarks/analytics.py's."""

from __future__ import annotations

import json

import pytest

from tests.isolated import EnvironmentUnavailable, environment, run

pytestmark = pytest.mark.slow

SCRIPT = """
import json, warnings
warnings.simplefilter("ignore")
import numpy as np
from dpaudit import estimate_epsilon_lower_bound
from dpaudit.mechanisms.batched import check_independence
from dpaudit.mechanisms.external.common import library_version
from dpaudit.mechanisms.registry import create_mechanism

out = {"version": library_version("tmlt.analytics")}
out["claims"] = [create_mechanism("tumult-analytics-sum", **p).claim().to_dict() for p in
                 ({"epsilon": 2.0}, {"budget": "zcdp", "rho": 0.25},
                  {"budget": "approx", "epsilon": 1.0, "delta": 1e-6})]
row = create_mechanism("tumult-analytics-count", protected_change="row", keys=2,
                       copies=6000, epsilon=2.0)
three = [[0, 0, 0.0]], [[0, 0, 0.0]] + [[1, 0, 1.0]] * 3
out["row_refuses"] = row.check_pair(*three)[1]
out["id_accepts"] = create_mechanism("tumult-analytics-count").check_pair(*three)[0]
json.dumps(row.describe())
pair = row.worst_case_pairs()[0]
rows = row.validate_dataset(pair.d1)
# the first Spark job pays the warm-up: make it the independence check's small one
check = check_independence(row.draw_copies, rows, copies=500, calls=2,
                           rng=np.random.default_rng(3))
out["independent"] = [check.passed, check.describe()]
out["shape"] = list(row.sample(pair.d0, 64, np.random.default_rng(1)).shape)
bound = estimate_epsilon_lower_bound(row.sampler(), pair.d0, pair.d1, samples=1500, seed=5,
                                     confidence=0.999)
out["pair"], out["eps_lb"] = pair.name, bound.epsilon
print(json.dumps(out))
"""


@pytest.mark.isolated("tumult")
def test_tumult_analytics_session_claims_relation_and_known_count():
    try:
        python = environment("tumult")
    except EnvironmentUnavailable as exc:
        pytest.skip(str(exc))
    done = run(python, ["-c", SCRIPT], timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["version"] == "0.21.0"
    pure, zcdp, approx = out["claims"]
    assert (pure["notion"], pure["parameters"]) == ("pure-dp", {"epsilon": 2.0}), pure
    assert (zcdp["notion"], zcdp["parameters"]) == ("zcdp", {"rho": 0.25}), zcdp
    assert approx["parameters"] == {"epsilon": 1.0, "delta": 1e-6}, approx
    assert "differ by 3 rows" in out["row_refuses"] and out["id_accepts"] is True, out
    assert out["independent"][0], out["independent"][1]
    assert out["shape"] == [64, 2] and out["pair"] == "extreme-value-small-partition"
    assert 1.0 < out["eps_lb"] <= 2.0, out
