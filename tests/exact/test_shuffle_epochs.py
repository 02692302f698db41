"""The E-epoch shuffle lower bound (dpaudit/exact/shuffle_epochs.py): its CDF is the certified
formula, its cells are a partition, one epoch agrees with the quadrature of the dpsgd family,
and epochs compose."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.claims.certificates import load_formula
from dpaudit.exact.shuffle_epochs import (cell_log_masses, grid_edges, max_log_cdf,
                                          shuffle_epochs_bracket)

pytest.importorskip("dp_accounting", reason="the composed curves need dp_accounting "
                    "(the test extra installs it)")
LOG_F = load_formula("dpsgd", "shuffle_max_log_cdf")


def test_cdf_is_the_certified_formula_and_cells_partition_the_line():
    for c in (-1.0, 0.5, 3.0):
        assert max_log_cdf(np.array([c]), 2.0, 0.8, 100)[0] == pytest.approx(
            LOG_F(c=c, mu=2.0, sigma=0.8, T=100), rel=1e-12)
    edges = grid_edges(2.0, 1.0, 0.8, 100, 1000)
    for a in (2.0, 1.0):
        masses = np.exp(cell_log_masses(edges, a, 0.8, 100))
        assert masses.size == 1002 and np.all(masses >= 0)
        assert masses.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.slow  # the quadrature of 400 001 points: ~2 s
def test_one_epoch_brackets_the_quadrature_of_the_max_statistic_curve():
    from dpaudit.mechanisms.dpsgd.curves import shuffle_max_curve

    b = shuffle_epochs_bracket(2.0, 1.0, 2.0, 100, 1, 1e-3)
    quad = shuffle_max_curve(2.0, 1.0, 2.0, 100).epsilon(1e-3)
    assert b.lower <= quad + 1e-6 and quad <= b.upper and b.width < 1e-3


@pytest.mark.slow
def test_epochs_compose_and_the_bracket_is_narrow():
    one = shuffle_epochs_bracket(2.0, 1.0, 2.0, 100, 1, 1e-3)
    five = shuffle_epochs_bracket(2.0, 1.0, 2.0, 100, 5, 1e-3)
    assert five.lower > 2 * one.upper and five.width < 2e-3
    # composing E Gaussian-like pairs: ε grows about as √E at this σ
    assert 0.5 * math.sqrt(5) * one.lower < five.lower < 5 * one.upper


def test_equal_shifts_and_bad_input():
    assert tuple(shuffle_epochs_bracket(1.0, 1.0, 1.0, 10, 3, 1e-5)) == (0.0, 0.0)
    with pytest.raises(ValueError, match="epochs"):
        shuffle_epochs_bracket(2.0, 1.0, 1.0, 10, 0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        shuffle_epochs_bracket(2.0, 1.0, 1.0, 10, 2, 0.0)
