"""A method a capability would use, defined without the capability's mixin, is said once
(dpaudit/mechanisms/ignored_methods.py), and `dpaudit check`'s grey-box step names it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpaudit.check.greybox import applicable
from dpaudit.claims import PureDP
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.mechanisms.capabilities import DeterministicQuery
from dpaudit.mechanisms.ignored_methods import ignored_methods


def _make(name, bases, **body):
    base = {"sample": lambda self, d, n, rng: np.zeros(n),
            "claim": lambda self: PureDP(1.0),
            "worst_case_pairs": lambda self: [NeighbourPair("p", [0.0], [1.0])]}
    return type(name, bases, {**base, **body})


def test_one_warning_names_every_ignored_method_and_its_mixin():
    with pytest.warns(UserWarning) as seen:
        cls = _make("Mean", (Mechanism,), query=lambda self, d: 0.0,
                    sensitivity=lambda self: 1.0, dataset_space=lambda self: None)
    assert len(seen) == 1
    text = str(seen[0].message)
    assert "Mean defines query() but does not inherit DeterministicQuery" in text
    assert "sensitivity() but does not inherit GreyBoxQuery" in text
    assert "dataset_space() but does not inherit SearchableDatasets" in text
    assert "class Mean(DeterministicQuery, GreyBoxQuery, SearchableDatasets, Mechanism)" in text
    assert [m.__name__ for _, m in ignored_methods(cls)] == [
        "DeterministicQuery", "GreyBoxQuery", "SearchableDatasets"]


def test_declared_capabilities_and_parameters_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _make("Fine", (DeterministicQuery, Mechanism), query=lambda self, d: 0.0)
        _make("Param", (Mechanism,), noise="laplace")  # a plain attribute, not a method
        # a helper that happens to be named noise(total, n, rng) is not CalibratedNoise's
        _make("Helper", (Mechanism,), noise=lambda self, total, n, rng: total)


def test_log_density_and_noise_are_named_too():
    with pytest.warns(UserWarning, match=r"log_density\(\) but does not inherit LogDensity.*"
                                         r"noise\(\) but does not inherit CalibratedNoise"):
        _make("Dens", (Mechanism,), log_density=lambda self, d, y: y, noise=lambda self: None)


def test_check_says_why_a_defined_query_is_not_used():
    with pytest.warns(UserWarning):
        cls = _make("Q", (Mechanism,), query=lambda self, d: 0.0)
    assert applicable(cls()) == ("the mechanism exposes no deterministic query(dataset) (it "
                                 "defines query() but does not inherit DeterministicQuery)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = _make("Plain", (Mechanism,))
    assert applicable(plain()) == "the mechanism exposes no deterministic query(dataset)"
