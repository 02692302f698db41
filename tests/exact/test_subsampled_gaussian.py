"""The bracketed subsampled-Gaussian curves (dpaudit/exact/subsampled_gaussian.py): the bracket
holds the pair's ε(δ) computed independently, and each relation has the pair it states."""

from __future__ import annotations

import math

import pytest

from dpaudit.exact import GaussianMixtureProfile, gaussian_epsilon
from dpaudit.exact.subsampled_gaussian import subsampled_gaussian_bracket

pytest.importorskip("dp_accounting", reason="the Poisson brackets need dp_accounting "
                    "(the test extra installs it)")


def test_full_batch_is_the_gaussian_shift_closed_form_with_twice_the_shift_for_replace_one():
    add = subsampled_gaussian_bracket(2.0, 1.0, 4, 1e-5, "add-remove", "full-batch")
    rep = subsampled_gaussian_bracket(2.0, 1.0, 4, 1e-5, "replace-one", "full-batch")
    assert add.lower == add.upper == pytest.approx(gaussian_epsilon(1e-5, 1.0), abs=1e-12)
    assert rep.lower == pytest.approx(gaussian_epsilon(1e-5, 2.0), abs=1e-12)


@pytest.mark.slow  # dp_accounting builds two PLDs: ~3 s each on 2 cores
def test_one_poisson_step_brackets_the_mixture_profile_both_relations():
    """T = 1: the pair is a one-dimensional Gaussian mixture, whose ε(δ) the mixtures module
    computes by quadrature — it must lie inside dp_accounting's bracket, for both relations."""
    s, q, delta = 0.7, 0.2, 1e-4
    mix = GaussianMixtureProfile([1 - q, q], [0.0, 1.0], [s, s], [1.0], [0.0], [s])
    b = subsampled_gaussian_bracket(s, q, 1, delta)
    assert b.lower <= mix.symmetric().epsilon(delta) <= b.upper and b.width < 2e-3
    swap = GaussianMixtureProfile([1 - q, q], [0.0, 1.0], [s, s], [1 - q, q], [0.0, -1.0],
                                  [s, s])
    r = subsampled_gaussian_bracket(s, q, 1, delta, "replace-one")
    assert r.lower <= swap.symmetric().epsilon(delta) <= r.upper
    assert r.lower > b.upper   # the swap moves the record's gradient twice as far


@pytest.mark.slow  # dp_accounting builds two PLDs: ~3 s each on 2 cores
def test_composed_poisson_bracket_holds_the_accountants_value_and_grows_with_t():
    """dp_accounting's PLD accountant (pessimistic, 1e-4) gives 0.6427 at σ = 0.8, q = 0.01,
    T = 100, δ = 1e-3 (audits/dpsgd.toml): the bracket's upper end is that number, its lower
    end below; half the steps lie wholly below."""
    b = subsampled_gaussian_bracket(0.8, 0.01, 100, 1e-3)
    assert b.lower < 0.6427 < b.upper + 1e-4 and b.width < 6e-3
    assert subsampled_gaussian_bracket(0.8, 0.01, 50, 1e-3).upper < b.lower


@pytest.mark.slow  # dp_accounting builds two PLDs: ~3 s each on 2 cores
def test_without_replacement_has_a_lower_end_only_and_it_exceeds_the_swap_pair():
    wor = subsampled_gaussian_bracket(1.0, 0.1, 1, 1e-5, "replace-one", "without-replacement")
    swap = subsampled_gaussian_bracket(1.0, 0.1, 1, 1e-5, "replace-one")
    assert wor.upper == math.inf and wor.lower >= swap.lower
    # the shifted pair (1−q)N(0) + qN(2) vs N(0) by quadrature
    shifted = GaussianMixtureProfile([0.9, 0.1], [0.0, 2.0], [1.0, 1.0], [1.0], [0.0], [1.0])
    assert wor.lower == pytest.approx(max(shifted.symmetric().epsilon(1e-5), swap.lower),
                                      abs=2e-3)


@pytest.mark.parametrize("bad, message", [
    (dict(sigma=0.0), "sigma"), (dict(q=1.5), "q must"), (dict(steps=0), "steps"),
    (dict(delta=0.0), "delta"), (dict(relation="swap"), "relation"),
    (dict(sampler="x"), "sampler")])
def test_bad_parameters_are_one_line(bad, message):
    args = dict(sigma=1.0, q=0.1, steps=2, delta=1e-5, relation="add-remove", sampler="poisson")
    args.update(bad)
    with pytest.raises(ValueError, match=message):
        subsampled_gaussian_bracket(**args)
    with pytest.raises(ValueError, match="replace-one only"):
        subsampled_gaussian_bracket(1.0, 0.1, 2, 1e-5, "add-remove", "without-replacement")
