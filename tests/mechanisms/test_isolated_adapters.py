"""SmartNoise SQL and Tumult Core, whose pins conflict with the test extra's, in environments
the tests build and cache (tests/isolated.py): the claims are the libraries' own, and their
suites (audits/external/smartnoise.toml, tumult.toml) meet their expectations at --profile
quick.

Slow, and run last: tests/conftest.py starts building the environments these tests mark
(``isolated``) at collection, in the background, and moves the tests to the end of the run, so
the build overlaps the rest of the suite (benchmarks/RESULTS.md has the cost).  A run that
cannot install an environment skips naming the extra and the installer's last line.  Tumult
is tested as tmlt.core 0.20.0 alone (the ``tumult-core`` extra): the ``tumult`` extra
(tmlt.analytics 0.21.0 with tmlt.core 0.19.1) would be a second pyspark environment of its
own for the same four measurements, so its run is the documented command of
audits/external/tumult.toml, not CI's."""

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


@pytest.mark.isolated("smartnoise")
def test_smartnoise_claims_and_suite(tmp_path):
    python = _python("smartnoise")
    done = run(python, ["-c", CLAIMS_SN])
    assert done.stdout.strip() == "ok snsql", done.stderr[-3000:]
    checked = contract(python, "smartnoise")
    assert checked.returncode == 0 and "3 passed" in checked.stdout, checked.stdout[-3000:]
    # one SmartNoise call costs ~1 s: CI runs the uncensored COUNT, whose leak the search
    # must find (~16 s of CPU; the censored COUNT would add ~25 s, over the budget of
    # .ci/run, and its claim and contract are checked above); the full suite is
    # benchmarks/analytics.py's
    records = _suite(python, "smartnoise", tmp_path, only=["count-uncensored"])
    pairs = {r["pair"]["name"] for r in records if r["verdict"] == "violation"}
    assert "searched-key-only-in-one-dataset" in pairs, pairs


CLAIMS_TM = """
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.mechanisms.external.common import library_version
m = create_mechanism("tumult-gaussian", noise=2.0)
assert m.claim().to_dict()["notion"] == "zcdp"
assert m.build().privacy_function(1).to_float(round_up=True) == 0.25
assert create_mechanism("tumult-laplace", noise=0.5).claim().epsilon(0.0) == 2.0
try:
    create_mechanism("tumult-laplace", integer=True)
except ValueError as exc:
    print(str(exc).split(":")[0])
print(library_version("tmlt.core"))
"""


@pytest.mark.isolated("tumult-core")
def test_tumult_core_claims_and_suite(tmp_path):
    """tmlt.core 0.20.0 takes floats only in AddLaplaceNoise (integers: AddGeometricNoise)
    and its AddGaussianNoise still returns ``float(value) + gaussian(σ²)``: the suite's
    float finding (``gaussian``, expect = "violation") holds there."""
    python = _python("tumult-core")
    done = run(python, ["-c", CLAIMS_TM])
    assert done.stdout.split("\n")[:2] == ["Tumult AddLaplaceNoise rejects the parameters",
                                           "0.20.0"], done.stdout + done.stderr[-3000:]
    checked = contract(python, "tumult")
    assert checked.returncode == 0 and "4 passed" in checked.stdout, checked.stdout[-3000:]
    _suite(python, "tumult", tmp_path)  # exit status 0: every expectation met
