"""dpaudit.mechanisms.stated_claim: a mechanism judged against a claim stated for it keeps
everything else of its own — sampler, capabilities, pairs, exact curves, name — and crosses
process boundaries as itself."""

from __future__ import annotations

import pickle

import cloudpickle
import numpy as np
import pytest

from dpaudit.claims import PureDP
from dpaudit.mechanisms.capabilities import LogDensity
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.mechanisms.stated_claim import claim_is_stated, with_stated_claim


def test_the_stated_claim_replaces_only_the_claim():
    laplace = create_mechanism("laplace", epsilon=1.0)
    stated = with_stated_claim(laplace, PureDP(0.5))
    assert stated.claim().epsilon(0.0) == 0.5 and laplace.claim().epsilon(0.0) == 1.0
    assert isinstance(stated, type(laplace)) and isinstance(stated, LogDensity)
    assert type(stated).__name__ == type(laplace).__name__ and stated.name == laplace.name
    assert claim_is_stated(stated) and not claim_is_stated(laplace)
    (pair,) = laplace.worst_case_pairs()[:1]
    assert stated.exact_epsilon(pair.d0, pair.d1, 0.0) == laplace.exact_epsilon(pair.d0,
                                                                                pair.d1, 0.0)
    rng = np.random.default_rng(0)
    assert stated.sample(pair.d0, 3, np.random.default_rng(0)).tolist() == \
        laplace.sample(pair.d0, 3, rng).tolist()
    again = with_stated_claim(stated, PureDP(2.0))
    assert again.claim().epsilon(0.0) == 2.0 and type(again) is type(stated)
    with pytest.raises(TypeError, match="must be a Claim"):
        with_stated_claim(laplace, {"notion": "pure-dp", "epsilon": 1.0})


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps])
def test_it_pickles_as_itself(dumps):
    stated = with_stated_claim(create_mechanism("laplace", epsilon=1.0), PureDP(0.5))
    back = pickle.loads(dumps(stated))
    assert claim_is_stated(back) and back.claim().epsilon(0.0) == 0.5
