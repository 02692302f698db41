"""One verdict per kind of leak (issue 36, item 4): a floating-point finding — certified only
by an event on the outputs' float64 representation — and a value-level violation are told
apart in every route, and ``floating_point = "warn"`` gates the first as a warning while the
second still fails."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dpaudit import audit_sampler
from dpaudit.check.runner import check_mechanism
from dpaudit.claims import PureDP
from dpaudit.mechanisms.sampler import SamplerMechanism
from dpaudit.spec.audit import read_audit
from dpaudit.spec.fields import SpecError, Where

PAIR = [([0.0], [1.0])]
SAMPLES = 20_000  # the float leak certifies in the first look (1 000 per side)
GREYBOX = dict(random_pairs=20, hypothesis_examples=5, optimiser_starts=1,
               optimiser_evaluations=20)


def plain_laplace(dataset, n, rng, scale=1.0):
    """Σ D + Lap(scale) in doubles: ε = 1/scale at the value level, but its float64 outputs
    tell the datasets apart (Mironov 2012)."""
    return float(np.sum(dataset)) + rng.laplace(0.0, scale, n)


def test_the_key_is_read_once_for_every_route():
    from dpaudit.api import audit_spec

    spec = audit_spec(sampler=plain_laplace, claim={"notion": "pure-dp", "epsilon": 1.0},
                      pairs=PAIR, samples=SAMPLES, floating_point="warn")
    assert spec.floating_point == "warn" and spec.keys()["floating_point"] == "warn"
    assert "floating_point" not in audit_spec(
        sampler=plain_laplace, claim={"notion": "pure-dp", "epsilon": 1.0}, pairs=PAIR,
        samples=SAMPLES).keys()  # the default, "fail", is left out
    with pytest.raises(ValueError, match="floating_point.*\"warn\""):
        audit_spec(sampler=plain_laplace, claim={"notion": "pure-dp", "epsilon": 1.0},
                   pairs=PAIR, samples=SAMPLES, floating_point="ignore")


def test_a_float_finding_fails_by_default_and_warns_when_asked():
    kwargs = dict(epsilon=1.0, pairs=PAIR, samples=SAMPLES, seed=0)
    failing = audit_sampler(plain_laplace, **kwargs)
    point = failing.points[0]
    assert failing.verdict == "violation" and not failing.met_expectation
    assert point.floating_point_finding and point.value_verdict == "consistent"

    warned = audit_sampler(plain_laplace, floating_point="warn", **kwargs)
    point = warned.points[0]
    assert warned.met_expectation  # judged on its value-level verdict
    assert point.verdict == "violation" and point.value_verdict == "consistent"
    warnings = [w for t in point.tests for w in t.warnings]
    assert any(w.startswith("floating-point finding") and "value-level" in w
               for w in warnings), warnings


def test_a_value_level_violation_fails_even_when_float_findings_warn():
    # noise for ε = 2 against a claim of ε = 1: the values leak, not only the doubles
    result = audit_sampler(plain_laplace, epsilon=1.0, params={"scale": 0.25}, pairs=PAIR,
                           samples=SAMPLES, floating_point="warn")
    assert result.points[0].value_verdict == "violation" and not result.met_expectation


def test_check_tells_the_two_apart():
    mech = SamplerMechanism(plain_laplace, PureDP(1.0), "plain_laplace", {}, PAIR)
    step = check_mechanism(mech, samples=SAMPLES, floating_point="warn",
                           greybox=GREYBOX).step("black-box")
    assert step.verdict == "consistent", step.summary
    assert step.summary.startswith("value-level ε_LB")
    assert step.data["floating_point_finding"] and step.data["value_verdict"] == "consistent"
    assert any(line.startswith("floating-point finding (a warning)") for line in step.lines)
    failing = check_mechanism(mech, samples=SAMPLES, greybox=GREYBOX).step("black-box")
    assert failing.verdict == "violation" and "float64 outputs leak" in failing.summary


def test_a_suite_row_reads_the_key_and_names_a_bad_value():
    target = SimpleNamespace(reference="laplace")
    row = {"name": "x", "mechanism": "laplace"}
    read = lambda table: read_audit(table, Where("s.toml"), index=0,  # noqa: E731
                                    read_target=lambda: target, default_samples=SAMPLES)
    assert read(row).floating_point == "fail"
    assert read({**row, "floating_point": "warn"}).floating_point == "warn"
    with pytest.raises(SpecError, match="floating_point"):
        read({**row, "floating_point": True})
