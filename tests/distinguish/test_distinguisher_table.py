"""The distinguisher table (dpaudit.distinguish.distinguisher) is open: a registered class is
found by name by the estimators and suites; the white-box test is asked for by its switch."""

from __future__ import annotations

import pytest

from dpaudit.distinguish.distinguisher import (DISTINGUISHER_CLASSES, DISTINGUISHERS,
                                               Distinguisher, FittedStatistics,
                                               distinguisher_names, get_distinguisher,
                                               register_distinguisher)
from dpaudit.distinguish.lower_bound import estimate_epsilon_lower_bound
from dpaudit.distinguish.statistics import Coordinate
from dpaudit.suite.spec import SuiteError, parse_suite


class Identity(Distinguisher):
    """The output itself (a plug-in's distinguisher, for the test)."""

    name = "test-identity"

    def fit(self, x0, x1, context):
        return FittedStatistics((Coordinate(),), "identity")


@pytest.fixture
def registered():
    register_distinguisher(Identity)
    yield
    DISTINGUISHER_CLASSES.pop(Identity.name, None)


def test_a_registered_distinguisher_certifies_and_a_suite_may_name_it(registered):
    assert DISTINGUISHERS[0] == "auto" and "test-identity" not in DISTINGUISHERS
    assert distinguisher_names()[-1] == "test-identity"
    assert isinstance(get_distinguisher("test-identity"), Identity)
    sampler = lambda d, n, rng: rng.laplace(sum(d), 1.0, n)  # noqa: E731
    cert = estimate_epsilon_lower_bound(sampler, [0.0], [1.0], samples=20_000, seed=1,
                                        distinguisher="test-identity")
    assert 0.6 < cert.epsilon <= 1.0 and cert.distinguisher == "test-identity"
    suite = parse_suite({"audit": [{"name": "a", "mechanism": "laplace",
                                    "distinguisher": "test-identity"}]})
    assert suite.audits[0].distinguisher == "test-identity"
    with pytest.raises(ValueError, match="already"):
        register_distinguisher(type("Other", (Identity,), {}))


def test_a_distinguisher_that_needs_a_density_is_not_named_but_switched():
    assert "white-box" in distinguisher_names()
    assert "white-box" not in distinguisher_names(selectable=True)
    with pytest.raises(SuiteError, match="controlled by white_box"):
        parse_suite({"audit": [{"name": "a", "mechanism": "laplace",
                                "distinguisher": "white-box"}]})
    with pytest.raises(ValueError, match="distinguisher must be one of"):
        get_distinguisher("whitebox")
