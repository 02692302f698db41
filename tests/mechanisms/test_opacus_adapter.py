"""The Opacus adapters (dpaudit/mechanisms/external/opacus_mechanisms.py) and
audits/external/opacus.toml: the claim is what Opacus's privacy engine reports, the vectorised
runs have the law of independent one-run trainings, clipping and noise are Opacus's.

Every test here imports torch (≈2 s) and trains with Opacus, so all are ``slow``; torch and
opacus are imported inside the ``opacus`` fixture, so that ``pytest -m "not slow"`` never pays
for the import.  Without the ``opacus`` extra the tests skip, saying why."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from dpaudit.mechanisms.registry import create_mechanism

pytestmark = pytest.mark.slow

SUITE = Path(__file__).resolve().parents[2] / "audits" / "external" / "opacus.toml"
WHY = "the Opacus adapters need torch and opacus: pip install 'dpaudit[opacus]'"


@pytest.fixture(scope="module")
def opacus():
    pytest.importorskip("torch", reason=WHY)
    return pytest.importorskip("opacus", reason=WHY)


def _mech(name, **params):
    params = {"n": 20, "batch_size": 1, "noise_multiplier": 0.8, **params}
    return create_mechanism(name, **params)


def test_claim_is_what_the_privacy_engine_reports_after_training(opacus):
    from opacus.accountants import PRVAccountant, RDPAccountant

    poisson = _mech("opacus-poisson")
    shuffle = _mech("opacus-shuffle")
    # Opacus accounts the shuffled pipeline exactly as the Poisson one: the gap of issue 25
    assert poisson.claim().history == shuffle.claim().history == ((0.8, 0.05, 20),)
    acc = PRVAccountant()
    acc.history = [(0.8, 0.05, 20)]
    assert shuffle.claim().epsilon(1e-3) == pytest.approx(acc.get_epsilon(1e-3), rel=1e-12)
    rdp = _mech("opacus-shuffle", accountant="rdp", epochs=2).claim()
    acc = RDPAccountant()
    acc.history = [(0.8, 0.05, 40)]
    assert rdp.history == ((0.8, 0.05, 40),)
    assert rdp.epsilon(1e-3) == pytest.approx(acc.get_epsilon(1e-3), rel=1e-12)
    d = rdp.to_dict()
    assert d["source"] == "opacus.accountants.RDPAccountant" and d["version"] == opacus.__version__
    assert rdp.epsilon(0.0) == math.inf
    with pytest.raises(ValueError, match="delta"):
        rdp.epsilon(1.0)


def test_batches_from_the_batch_sampler_are_the_data_loaders_batches(opacus):
    """The adapter reads batches off ``loader.batch_sampler`` and indexes the TensorDataset:
    the same rows the DataLoader's fetch + collate (Opacus's collate for DPDataLoader) give."""
    import torch

    from dpaudit.mechanisms.external.opacus_mechanisms import _private_pipeline

    values = np.arange(12.0)
    for poisson in (True, False):
        batches = []
        for via_loader in (True, False):
            *_, loader, tensors = _private_pipeline(
                torch, values=values, batch_size=2, poisson=poisson, runs=3,
                noise_multiplier=1.0, clip_norm=1.0, accountant="prv", seed=5)
            if via_loader:
                batches.append([b[-1].tolist() for b in loader])
            else:  # iterating a DataLoader first draws its workers' base seed
                torch.empty((), dtype=torch.int64).random_(generator=loader.generator)
                batches.append([tensors[-1][torch.as_tensor(i, dtype=torch.long)].tolist()
                                for i in loader.batch_sampler])
        assert batches[0] == batches[1]
        if not poisson:
            assert all(len(b) == 2 for b in batches[0]) and len(batches[0]) == 6


def test_clipping_and_the_canary_step_with_almost_no_noise(opacus):
    """σ → 0: every run's gradients are Opacus's clipped batch sums — the 4C canary counts C,
    the −2C others −C; the shuffle canary sits in exactly one uniformly random step."""
    m = _mech("opacus-shuffle", n=10, noise_multiplier=1e-9, clip_norm=0.5)
    (pair,) = m.worst_case_pairs()
    out = m.sample(pair.d0, 600, np.random.default_rng(1))
    assert out.shape == (600, 10)
    hit = np.isclose(out, 0.5, atol=1e-5)
    assert np.allclose(out[~hit], -0.5, atol=1e-6) and np.all(hit.sum(axis=1) == 1)
    counts = hit.sum(axis=0)
    assert counts.min() > 30 and counts.max() < 95          # uniform over the 10 steps
    p = _mech("opacus-poisson", n=10, noise_multiplier=1e-9, clip_norm=0.5)
    (pair,) = p.worst_case_pairs()
    out = p.sample(pair.d0, 600, np.random.default_rng(2))
    assert set(np.round(out, 5).ravel()) == {0.0, 0.5}     # in or out of each batch, clipped
    assert abs(np.mean(out > 0.25) - 0.1) < 0.02           # q = b/n


def test_vectorised_runs_have_the_dpsgd_laws_and_are_independent(opacus):
    """Two chunks of :data:`RUNS` runs: the per-step moments of Poisson sampling, the law of
    the shuffle pair's max statistic (the certified CDF), and no correlation between runs."""
    from dpaudit.claims.certificates import load_formula

    log_f = load_formula("dpsgd", "shuffle_max_log_cdf")
    size = 1000
    shuffle = _mech("opacus-shuffle", n=20, noise_multiplier=0.7)
    (pair,) = shuffle.worst_case_pairs()
    for data, shift in ((pair.d0, 2.0), (pair.d1, 1.0)):
        top = (shuffle.sample(data, size, np.random.default_rng(3)) + 1.0).max(axis=1)
        for c in (1.0, 2.0):
            p = -math.expm1(log_f(c=c, mu=shift, sigma=0.7, T=20))
            assert abs(np.mean(top > c) - p) < 5 * math.sqrt(p * (1 - p) / size)
    poisson = _mech("opacus-poisson", n=20, noise_multiplier=0.7)
    out = poisson.sample(poisson.worst_case_pairs()[0].d0, size, np.random.default_rng(4))
    q = 0.05
    assert abs(out.mean() - q) < 5 * math.sqrt((0.49 + q) / out.size)
    assert abs(out.var() - (0.49 + q * (1 - q))) < 0.03
    corr = np.corrcoef(out[:, 0], out[:, 1])[0, 1]                  # steps
    runs = np.corrcoef(out[:-1].ravel(), out[1:].ravel())[0, 1]     # neighbouring runs
    assert abs(corr) < 5 / math.sqrt(size) and abs(runs) < 5 / math.sqrt(out.size)


def test_reproducible_views_and_bad_input(opacus):
    m = _mech("opacus-poisson", n=10, epochs=2)
    (pair,) = m.worst_case_pairs()
    a = m.sample(pair.d0, 7, np.random.default_rng(9))
    assert a.shape == (7, 20)
    np.testing.assert_array_equal(a, m.sample(pair.d0, 7, np.random.default_rng(9)))
    final = _mech("opacus-shuffle", n=10, view="final")
    w = final.sample(final.worst_case_pairs()[0].d0, 5, np.random.default_rng(9))
    assert w.shape == (5,)
    # the final weight after SGD at learning rate 1 from 0: minus the sum of the gradients
    # (the canary clipped to C = 1 once, nine others at −1), plus N(0, 10σ²)
    assert np.all(np.abs(w - 8.0) < 6 * 0.8 * math.sqrt(10))
    with pytest.raises(ValueError, match="n = 10"):
        m.sample([0.0] * 9, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="divide"):
        _mech("opacus-poisson", n=10, batch_size=3)
    assert m.check_pair(pair.d0, pair.d1)[0]


def test_exact_curve_is_the_dpsgd_twins(opacus):
    shuffle = _mech("opacus-shuffle", n=100, noise_multiplier=0.8)
    (pair,) = shuffle.worst_case_pairs()
    twin = create_mechanism("dpsgd-shuffle", n=100, batch_size=1, noise_multiplier=0.8)
    (tp,) = twin.worst_case_pairs()
    assert shuffle.exact_epsilon(pair.d0, pair.d1, 1e-3) == pytest.approx(
        twin.exact_epsilon(tp.d0, tp.d1, 1e-3))
    assert shuffle.exact_epsilon(pair.d0, pair.d1, 1e-3) > 5 * shuffle.claim().epsilon(1e-3)


def test_opacus_suite_verdicts(opacus, tmp_path):
    """audits/external/opacus.toml: Poisson consistent with Opacus's accountants, the shuffled
    DataLoader a certified violation of both (about a minute on 2 cores)."""
    pytest.importorskip("dp_accounting", reason="the Poisson exact curve needs dp_accounting")
    from dpaudit.cli.commands import main
    from dpaudit.report.results_file import read_document

    out = tmp_path / "out"
    assert main(["run", str(SUITE), "--out", str(out), "--workers", "2", "--quiet"]) == 0
    report = read_document(out / "results.json")
    assert report["summary"]["unmet_expectations"] == []
    verdict = {r["audit"]: r["audit_verdict"] for r in report["audits"]}
    assert verdict == {"poisson-prv": "consistent", "poisson-rdp": "consistent",
                       "shuffle-prv": "violation", "shuffle-rdp": "violation",
                       "digits-mlp-canaries": "consistent"}
    for c in report["audits"]:  # one record per certificate
        if c["audit"] == "digits-mlp-canaries":  # one run, the claim from the run's engine
            assert 3.9 < c["claimed_epsilon"] < 4.1 and 1.5 < c["epsilon_lower_bound"] < 4.1
            continue
        assert c["epsilon_lower_bound"] <= c["exact_epsilon"] + 1e-9
