"""dpaudit.util.shared_json: bulky values and repeated long text written once, read back whole."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.util.shared_json import LONG_STRING, REF, SharedValues, resolve, share

json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=60),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5),
                                                                      children, max_size=5),
    max_leaves=30)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(json_value, json_value)
def test_a_reference_resolves_to_its_value_and_equal_values_share_one(a, b):
    shared = SharedValues()
    ra, rb, ra2 = shared.ref(a), shared.ref(b), shared.ref(json.loads(json.dumps(a)))
    assert ra == ra2 and shared.resolve(ra) == a and shared.resolve(rb) == b
    read = SharedValues(json.loads(json.dumps(shared.to_json())))
    assert read.resolve(ra) == a


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(json_value)
def test_repeated_long_strings_are_shared_and_expand_back(value):
    text = "x" * LONG_STRING
    document = {"a": [value, text], "b": {"c": text, "d": "short"}}
    shared = SharedValues()
    written = shared.share_repeated_strings(document)
    assert written["b"]["c"] == written["a"][1] == {REF: shared.table.index(text)}
    assert written["b"]["d"] == "short"
    assert SharedValues(shared.to_json()).expand(json.loads(json.dumps(written))) == document


def test_inline_without_a_table_and_damaged_references():
    assert share(None, [1, 2]) == [1, 2] and resolve(None, {REF: 0}) == {REF: 0}
    shared = SharedValues([{"x": {REF: 1}}, [1, 2]])
    assert shared.expand({REF: 0}) == {"x": [1, 2]}
    for bad in ({REF: 2}, {REF: -1}, {REF: "0"}, {REF: True}):
        with pytest.raises(ValueError, match="outside the table"):
            shared.resolve(bad)
