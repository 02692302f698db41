"""A claim read off a user's accountant (dpaudit.claims.get_epsilon)."""

from __future__ import annotations

import math

import pytest

from dpaudit.claims.get_epsilon import GetEpsilonClaim, GetEpsilonError


def test_reads_and_caches_the_accountant():
    calls = []

    def get_epsilon(delta):
        calls.append(delta)
        return 2.0 - math.log10(delta) / 10

    claim = GetEpsilonClaim(get_epsilon, source="mine")
    assert claim.epsilon(1e-5) == pytest.approx(2.5)
    assert claim.epsilon(1e-5) == pytest.approx(2.5)
    assert calls == [1e-5] and claim.epsilon(0.0) == math.inf
    assert "1e-05" in claim.to_dict()["epsilons"]


@pytest.mark.parametrize("answer, message", [
    (ValueError("history is empty"), "raised ValueError: history is empty"),
    ("four", "not a number"), (float("nan"), "not an ε ≥ 0"), (-1.0, "not an ε ≥ 0")])
def test_a_failing_accountant_is_one_line(answer, message):
    def get_epsilon(delta):
        if isinstance(answer, Exception):
            raise answer
        return answer

    with pytest.raises(GetEpsilonError, match=message) as info:
        GetEpsilonClaim(get_epsilon, source="opacus prv").epsilon(1e-5)
    assert "\n" not in str(info.value) and "opacus prv" in str(info.value)


def test_not_a_callable():
    with pytest.raises(GetEpsilonError, match="callable"):
        GetEpsilonClaim(3.0)
