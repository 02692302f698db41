"""The one number formatter (dpaudit.util.numbers.format_number): each variant the outputs use."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.util.numbers import PLAIN_INFINITY, REPORT_INFINITY, format_number


@pytest.mark.parametrize("value, text", [
    (None, "—"),
    (0.123456789, "0.1235"),
    (12345.678, "1.235e+04"),
    (np.float64(2.0) / 3, "0.6667"),
    (math.inf, "∞"), (-math.inf, "−∞"),
    ("inf", "∞"), ("-inf", "−∞"),  # the JSON spelling of ∞ (results.json)
    (math.nan, "nan"),
    (7, "7"), (1234567, "1234567"), (np.int64(1234567), "1234567"),  # integers: every digit
    (True, "True"),
    ("laplace", "laplace"),  # any other string as it is
    ([1, 2], "[1, 2]"),
])
def test_report_variant_default(value, text):
    assert format_number(value) == text


def test_significant_digits():
    assert format_number(0.123456789, 3) == "0.123"
    assert format_number(0.999218750, 6) == "0.999219"
    assert format_number(1e-5, 6) == "1e-05"
    assert format_number(0.5, 3) == "0.5"


def test_plain_text_variant_reads_none_and_infinity_in_ascii():
    plain = dict(none="-", infinity=PLAIN_INFINITY)
    assert format_number(None, **plain) == "-"
    assert format_number(math.inf, **plain) == "inf"
    assert format_number(-math.inf, **plain) == "-inf"
    assert format_number("inf", **plain) == "inf"
    assert format_number(0.98519, **plain) == "0.9852"


def test_full_precision_variant_reads_back_as_the_same_float():
    for x in (0.1, 1 / 3, 1e-05, 0.999219, np.float64(0.1) * 3):
        text = format_number(x, None, infinity=PLAIN_INFINITY)
        assert float(text) == x and text == repr(float(x))
    assert format_number(math.inf, None, infinity=PLAIN_INFINITY) == "inf"
    assert float(format_number(-math.inf, None, infinity=PLAIN_INFINITY)) == -math.inf
    assert format_number(3, None) == "3"


def test_none_infinity_and_nan_texts_are_parameters():
    assert format_number(None, none="n/a") == "n/a"
    assert format_number(math.nan, nan="NaN") == "NaN"
    assert format_number(math.inf, infinity=("+inf", "-inf")) == "+inf"
    assert REPORT_INFINITY == ("∞", "−∞")


def test_numbers_is_the_bottom_layer():
    import ast
    from pathlib import Path

    import dpaudit.util.numbers

    tree = ast.parse(Path(dpaudit.util.numbers.__file__).read_text(encoding="utf-8"))
    imported = [n.module if isinstance(n, ast.ImportFrom) else a.name
                for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in (n.names if isinstance(n, ast.Import) else [None])]
    assert not [m for m in imported if m and m.startswith("dpaudit")]
