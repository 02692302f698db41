"""dpaudit.util.jsonable.number_from_json: a number as to_jsonable writes it, read back so that
writing it again gives the same JSON text (the typed figure data of dpaudit.results rely on
it to write results.json byte for byte)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpaudit.util.jsonable import number_from_json, to_jsonable


@pytest.mark.parametrize("value", [0, 3, -7, 0.0, 1e-5, 2.5, math.inf, -math.inf,
                                   np.int64(12), np.float64(0.25), np.float32(0.5), None])
def test_what_to_jsonable_writes_reads_back_to_the_same_text(value):
    written = to_jsonable(value)
    back = number_from_json(json.loads(json.dumps(written)))
    assert json.dumps(to_jsonable(back)) == json.dumps(written)


def test_an_integer_stays_an_integer_and_infinity_is_a_float():
    assert type(number_from_json(np.int64(3))) is int and number_from_json(3) == 3
    assert type(number_from_json(2.0)) is float
    assert number_from_json("inf") == math.inf and number_from_json("-inf") == -math.inf
    assert math.isnan(number_from_json("nan")) and number_from_json(None) is None


@pytest.mark.parametrize("value", [True, np.bool_(False), "lots", "1.5", [1.0], {"x": 1}])
def test_anything_else_is_refused_naming_it(value):
    with pytest.raises(TypeError, match="expected a number"):
        number_from_json(value)
