"""The PipelineDP adapters (dpaudit/mechanisms/external/pipelinedp_mechanisms.py) and the keyed
base (keyed.py): claims are the accountant's allocation, one aggregate runs disjoint copies,
and the copies pass the batch independence check; the pair search proposes first."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.audit.pair_search import candidate_pairs
from dpaudit.mechanisms.batched import check_independence
from dpaudit.mechanisms.external.common import LibraryMissing, require
from dpaudit.mechanisms.external.keyed import ABSENT, collect, replicate
from dpaudit.mechanisms.registry import create_mechanism


@pytest.fixture(scope="module")
def pdp():
    try:
        return require("pipeline_dp")
    except LibraryMissing as exc:
        pytest.skip(str(exc))


def test_copies_share_no_user_and_no_key():
    rows = [(0, 0, 1.0), (3, 2, 0.5)]
    copies = replicate(rows, 3, keys=3)
    assert copies[:2] == rows and copies[2:4] == [(4, 3, 1.0), (7, 5, 0.5)]
    users = [{u for u, _, _ in copies[2 * j:2 * j + 2]} for j in range(3)]
    assert not users[0] & users[1] and not users[1] & users[2]
    out = collect({0: 1.0, 5: 2.0, 7: 3.0}, 3, keys=3)
    np.testing.assert_array_equal(out, [[1.0, ABSENT, ABSENT], [ABSENT, ABSENT, 2.0],
                                        [ABSENT, 3.0, ABSENT]])
    with pytest.raises(ValueError, match="released key 9, which no copy has"):
        collect({9: 1.0}, 3, keys=3)


@pytest.mark.slow
def test_claim_is_what_the_accountant_allocates(pdp):
    assert create_mechanism("pipelinedp-count").claim().to_dict()["notion"] == "pure-dp"
    private = create_mechanism("pipelinedp-count", public=False, epsilon=0.5, delta=1e-5)
    specs = private.run([(0, 0, 0.0)], 1)[0].mechanism_specs
    assert private.claim().epsilon(1e-5) == pytest.approx(sum(s.eps for s in specs))
    assert private.claim().epsilon(1e-5) == pytest.approx(0.5)
    gauss = create_mechanism("pipelinedp-count", noise="gaussian", delta=1e-6)
    assert gauss.claim().to_dict()["notion"] == "approx-dp"
    assert create_mechanism("pipelinedp-count").describe()["library"]["version"] == "0.3.1"
    with pytest.raises(ValueError, match="PipelineDP rejects the parameters"):
        create_mechanism("pipelinedp-count", noise="gaussian", delta=0.0)


def test_outputs_are_per_copy_rows_of_keys(pdp):
    mech = create_mechanism("pipelinedp-count", copies=7)
    out = mech.sample([[0, 0, 1.0], [1, 0, 1.0], [2, 1, 1.0]], 10, np.random.default_rng(0))
    assert out.shape == (10, 3) and np.all(np.isfinite(out))    # public: every key released
    assert abs(out[:, 0].mean() - 2) < 1.5 and abs(out[:, 2].mean()) < 1.5
    with pytest.raises(ValueError, match="refuses a table with no rows"):
        mech.sample([], 5, np.random.default_rng(0))
    private = create_mechanism("pipelinedp-select-partitions", copies=5)
    sel = private.sample([[0, 0, 1.0]], 5, np.random.default_rng(0))
    assert np.all(sel == ABSENT)        # one user never passes the truncated geometric


def test_copies_of_one_call_pass_the_independence_check(pdp):
    mech = create_mechanism("pipelinedp-sum")
    (pair,) = mech.worst_case_pairs()
    rows = mech.validate_dataset(pair.d1)
    check = check_independence(mech.draw_copies, rows, copies=200, calls=5,
                               rng=np.random.default_rng(0), coordinates=3)
    assert check.passed, check.describe()


def test_the_search_tries_the_named_proposals_first(pdp):
    mech = create_mechanism("pipelinedp-count")
    found, rejected = candidate_pairs(mech, np.random.default_rng(0), 2)
    names = [pair.name for _, pair in found]
    assert names[:7] == ["searched-user-in-many-partitions",
                         "searched-user-many-rows-one-partition",
                         "searched-key-only-in-one-dataset", "searched-value-above-clamp",
                         "searched-value-below-clamp", "searched-empty-partition",
                         "searched-extreme-value-small-partition"]
    assert {source for source, _ in found[:7]} == {"proposal"}
    assert rejected >= 1        # the empty dataset: PipelineDP refuses an empty table


@pytest.mark.slow
def test_shipped_pipelinedp_suite_meets_its_expectations_at_quick_profile(pdp):
    from dpaudit.api import run_suites
    from dpaudit.results.records import exit_status

    # CI's share of the suite (~25 s of CPU at quick): a public and a private COUNT, partition
    # selection and the Gaussian finding; SUM, MEAN and VARIANCE (~24 s more, over .ci/run's
    # budget) run in benchmarks/analytics.py and `dpaudit run audits/external/pipelinedp.toml`
    run = run_suites(["audits/external/pipelinedp.toml"], profile="quick", workers=2,
                     only=["count-laplace-public", "count-laplace-private",
                           "select-partitions", "count-gaussian-public"])
    assert {o.audit for o in run.outcomes} == {"count-laplace-public", "count-laplace-private",
                                               "select-partitions", "count-gaussian-public"}
    assert exit_status(run) == 0, [(o.audit, o.verdict) for o in run.outcomes
                                   if not o.met_expectation]
    searched = [r for r in run.records
                if r.pair is not None and r.pair.name.startswith("searched-")]
    assert searched                     # the keyed-rows search ran on every point
    # PyDP's secure generator: noisy outputs are not reproducible, and the records say so
    # (select-partitions releases nothing here, so its draws are equal and it cannot tell)
    assert all(any("ignores the rng" in w for w in r.warnings) for r in run.records
               if r.audit.startswith("count-laplace"))
