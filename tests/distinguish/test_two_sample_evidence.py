"""dpaudit.distinguish.result: the two-sample certificates as typed evidence — their power, their
JSON form (with and without a shared table, and the self-contained form of results.json
schema 2 and 3), their one-line description and their two-sided interval."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound
from dpaudit.distinguish.result import (WHITE_BOX, CertifiedEvent, EpsilonLowerBound,
                                        RenyiLowerBound)
from dpaudit.results.evidence_kinds import evidence_from_json, legacy_evidence
from dpaudit.stats.power import certification_probability, detectable_epsilon
from dpaudit.util.shared_json import SharedValues


def certificate(events, *, s=1e-3, delta=0.0) -> EpsilonLowerBound:
    """A certificate whose candidates have the given (n, k_denominator); the first is best."""
    candidates = tuple(CertifiedEvent(f"output ≥ {i}", "d1", n // 2, n, k, n, 0.4, 0.1, 0.5 - i,
                                      {"op": "ge", "threshold": float(i), "statistic": "output"})
                       for i, (n, k) in enumerate(events))
    best = candidates[0]
    return EpsilonLowerBound(epsilon=best.epsilon, delta=delta, confidence=0.95, method="m",
                             event=best.event, numerator="d1", k_numerator=best.k_numerator,
                             n_numerator=best.n_numerator, k_denominator=best.k_denominator,
                             n_denominator=best.n_denominator, per_bound_significance=s,
                             family_size=2 * len(events), samples=2 * events[0][0],
                             selection_samples=events[0][0], certification_samples=events[0][0],
                             output_kind="continuous scalar", seed=1, seconds=0.1,
                             candidates=candidates, event_definition=best.definition,
                             distinguisher="auto")


def power(n, k, s=1e-3, delta=0.0, claim=1.0):
    return detectable_epsilon(claim, samples=n, significance=s, delta=delta, k_denominator=k)


def test_a_certificate_detects_with_its_best_event():
    cert = certificate([(100_000, 60_000), (100_000, 10_000)])
    assert power(100_000, 60_000) == math.inf
    assert cert.detectable_epsilon(1.0) == power(100_000, 10_000)
    assert cert.detectable_epsilon(None) is None


def test_its_power_curve_takes_the_best_event_and_crosses_one_half_there():
    cert = certificate([(100_000, 60_000), (100_000, 10_000)])
    eps = cert.detectable_epsilon(1.0)
    assert cert.power_curve(1.0, [eps])[0] == pytest.approx(0.5, abs=1e-9)
    grid = np.linspace(1.0, 1.3, 7)
    best = certification_probability(grid, 1.0, samples=100_000, significance=1e-3, delta=0.0,
                                     k_denominator=10_000)
    assert np.array_equal(cert.power_curve(1.0, grid), best)
    assert cert.power_curve(None, grid) is None


@pytest.mark.parametrize("claim", [709.0, 710.0, 800.0, 1e6, math.inf])
def test_a_certificates_power_at_huge_claims_is_nil_without_overflow_warnings(claim):
    import warnings

    cert = certificate([(2_000, 3), (2_000, 0)], delta=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cert.detectable_epsilon(claim) == math.inf
        assert cert.power_curve(claim, [1.0, 1e6]).tolist() == [0.0, 0.0]


def _real_curve():
    rng_sampler = lambda d, n, rng: rng.laplace(sum(d), 1.0, n)  # noqa: E731
    return estimate_privacy_curve_lower_bound(rng_sampler, [0.0], [1.0], deltas=[0.0, 1e-3],
                                              alphas=[2.0], samples=20_000, seed=3)


def test_json_round_trips_exactly_with_and_without_a_shared_table():
    curve = _real_curve()
    for point in curve.points:
        assert EpsilonLowerBound.from_json(point.to_json()) == point
        shared = SharedValues()
        data = json.loads(json.dumps(point.to_json(shared)))
        back = EpsilonLowerBound.from_json(data, SharedValues(json.loads(json.dumps(
            shared.to_json()))))
        assert back == point and back.recheck() == pytest.approx(point.epsilon)
        assert evidence_from_json(data, SharedValues(shared.to_json())) == point
    # the δs of one curve share their certification part: written once
    shared = SharedValues()
    refs = {json.dumps(p.to_json(shared)["certification"]) for p in curve.points}
    assert len(refs) == 1
    for renyi in curve.renyi_evidence():
        assert RenyiLowerBound.from_json(renyi.to_json()) == renyi
        assert renyi.basis == curve.points[0]


def test_the_self_contained_form_of_older_files_reads_into_the_same_evidence():
    curve = _real_curve()
    point = curve.points[0]
    assert EpsilonLowerBound.from_json(point.to_dict()) == point
    white = legacy_evidence("dp", point.to_dict(), point.to_dict())
    assert [e.role for e in white] == ["black-box", "white-box"]
    assert white[1].distinguisher == WHITE_BOX
    renyi = curve.renyi_evidence()[0]
    (read,) = legacy_evidence("rdp", renyi.to_dict(), None)
    assert read.bound == renyi.bound and read.basis == renyi.basis


def test_description_and_interval_are_read_off_the_certifying_event():
    point = _real_curve().points[0]
    text = point.describe()
    best = point.chosen
    assert f"{best.k_numerator}/{best.n_numerator} times" in text
    assert f"{best.k_denominator}/{best.n_denominator} times" in text
    assert "Clopper–Pearson" in text
    lower, upper = point.interval()
    assert lower == pytest.approx(max(point.epsilon, 0.0)) and upper > lower
