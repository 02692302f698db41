"""The Python entry for code that is not registered: audit_mechanism, audit_sampler."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.api import audit_mechanism, audit_sampler
from dpaudit.claims.notions import ZCDP
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.claims.notions import PureDP


class Counting(Mechanism):
    name = "api-test-counting"
    family = "user"

    def __init__(self, epsilon=1.0, scale=None):
        super().__init__(epsilon=epsilon, scale=scale)
        self.epsilon, self.scale = epsilon, scale or 1.0 / epsilon

    def sample(self, dataset, n, rng):
        return float(np.sum(dataset)) + rng.laplace(0.0, self.scale, size=n)

    def claim(self):
        return PureDP(self.epsilon)

    def worst_case_pairs(self):
        return [NeighbourPair("one", [0.0], [1.0], "")]


def test_unregistered_class_and_instance():
    # the real-valued mechanism keeps its claim (its doubles do not: see the next test)
    ok = audit_mechanism(Counting, params={"epsilon": 1.0}, samples=5000,
                         representation=False)
    assert ok.verdict == "consistent" and ok.met_expectation
    assert ok.records[0].mechanism == "api-test-counting"
    bad = audit_mechanism(Counting(epsilon=1.0, scale=0.5), samples=20_000,
                          expect="violation")
    assert bad.verdict == "violation" and bad.met_expectation
    assert "ε_LB" in bad.explain() and "event E" in bad.explain()


def test_a_users_class_is_audited_on_its_doubles_by_default():
    """``sum + rng.laplace`` on doubles leaks the sum through the low bits (Mironov 2012): a
    user's class is the code they ship, so its representation is read unless they say not;
    the violation is reported as a floating-point one, with the value-level bound beside it."""
    leaky = audit_mechanism(Counting, params={"epsilon": 1.0}, samples=20_000)
    assert leaky.verdict == "violation"
    point = leaky.points[0]
    assert point.coverage.representation is True
    worst = max((c for _, c in point.certificates()), key=lambda c: c.epsilon_lower_bound)
    assert worst.floating_point and worst.value_epsilon_lower_bound <= 1.0
    assert "FLOATING-POINT VIOLATION" in leaky.explain()
    assert "laplace_on_grid" in leaky.explain()
    # the same class without a dataset space says only its named pair was audited
    assert "only the named pairs were audited" in point.coverage.note
    assert "only the named pairs were audited" in leaky.explain()


def test_registered_name_one_family_per_call():
    result = audit_mechanism("laplace", samples=5000, confidence=0.9, white_box=False)
    assert result.suite.family_size == len(result.records)
    assert result.records[0].per_certificate_confidence == pytest.approx(
        1 - 0.1 / result.suite.family_size)


def test_sampler_with_claim_table_and_deltas():
    result = audit_sampler(lambda d, n, rng: rng.normal(float(np.sum(d)), 1.0, size=n),
                           {"notion": "zcdp", "rho": 0.5}, [{"d0": [0], "d1": [1]}],
                           delta=[0.0, 1e-3], samples=5000, representation=False)
    assert [r.delta for r in result.records] == [0.0, 1e-3]
    assert result.records[0].claim["notion"] == "zcdp"
    assert result.verdict == "consistent"
    # at δ = 0 a zCDP claim gives ε = ∞: a vacuous audit, an error since 0a7cbb4; audit a δ > 0
    assert audit_sampler(lambda d, n, rng: rng.normal(np.sum(d), 1, size=n), ZCDP(0.5),
                         [([0], [1])], delta=1e-3, samples=5000,
                         representation=False).verdict == "consistent"


def test_sampler_errors_are_records_or_one_line_value_errors():
    wrong = audit_sampler(lambda d, n, rng: np.zeros(2), epsilon=1.0, pairs=[([0], [1])],
                          samples=5000)
    assert wrong.verdict == "error" and "n outputs" in wrong.records[0].error
    for kwargs, words in [
            (dict(sampler=lambda d, n: 0, epsilon=1.0, pairs=[([0], [1])]), "(dataset, n, rng)"),
            (dict(sampler=lambda d, n, r: 0, pairs=[([0], [1])]), "exactly one of claim"),
            (dict(sampler=lambda d, n, r: 0, epsilon=1.0), "explicit pairs"),
            (dict(sampler=lambda d, n, r: 0, epsilon=1.0, pairs=[([0], [1])], samples=10),
             "samples"),
            (dict(sampler=lambda d, n, r: 0, epsilon=1.0, pairs=[([0], [1])], delta=2.0),
             "delta"),
            (dict(sampler=lambda d, n, r: 0, claim={"notion": "nope"}, pairs=[([0], [1])]),
             "notion")]:
        with pytest.raises(ValueError) as info:
            audit_sampler(**kwargs)
        assert words in str(info.value) and "\n" not in str(info.value)


def test_bad_mechanism_arguments():
    with pytest.raises(ValueError, match="not a subclass"):
        audit_mechanism(int)
    with pytest.raises(ValueError, match="bad parameters"):
        audit_mechanism(Counting, params={"bogus": 1})
    with pytest.raises(ValueError, match="no such file"):
        audit_mechanism("missing_file.py:X")


def test_delta_and_alpha_grids_are_capped_as_in_a_suite():
    """The Python API caps δ and α lists like a suite file does (issue 27, item 7: a
    200 000-entry δ list took 3.6 GB): one ValueError, before anything is planned."""
    from dpaudit.spec.fields import MAX_GRID_VALUES

    many = [1e-6 * (i + 1) / (MAX_GRID_VALUES + 1) for i in range(MAX_GRID_VALUES + 1)]
    with pytest.raises(ValueError, match=f"'delta': expected at most {MAX_GRID_VALUES} values, "
                                         f"got {MAX_GRID_VALUES + 1}"):
        audit_mechanism("laplace", delta=many, samples=1000)
    with pytest.raises(ValueError, match=f"'alphas': expected at most {MAX_GRID_VALUES} values"):
        audit_mechanism("gaussian", delta=1e-5, alphas=[2.0 + i for i in range(1001)],
                        samples=1000)


#: a script auditing a sampler that ends its process, with isolate=True: it must go on
ISOLATED = """
import os
from dpaudit.api import audit_sampler

def ender(d, n, rng):
    os._exit(0)

(record,) = audit_sampler(ender, epsilon=1.0, pairs=[([0.0], [1.0])], samples=2000,
                          isolate=True).records
print("STILL HERE", record.verdict, record.error)
"""


@pytest.mark.slow  # ~3 s: a Python subprocess whose one-worker pool starts twice
def test_isolate_makes_a_sampler_that_ends_its_process_an_error_of_its_audit():
    """Issue 39, item 2: ``os._exit(0)`` in a sampler ended the caller of ``audit_sampler``
    with status 0; with ``isolate=True`` the audit runs in a worker process and such an end
    is an ``error`` of that audit (a subprocess, so that a regression cannot end pytest; a
    fatal signal's end takes the same path: tests/backends/test_worker_retry.py)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ISOLATED], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "STILL HERE error" in done.stdout, done.stdout + done.stderr[-3000:]
    assert "worker process died while running this test, and again when retried alone" \
        in done.stdout
    assert "exit code 0" in done.stdout


def test_isolate_is_a_flag_for_local_processes():
    with pytest.raises(ValueError, match="isolate: expected True or False"):
        audit_sampler(lambda d, n, rng: rng.laplace(size=n), epsilon=1.0,
                      pairs=[([0.0], [1.0])], isolate="yes")
    with pytest.raises(ValueError, match="give one or the other"):
        audit_mechanism("laplace", isolate=True, backend="local:1")
