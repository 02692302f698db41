"""The claim contract (:mod:`dpaudit.claims.base`), its capabilities
(:mod:`dpaudit.claims.capabilities`) and the structure helpers (:mod:`dpaudit.claims.structure`):
a claim is an abstract base class, and a Rényi curve is declared by type and asked for with
``isinstance``, never by probing for a method name."""

from __future__ import annotations

import abc
import importlib
import math
import pickle
import pkgutil
from dataclasses import dataclass

import pytest
import sympy as sp

import dpaudit
from dpaudit.claims import (ALPHA, GDP, RDP, TCDP, ZCDP, AllOf, ApproxDP, Claim, PrivacyProfile,
                            PureDP, RenyiCurve, claimed_renyi, has_renyi_claim)
from dpaudit.mechanisms.dpsgd.claim import PoissonRDP
from dpaudit.mechanisms.sgld.claim import Lemma43RDP


def _all_claim_classes() -> set[type]:
    """Every subclass of :class:`Claim` defined anywhere in dpaudit (every module imported)."""
    for info in pkgutil.walk_packages(dpaudit.__path__, "dpaudit."):
        importlib.import_module(info.name)
    found, todo = set(), [Claim]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("dpaudit.") and sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


CLAIM_CLASSES = _all_claim_classes()
RENYI = {RDP, ZCDP, TCDP, Lemma43RDP, PoissonRDP}


def test_claim_cannot_be_instantiated_and_a_subclass_must_implement_the_contract():
    with pytest.raises(TypeError, match="abstract"):
        Claim()

    @dataclass(frozen=True)
    class NoParameters(Claim):
        def epsilon(self, delta):
            return 1.0

    with pytest.raises(TypeError, match="parameters"):
        NoParameters()


def test_every_claim_class_is_a_concrete_abc_and_declares_its_renyi_curve_by_type():
    assert {PureDP, ApproxDP, ZCDP, RDP, GDP, TCDP, AllOf, PrivacyProfile,
            Lemma43RDP} <= CLAIM_CLASSES
    for cls in CLAIM_CLASSES:
        assert isinstance(cls, abc.ABCMeta), cls
        assert not cls.__abstractmethods__, (cls, cls.__abstractmethods__)
        # a class that has rdp() states a Rényi curve, and then it must say so by type
        assert issubclass(cls, RenyiCurve) == hasattr(cls, "rdp"), cls
    assert {c for c in CLAIM_CLASSES if issubclass(c, RenyiCurve)} == RENYI


SAMPLES = [PureDP(1.0), ApproxDP(1.0, 1e-5), ZCDP(0.5), TCDP(0.3, 4.0), GDP(1.0),
           RDP(ALPHA / (2 * sp.Symbol("sigma") ** 2), {"sigma": 1.0}),
           PrivacyProfile(sp.exp(-sp.Symbol("epsilon")) / 10)]


@pytest.mark.parametrize("claim", SAMPLES, ids=lambda c: c.notion)
def test_renyi_capability_of_each_notion(claim):
    assert has_renyi_claim(claim) == isinstance(claim, (RDP, ZCDP, TCDP))
    assert has_renyi_claim(AllOf((PureDP(3.0), claim))) == has_renyi_claim(claim)
    restored = pickle.loads(pickle.dumps(claim))
    assert restored == claim and restored.epsilon(1e-5) == claim.epsilon(1e-5)


def test_claimed_renyi_takes_the_smallest_curve_over_the_parts_that_cover_alpha():
    both = AllOf((ApproxDP(0.1, 1e-6), ZCDP(0.5), TCDP(0.3, 4.0)))
    assert claimed_renyi(both, 2.0) == pytest.approx(0.6)   # tCDP: 0.3 · 2 < zCDP: 0.5 · 2
    assert claimed_renyi(both, 5.0) == pytest.approx(2.5)   # α > ω: only the zCDP part
    assert claimed_renyi(RDP("alpha / (2 * sigma**2)", {"sigma": 2.0}), 4.0) == 0.5
    assert claimed_renyi(AllOf((PureDP(1.0), GDP(1.0))), 2.0) == math.inf


@dataclass(frozen=True)
class _DuckTypedRenyi(Claim):
    """Has an ``rdp`` method but does not declare :class:`RenyiCurve`."""

    notion = "duck"

    def epsilon(self, delta):
        return 1.0

    def parameters(self):
        return {}

    def rdp(self, alpha):
        return 0.01


@dataclass(frozen=True)
class _DeclaredRenyi(RenyiCurve, Claim):
    notion = "declared"

    def epsilon(self, delta):
        return 1.0

    def parameters(self):
        return {}

    def rdp(self, alpha):
        return 0.01 * alpha


def test_renyi_is_asked_by_type_not_by_method_name():
    duck, declared = _DuckTypedRenyi(), _DeclaredRenyi()
    assert not has_renyi_claim(duck) and claimed_renyi(duck, 2.0) == math.inf
    assert has_renyi_claim(declared) and claimed_renyi(declared, 2.0) == pytest.approx(0.02)

    @dataclass(frozen=True)
    class NoCurve(RenyiCurve, Claim):
        def epsilon(self, delta):
            return 1.0

        def parameters(self):
            return {}

    with pytest.raises(TypeError, match="rdp"):
        NoCurve()
