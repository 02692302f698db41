"""Fuzzing the suite loader (hypothesis): whatever a suite file holds — arbitrary bytes, or any
TOML document built from the real keys and values of every type — loading it returns a Suite
or raises SuiteError, never anything else, so one bad file cannot stop a run."""

from __future__ import annotations

import datetime as dt
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpaudit.suite.spec import load_suite, parse_suite
from dpaudit.suite.fields import SuiteError
from dpaudit.suite.toml_file import read_toml

KEYS = ["suite", "audit", "series", "name", "mechanism", "params", "delta", "alphas", "pairs",
        "samples", "expect", "note", "sweep", "exact_points", "white_box", "distinguisher",
        "confidence", "seed", "family_size", "description", "d0", "d1", "epsilon", "steps",
        "start", "stop", "num", "spacing", "quantity", "options", "sampler", "claim", "notion",
        "x", ""]
MECHANISMS = ["laplace", "gaussian", "geometric", "randomized-response", "exponential",
              "laplace-scale-epsilon", "sparse-vector", "noisy-max-laplace", "sgld",
              "no-such-mechanism", "x.py:Cls", "dpaudit:Mechanism", ""]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-2**70, 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(MECHANISMS + ["consistent", "violation", "worst-case", "log", "linear",
                                  "auto", "pure-dp", "approx-dp"]),
    st.dates(), st.datetimes(), st.times())


def _documents():
    values = st.recursive(
        SCALARS,
        lambda inner: st.one_of(st.lists(inner, max_size=4),
                                st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
        max_leaves=20)
    audit = st.dictionaries(st.sampled_from(KEYS), values, max_size=6)
    return st.fixed_dictionaries(
        {}, optional={"suite": st.dictionaries(st.sampled_from(KEYS), values, max_size=5),
                      "audit": st.one_of(st.lists(audit, max_size=3), values),
                      "series": st.one_of(st.lists(audit, max_size=2), values),
                      "x": values})


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
def test_any_document_is_a_suite_or_a_suite_error(document):
    try:
        suite = parse_suite(document, "fuzz.toml")
    except SuiteError as exc:
        assert str(exc).startswith("fuzz.toml")
    else:
        assert suite.audits


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_are_a_suite_or_a_suite_error(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("fuzz") / "suite.toml"
    path.write_bytes(raw)
    try:
        load_suite(path)
    except SuiteError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc).strip()


@pytest.mark.parametrize("text", [
    "a = " + "[" * 5000 + "]" * 5000,               # nested arrays: the parser recurses
    "a = " + "{b = " * 3000 + "1" + "}" * 3000,    # nested inline tables
])
def test_deep_nesting_is_a_suite_error_not_a_recursion_error(tmp_path, text):
    path = tmp_path / "deep.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SuiteError, match="deep.toml: .*nested too deeply"):
        load_suite(path)


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + b'[[audit]]\nname = "a"\nmechanism = "laplace"\n')
    assert load_suite(path).audits[0].name == "a"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_named_toml_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    with pytest.raises(SuiteError, match="pipe.toml: cannot read the suite file: it is a FIFO"):
        read_toml(fifo)
    with pytest.raises(SuiteError, match="it is a directory"):
        read_toml(tmp_path)


@pytest.mark.slow
def test_values_of_every_toml_type_in_every_key_are_suite_errors():
    """The deterministic corner of the fuzz: each key of an audit given each kind of value."""
    kinds = [None, True, 0, -1, 2**63, math.nan, math.inf, "", "x", [], [1, "a"], {},
             {"a": 1}, dt.date(2026, 1, 1), dt.time(1, 2)]
    for key in KEYS:
        for value in kinds:
            if value is None:
                continue
            audit = {"name": "a", "mechanism": "laplace", key: value}
            try:
                parse_suite({"audit": [audit]}, "m.toml")
            except SuiteError:
                pass
