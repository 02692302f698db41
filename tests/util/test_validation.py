"""The shared parameter checks: one rule set, messages that name the parameter."""

import math

import numpy as np
import pytest

from dpaudit.util import validation


@pytest.mark.parametrize("value", [0.0, -1.0, math.inf, math.nan, True, "1.0", None, [1.0]])
def test_positive_refuses_and_names_the_parameter(value):
    with pytest.raises(ValueError, match=r"^epsilon must be a finite number > 0, got "):
        validation.positive("epsilon", value)


def test_nan_is_called_nan():
    with pytest.raises(ValueError, match="got NaN$"):
        validation.number("reward", float("nan"))


@pytest.mark.parametrize("value, expected", [(0.5, 0.5), (np.float64(2.0), 2.0), (3, 3.0)])
def test_positive_accepts_real_numbers(value, expected):
    assert validation.positive("sigma", value) == expected


def test_integers_and_deltas():
    assert validation.positive_int("k", 3.0) == 3 and validation.positive_int("k", np.int64(4)) == 4
    with pytest.raises(ValueError, match=r"k must be an integer ≥ 1, got 2.5"):
        validation.positive_int("k", 2.5)
    with pytest.raises(ValueError, match=r"n must be an integer ≥ 2, got 1"):
        validation.positive_int("n", 1, minimum=2)
    assert validation.delta("delta", 0.0) == 0.0
    with pytest.raises(ValueError, match=r"delta must be a finite number in \(0, 1\), got 0.0"):
        validation.delta("delta", 0.0, allow_zero=False)
    with pytest.raises(ValueError, match=r"delta must be a finite number in \[0, 1\), got 1.0"):
        validation.delta("delta", 1.0)


def test_draw_request_checks_count_and_generator():
    assert validation.draw_request(np.int64(5), np.random.default_rng(0)) == 5
    for n in (-1, 2.0, True, "3"):
        with pytest.raises(ValueError, match=r"^n must be a non-negative integer, got "):
            validation.draw_request(n, np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"rng must be a numpy.random.Generator .* got RandomState"):
        validation.draw_request(3, np.random.RandomState(0))


def test_finite_entries_names_the_first_bad_entry():
    good = np.arange(4.0)
    assert validation.finite_entries("dataset", good) is good
    with pytest.raises(ValueError, match=r"^dataset contains NaN at index \[2\]$"):
        validation.finite_entries("dataset", np.array([0.0, 1.0, np.nan]))
    with pytest.raises(ValueError, match=r"contains an infinite value at index \[1, 0\] "
                                         r"\(2 non-finite entries\)"):
        validation.finite_entries("X", np.array([[0.0, 1.0], [np.inf, np.nan]]))
