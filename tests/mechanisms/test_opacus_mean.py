"""The opacus-mean-reduction adapter: Opacus's own training with loss_reduction="mean" on zero
records, whose released noise scale σC/E(m) depends on the dataset's size m."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("opacus", reason="the opacus extra installs it")

from dpaudit.mechanisms.registry import create_mechanism  # noqa: E402


def _mech(**params):
    return create_mechanism("opacus-mean-reduction", **params)


@pytest.mark.slow
def test_the_divisor_is_opacus_expected_batch_size_and_the_pair_is_exact():
    from dpaudit.exact import IsotropicGaussianProfile
    from dpaudit.mechanisms.external.opacus_mean import opacus_rate

    assert opacus_rate(1000, 10) == (0.01, 10)
    assert opacus_rate(1001, 10) == (1 / 101, 9)      # one more record: ⌈1001/10⌉ = 101 steps
    m = _mech()
    (pair,) = m.worst_case_pairs()
    d0, d1 = m.validate_dataset(pair.d0), m.validate_dataset(pair.d1)
    assert (len(d0), len(d1)) == (1000, 1001) and m.check_pair(d0, d1)[0]
    assert m.scale(1000) == pytest.approx(0.1) and m.scale(1001) == pytest.approx(1 / 9)
    exact = m.exact_epsilon(d0, d1, 1e-5)
    assert exact == pytest.approx(IsotropicGaussianProfile(0.0, 0.1, 0.0, 1 / 9, dim=100)
                                  .symmetric().epsilon(1e-5))
    assert 9.0 < exact < 9.2
    # the claim: Opacus's PRV accountant for the 1 000-record run, far below
    claim = m.claim()
    assert claim.history == ((1.0, 0.01, 10),) and 0.3 < claim.epsilon(1e-5) < 0.45
    # where one more record does not move the divisor, the pair is no leak
    same = _mech(n=1001)
    d0, d1 = same.validate_dataset(same.worst_case_pairs()[0].d0), \
        same.validate_dataset(same.worst_case_pairs()[0].d1)
    assert same.exact_epsilon(d0, d1, 1e-5) == 0.0


def test_datasets_are_zero_records():
    m = _mech()
    for bad in ([0.0, 1.0], {"values": [0.5], "counts": [3]}, []):
        with pytest.raises(ValueError, match="zero gradients"):
            m.validate_dataset(bad)
    assert len(m.validate_dataset({"values": [0.0], "counts": [7]})) == 7


def test_the_released_coordinates_have_the_scale_of_their_dataset():
    m = _mech(n=20, batch_size=4, steps=3, parameters=5, noise_multiplier=2.0)
    rng = np.random.default_rng(0)
    for size, divisor in ((20, 4), (21, 3)):        # ⌈21/4⌉ = 6 steps: int(21/6) = 3
        views = m.sample({"values": [0.0], "counts": [size]}, 3000, rng)
        assert views.shape == (3000, 15)
        sd = views.std()
        assert abs(sd - 2.0 / divisor) < 0.03 * 2.0 / divisor, (size, sd)
        # views of one training share no noise: neighbouring views are uncorrelated
        corr = np.corrcoef(views[:-1, 0], views[1:, 0])[0, 1]
        assert abs(corr) < 0.06
