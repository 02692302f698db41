"""The mechanism contract, checked on every registered family's every mechanism.

For each mechanism built with its default parameters: it is a :class:`Mechanism` of its
family; ``claim()`` is a :class:`~dpaudit.claims.Claim`; ``worst_case_pairs()`` is non-empty
and each pair is neighbouring; ``sample(d, 64, rng)`` gives 64 rows, reproducibly; every
capability it declares (:mod:`dpaudit.mechanisms.capabilities`) works; ``describe()`` is
JSON-serialisable; its parameters are declared once.  The example family of the docs page
"Adding a mechanism family" (docs/mechanisms/adding.md) is extracted, installed as a package under ``tmp_path`` and put through the
same checks, so it cannot rot.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import sys

import numpy as np
import pytest

from dpaudit.claims import AllOf, ApproxDP, Claim, PureDP, ZCDP, claimed_renyi, has_renyi_claim, \
    iter_claims
from dpaudit.mechanisms.base import Mechanism, NeighbourPair, Noise
from dpaudit.mechanisms.capabilities import (CalibratedNoise, ClosedFormSeries,
                                             DeterministicQuery, ExactRenyi, GreyBoxQuery,
                                             LogDensity, SearchableDatasets, capabilities_of)
from dpaudit.mechanisms.families import Family
from dpaudit.mechanisms.registry import families
from dpaudit.neighbours import NeighbourRelation
from tests.support import REPO

ROWS = 64


#: adapters whose library import alone takes seconds (torch): slow, out of the inner loop
SLOW_LIBRARIES = {"opacus"}
#: mechanisms whose contract checks take seconds (SGLD's chains): slow too
SLOW_MECHANISMS = {"sgld", "propose-test-sample", "propose-test-sample-sgld"}


def _cases():
    out = []
    for family in families():
        for cls in importlib.import_module(family.package).MECHANISMS:
            marks = [pytest.mark.slow] if (getattr(cls, "library", "") in SLOW_LIBRARIES
                                           or cls.name in SLOW_MECHANISMS) else []
            out.append(pytest.param(family, cls, id=cls.name, marks=marks))
    return out


def check_contract(family: Family, cls) -> None:
    """Every contract check on ``cls`` (a class of ``family``) built with defaults."""
    library = getattr(cls, "library", "")
    if library:  # an adapter of an external library (dpaudit.mechanisms.external)
        from dpaudit.mechanisms.external.common import available
        if not available(library):
            pytest.skip(f"{library} is not installed (extra of {cls.name})")
    mech = cls()
    assert isinstance(mech, Mechanism)
    assert mech.family == family.name == cls.family

    claim = mech.claim()
    assert isinstance(claim, Claim)
    assert all(isinstance(c, Claim) for c in iter_claims(claim))

    rel = mech.relation()
    assert rel is None or isinstance(rel, NeighbourRelation)
    assert mech.neighbouring == ("" if rel is None else rel.statement)

    pairs = mech.worst_case_pairs()
    assert pairs, "worst_case_pairs() is empty"
    for pair in pairs:
        assert isinstance(pair, NeighbourPair)
        ok, why = mech.check_pair(pair.d0, pair.d1)
        assert ok, f"pair {pair.name!r} is not neighbouring: {why}"
        for d in (pair.d0, pair.d1):
            a = np.asarray(mech.sample(d, ROWS, np.random.default_rng(7)))
            b = np.asarray(mech.sample(d, ROWS, np.random.default_rng(7)))
            assert a.shape[:1] == (ROWS,), a.shape
            if getattr(mech, "seedable", True):  # libraries with their own generator: not
                np.testing.assert_array_equal(a, b)  # reproducible by design, see external
            _check_capabilities(mech, d, a)

    described = mech.describe()
    json.dumps(described)
    assert described["parameters"] == dict(mech.params)
    with pytest.raises(TypeError):
        mech.params["x"] = 1  # read-only view


def _check_capabilities(mech, dataset, outputs) -> None:
    if isinstance(mech, LogDensity):
        ld = np.asarray(mech.log_density(dataset, outputs), dtype=float)
        assert ld.shape == (ROWS,), ld.shape
        assert not np.isnan(ld).any() and not (ld == np.inf).any()
    if isinstance(mech, DeterministicQuery):
        assert np.all(np.isfinite(np.asarray(mech.query(dataset), dtype=float)))
    if isinstance(mech, GreyBoxQuery):
        delta = mech.sensitivity()
        assert math.isfinite(delta) and delta > 0
        assert mech.sensitivity_norm in ("l1", "l2", "linf")
    if isinstance(mech, SearchableDatasets):
        d0, d1 = mech.dataset_space().random_pair(np.random.default_rng(0))
        assert mech.check_pair(d0, d1)[0]
    if isinstance(mech, CalibratedNoise):
        noise = mech.noise()
        assert isinstance(noise, Noise) and noise.parameters
    if isinstance(mech, ExactRenyi):
        pair = mech.worst_case_pairs()[0]
        value = mech.exact_renyi(pair.d0, pair.d1, 2.0)
        assert value is None or value >= -1e-12
    if isinstance(mech, ClosedFormSeries):
        assert callable(mech.series)


@pytest.mark.parametrize("family,cls", _cases())
def test_registered_mechanism_meets_the_contract(family, cls):
    check_contract(family, cls)


def test_every_family_is_listed():
    names = [f.name for f in families()]
    assert names[:9] == ["classic", "noisy_max", "sparse_vector", "known_bad", "sgld",
                         "policy_evaluation", "gaussian_mixing", "synthetic_control", "external"]


def test_capabilities_are_declared_not_probed():
    from dpaudit.mechanisms.classic import LaplaceMechanism, RandomizedResponse
    from dpaudit.mechanisms.sgld import SGLD

    assert capabilities_of(LaplaceMechanism) == [
        "LogDensity", "DeterministicQuery", "GreyBoxQuery", "SearchableDatasets",
        "CalibratedNoise"]
    assert "GreyBoxQuery" not in capabilities_of(RandomizedResponse)  # local DP: no Δ
    assert {"ExactRenyi", "ClosedFormSeries"} <= set(capabilities_of(SGLD))
    assert not isinstance(SGLD(), CalibratedNoise)


def test_mechanism_is_abstract_and_parameters_are_checked():
    from dpaudit.mechanisms.classic import GaussianMechanism, LaplaceMechanism

    with pytest.raises(TypeError, match="abstract"):
        Mechanism()
    with pytest.raises(TypeError, match="accepted parameters: epsilon, sensitivity"):
        LaplaceMechanism(bogus=1)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0, got -1"):
        LaplaceMechanism(epsilon=-1)
    with pytest.raises(AttributeError, match="read-only"):
        LaplaceMechanism().epsilon = 2.0
    mech = GaussianMechanism(0.5, calibration="classical")
    assert dict(mech.params) == {"epsilon": 0.5, "sensitivity": 1.0, "delta": 1e-5,
                                 "calibration": "classical"}


def test_claim_structure_helpers():
    a, z = ApproxDP(1.0, 1e-5), ZCDP(0.5)
    both = AllOf(claims=(a, AllOf(claims=(z, PureDP(3.0)))))
    assert list(iter_claims(both)) == [a, z, PureDP(3.0)]
    assert has_renyi_claim(both) and not has_renyi_claim(a)
    assert claimed_renyi(both, 2.0) == pytest.approx(1.0) and claimed_renyi(a, 2.0) == math.inf


# -- the docs example --------------------------------------------------------------------------

#: the page whose first ```python block is the example family
ADDING = REPO / "docs" / "mechanisms" / "adding.md"


def readme_example() -> str:
    """The first ```python block of docs/mechanisms/adding.md ("Adding a mechanism family")."""
    text = ADDING.read_text(encoding="utf-8")
    assert text.startswith("# Adding a mechanism family"), "docs/mechanisms/adding.md moved"
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "no python code block in docs/mechanisms/adding.md"
    return match.group(1)


def test_readme_example_family_meets_the_contract(tmp_path, monkeypatch):
    package = tmp_path / "coin_family"
    package.mkdir()
    (package / "__init__.py").write_text(readme_example(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("coin_family", None)
    module = importlib.import_module("coin_family")
    family = module.FAMILY
    assert isinstance(family, Family) and family.package == "coin_family"
    for cls in module.MECHANISMS:
        check_contract(family, cls)
    # registered at run time, it is found by name like a built-in mechanism
    from dpaudit.mechanisms import registry

    registry.mechanism_names()  # load the built-in families first
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register(module.Coin)
    assert registry.create_mechanism("coin", epsilon=0.5).params == {"epsilon": 0.5}


def test_registry_refuses_a_family_member_of_another_family(tmp_path, monkeypatch):
    from dpaudit.mechanisms import registry

    package = tmp_path / "mislabelled_family"
    package.mkdir()
    (package / "__init__.py").write_text(
        readme_example().replace('family = "coin"', 'family = "other"'), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.mechanism_names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_FAMILIES", dict(registry._FAMILIES))
    with pytest.raises(registry.RegistryError, match="declares family = 'other'"):
        registry._add_family(Family("coin", "mislabelled_family"), "test")
