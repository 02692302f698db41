"""Records of any type in the built-in relations (issue 36: a dataset of strings raised
``ValueError: could not convert string to float: 'a'`` inside ``relations._rows``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.neighbours import add_remove_one, any_single_record, replace_one
from dpaudit.neighbours.records import NAN, RecordError, dataset_records, record_key


def test_numbers_compare_by_value_whatever_their_type():
    assert record_key(1) == record_key(1.0) == record_key(np.int64(1)) == record_key(np.float32(1))
    assert record_key(True) is True and record_key(np.bool_(False)) is False
    assert record_key(math.nan) == NAN == record_key(np.float64("nan"))
    assert record_key(2) != record_key(2.5)


def test_sequences_and_dicts_are_records():
    assert record_key([1, "a"]) == record_key((1.0, "a"))
    assert record_key(np.array([1.0, 2.0])) == record_key([1, 2])
    assert record_key({"country": "fr", "age": 3}) == record_key({"age": 3.0, "country": "fr"})
    assert record_key({"country": "fr"}) != record_key({"country": "de"})
    with pytest.raises(RecordError, match="cannot be compared"):
        record_key({1, 2})  # a set: unhashable, and neither a sequence nor a mapping


def test_datasets_split_into_records():
    assert dataset_records(["a", "b"]) == ["a", "b"]
    assert dataset_records(3.0) == [3.0]
    assert [list(r) for r in dataset_records(np.zeros((2, 3)))] == [[0.0] * 3] * 2
    for bad in ("abc", {"a": 1}, None):
        with pytest.raises(RecordError, match="a dataset is a sequence of records"):
            dataset_records(bad)


@pytest.mark.parametrize("d0, d1, ok", [
    (["a", "b"], ["a", "b", "c"], True),                     # strings: add one
    (["a", "b"], ["b", "a", "c"], True),                     # as multisets
    (["a", "b"], ["a", "c", "c"], False),                    # two records differ
    ([("fr", 1)], [("fr", 1), ("de", 2)], True),             # tuples
    ([{"k": "a", "v": 1}], [{"v": 1.0, "k": "a"}, {"k": "b", "v": 0}], True),   # dicts
    ([{"k": "a"}], [{"k": "b"}, {"k": "c"}], False),
    ([1.0, math.nan], [math.nan, 1, 2], True),               # NaN is one record
    (np.array([[0.0, 1.0]]), [[0, 1], [2, 3]], True),        # rows of a matrix
])
def test_add_remove_one_takes_any_records(d0, d1, ok):
    assert add_remove_one(d0, d1)[0] is ok
    assert add_remove_one(d1, d0)[0] is ok


def test_replace_one_and_single_records_take_categories():
    assert replace_one(["a", "b"], ["a", "c"]) == (True, "")
    assert not replace_one(["a", "b"], ["c", "d"])[0]
    assert any_single_record(["a"], ["b"]) == (True, "")
    assert not any_single_record(["a", "b"], ["c"])[0]


def test_a_dataset_that_is_not_a_sequence_fails_in_one_line():
    with pytest.raises(ValueError, match="a dataset is a sequence of records.*got str"):
        add_remove_one("ab", ["a"])
