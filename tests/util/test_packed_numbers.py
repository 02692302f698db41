"""dpaudit.util.packed_numbers: long arrays of six-digit numbers and symmetric matrices packed
for JSON, and read back exactly."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.util.packed_numbers import FLOAT32, MIN_PACKED, SYMMETRIC, pack, unpack

six_digit = st.floats(min_value=-1e30, max_value=1e30, allow_nan=False,
                      allow_infinity=False).map(lambda x: float(f"{x:.6g}"))
#: six-digit numbers well inside float32's normal range, as fitted statistics hold them
statistic_value = st.floats(min_value=1e-6, max_value=1e6).flatmap(
    lambda m: st.sampled_from([m, -m])).map(lambda x: float(f"{x:.6g}"))
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | six_digit
    | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=80) | st.dictionaries(st.text(max_size=3),
                                                                       children, max_size=4),
    max_leaves=300)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(json_value)
def test_unpack_inverts_pack_on_any_json_value(value):
    packed = json.loads(json.dumps(pack(value)))
    assert unpack(packed) == value


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(st.lists(statistic_value, min_size=MIN_PACKED, max_size=300))
def test_six_digit_floats_are_packed_shorter_and_come_back_bit_for_bit(values):
    packed = pack(values)
    assert set(packed) == {FLOAT32}
    assert len(json.dumps(packed)) < len(json.dumps(values))
    back = unpack(json.loads(json.dumps(packed)))
    assert [math.copysign(1, x) for x in back] == [math.copysign(1, x) for x in values]
    assert back == values


def test_what_would_lose_a_digit_is_left_as_it_is():
    exact = [0.1 + i * 1e-9 for i in range(MIN_PACKED)]  # more than six digits
    assert pack(exact) == exact
    mixed = [1.5] * (MIN_PACKED - 1) + [True]  # a bool is not a number here
    assert pack(mixed) == mixed
    ints = list(range(MIN_PACKED))  # integers stay integers
    assert pack(ints) == ints
    assert pack([1.5] * (MIN_PACKED - 1)) == [1.5] * (MIN_PACKED - 1)  # short: readable
    assert pack([math.inf] * MIN_PACKED) == [math.inf] * MIN_PACKED
    assert pack([0.0] * MIN_PACKED) == [0.0] * MIN_PACKED  # "0.0" is shorter than base64
    assert pack([5.67819e-183] * MIN_PACKED) == [5.67819e-183] * MIN_PACKED  # not a float32


def test_a_symmetric_matrix_keeps_its_upper_triangle():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(30, 30))
    matrix = [[float(f"{x:.6g}") for x in row] for row in (a + a.T)]
    packed = pack(matrix)
    assert packed[SYMMETRIC] == 30 and set(packed["upper"]) == {FLOAT32}
    assert unpack(json.loads(json.dumps(packed))) == matrix
    asymmetric = [[1.0, 2.0], [3.0, 4.0]]
    assert pack(asymmetric) == asymmetric


def test_damaged_packs_are_value_errors():
    with pytest.raises(ValueError, match="base64"):
        unpack({FLOAT32: "***"})
    with pytest.raises(ValueError, match="multiple of 4"):
        unpack({FLOAT32: "AAA="})
    with pytest.raises(ValueError, match="upper-triangle"):
        unpack({SYMMETRIC: 3, "upper": [1.0, 2.0]})
