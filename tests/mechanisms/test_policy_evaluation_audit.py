"""DP policy evaluation: the certificate's findings, the audit suite and `dpaudit check`."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpaudit import proofs
from dpaudit.audit.plan import plan_suite
from dpaudit.audit.run import judged_points
from dpaudit.backends import LocalBackend
from dpaudit.results.options import RunOptions
from dpaudit.suite.spec import load_suite
from dpaudit.check.runner import check_mechanism
from dpaudit.mechanisms.policy_evaluation import estimators as est
from dpaudit.mechanisms.policy_evaluation.mechanisms import DPLSW
from dpaudit.mechanisms.registry import create_mechanism, mechanism_names

SUITE = "audits/policy_evaluation.toml"


@pytest.fixture(scope="module")
def certificate():
    path = proofs.certificate_directory() / "policy_evaluation.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _steps(doc, section):
    return doc["sections"][section]


def test_certificate_records_the_counterexamples(certificate):
    """The paper's statements the framework shows false are recorded as certified steps."""
    for section, needle in (("lemma1_main_counterexample", "Lemma 1 (main text)"),
                            ("theorem6_counterexample", "Theorem 6"),
                            ("utility", "Lemma 23"), ("utility", "Theorem 11"),
                            ("utility", "Lemma 30")):
        steps = _steps(certificate, section)
        assert any(needle in s["statement"] and "FALSE" in s["statement"] for s in steps)
        intervals = [s for s in steps if s["method"] == "interval"]
        assert intervals and all(s["result"] == "passed" and "certified on" in s["detail"]
                                 for s in intervals)


def test_certificate_checks_lattices_and_lemma14(certificate):
    lattice = _steps(certificate, "lattice")
    assert sum("exhaustive" in s["statement"] for s in lattice) >= 7
    lemma14 = _steps(certificate, "lemma14")
    assert len(lemma14) >= 20 and all(s["result"] == "passed" for s in lemma14)
    assert {"sum of nonnegative terms", "vertices", "identity", "sign"} <= {
        s["method"] for s in lemma14}
    assert set(certificate["entries"]) >= {"alpha", "beta", "alpha_appendix", "beta_appendix",
                                           "lsw_sigma", "lsl_sigma", "lsw_phi_term",
                                           "lsl_count_term", "lsl_phi", "lsl_c"}


def test_mechanisms_use_the_certified_formulas(certificate):
    import sympy as sp
    for key, formula in (("alpha", est.ALPHA), ("lsw_sigma", est.LSW_SIGMA),
                         ("lsl_sigma", est.LSL_SIGMA), ("lsw_phi_term", est.LSW_PHI_TERM)):
        assert sp.simplify(sp.sympify(certificate["entries"][key]["srepr"])
                           - formula.expression) == 0


def test_registered_names():
    assert {"dp-lsw", "dp-lsl"} <= set(mechanism_names())


@pytest.mark.slow
def test_suite_reaches_its_verdicts_and_bounds_stay_below_exact():
    """The suite at 1/10 of its samples (two audits, every pair): verdicts as expected, and no
    certified bound above the exact ε of its pair (coverage)."""
    suite = load_suite(SUITE)
    picked = [a for a in suite.audits if a.name in ("dp-lsw-eps10-one-state",
                                                    "dp-lsw-eps300-beyond-lemma1")]
    tasks, info = plan_suite(suite, RunOptions(samples=20000))
    tasks = [t for t in tasks if t.audit in {a.name for a in picked}]
    points = judged_points(tasks, LocalBackend(1).run(tasks, [])[0])
    assert all(p.met_expectation for p in points), [p.outcome() for p in points]
    records = [r for p in points for r in p.records()]
    for r in records:
        assert r.verdict == "consistent" and r.error is None
        if r.search is not None and r.exact_epsilon is None:
            continue  # a searched pair whose law has no closed form here
        for bound in (r.epsilon_lower_bound, r.white_box_epsilon_lower_bound):
            if bound is not None:
                assert bound <= r.exact_epsilon + 1e-9
    big = [r for r in records if r.audit == "dp-lsw-eps300-beyond-lemma1" and r.search is None]
    assert big and all(r.exact_epsilon > r.claimed_epsilon for r in big)
    informative = [r for r in records if r.audit == "dp-lsw-eps10-one-state" and r.search is None
                   and r.delta == 1e-3]
    assert all(r.epsilon_lower_bound > 0.5 for r in informative)


@pytest.mark.slow
def test_greybox_check_passes_on_both_mechanisms():
    budget = dict(random_pairs=300, hypothesis_examples=60, optimiser_starts=2,
                  optimiser_evaluations=100)
    for name, extra in (("dp-lsw", {}), ("dp-lsl", {"lam": 4.0})):
        mech = create_mechanism(name, epsilon=10.0, delta=1e-3, n_states=2, f_max=1.0, **extra)
        result = check_mechanism(mech, samples=20000, seed=1, greybox=budget)
        verdicts = {s.step: s.verdict for s in result.steps}
        # the exact step judges the pair's exact curve where the mechanism knows one
        assert verdicts.pop("exact") in ("consistent", "skipped"), result.step("exact").summary
        assert verdicts == {"claim": "consistent", "sensitivity": "consistent",
                            "calibration": "consistent", "canary": "skipped",
                            "black-box": "consistent"}, [s.summary for s in result.steps]
        ratio = result.step("sensitivity").data["ratio"]
        assert ratio == pytest.approx(1.0) if name == "dp-lsw" else 0.2 < ratio < 1


class _UnclippedLSW(DPLSW):
    """A broken copy: calibrates to the public F_max but forgets to clip the returns."""

    def statistics(self, dataset):
        from dpaudit.mechanisms.policy_evaluation.data import batch_statistics
        return batch_statistics(self.validate_dataset(dataset), self.gamma, self.n_states, None)


@pytest.mark.slow
def test_greybox_check_catches_a_missing_clip():
    mech = _UnclippedLSW(epsilon=10.0, delta=1e-3, n_states=2, f_max=0.5, gamma=0.9)
    result = check_mechanism(mech, samples=5000, seed=2,
                             greybox=dict(random_pairs=200, hypothesis_examples=0,
                                          optimiser_starts=0, optimiser_evaluations=0))
    step = result.step("sensitivity")
    assert step.verdict == "violation" and step.data["ratio"] > 1.5


@pytest.mark.slow
def test_calibration_check_catches_a_halved_sigma():
    class Half(DPLSW):
        def sample(self, dataset, n, rng):
            theta, sigma = self.theta_sigma(dataset)
            return theta[None, :] + 0.5 * sigma * rng.standard_normal((n, self.d))
    result = check_mechanism(Half(n_states=1, f_max=1.0), samples=5000, seed=3,
                             greybox=dict(random_pairs=10, hypothesis_examples=0,
                                          optimiser_starts=0, optimiser_evaluations=0))
    assert result.step("calibration").verdict == "violation"


def test_paper_parameters_give_zero_exact_epsilon_at_delta():
    """ε = δ = 0.1 on the 40-state chain: every pair's total variation is far below δ."""
    mech = create_mechanism("dp-lsw", epsilon=0.1, delta=0.1, n_states=40, f_max=1.0,
                            gamma=0.99)
    pair = mech.worst_case_pairs()[1]
    prof = mech.profile(pair.d0, pair.d1).symmetric()
    assert prof.epsilon(0.1) == 0.0 and prof.delta(0.0) < 0.01  # total variation ≈ 0.002
    assert prof.delta(0.1) < 1e-30  # the pair is (0.1, 1e-30)-DP
    assert 0 < prof.epsilon(1e-6) < 0.1
    assert math.isfinite(mech.noise_scale(pair.d0)) and np.all(np.isfinite(mech.query(pair.d0)))
