"""The same audit every way, defaults included (issue 36, item 5): a suite row (what
``dpaudit run`` and ``--dpaudit-suites`` read), the API (what the pytest fixture calls) and
``dpaudit check``'s black-box step build the same plan — δ, samples, search, representation,
stopping rule, float gate, replay gate — for the same mechanism with nothing but its parameters given.  δ
left out is the claim's δ in every route: 0 for a pure claim, the claim's own δ for (ε, δ)."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from dpaudit.api import audit_spec
from dpaudit.audit.plan import plan_suite
from dpaudit.audit.single import single_audit_suite
from dpaudit.check.blackbox import black_box_suite
from dpaudit.mechanisms.registry import create_mechanism
from dpaudit.spec.audit import DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_SEED
from dpaudit.suite.spec import parse_suite
from dpaudit.suite.targets import MECHANISM, Target


def _plan(suite) -> list[tuple]:
    tasks, _ = plan_suite(suite)
    out = []
    for t in tasks:
        point = t.point
        coverage = point.coverage.to_json() if point.coverage is not None else None
        out.append((type(t).__name__, t.deltas, t.alphas, t.samples, t.seed,
                    getattr(t, "white_box", None), getattr(t, "representation", None),
                    repr(getattr(t, "search", None)), getattr(t, "replay", None),
                    point.expect, coverage, point.power, point.per_certificate_confidence))
    return out


def _suite_row(name: str, params: dict) -> list[tuple]:
    body = ", ".join(f"{k} = {v!r}" for k, v in params.items())
    text = (f'[suite]\nname = "s"\n\n[[audit]]\nname = "{name}"\nmechanism = "{name}"\n'
            f"params = {{ {body} }}\n")
    return _plan(parse_suite(tomllib.loads(text), "s.toml"))


def _api(name: str, params: dict) -> list[tuple]:
    spec = audit_spec(name, params=params)
    target = spec.target
    keys = {k: v for k, v in spec.keys().items() if k not in ("name", "samples")}
    return _plan(single_audit_suite(target, samples=spec.samples, confidence=DEFAULT_CONFIDENCE,
                                    seed=DEFAULT_SEED, **keys))


def _check(name: str, params: dict) -> list[tuple]:
    mech = create_mechanism(name, **params)
    return _plan(black_box_suite(mech, DEFAULT_SAMPLES, DEFAULT_SEED, DEFAULT_CONFIDENCE))


@pytest.mark.parametrize("name,params,delta", [
    ("laplace", {"epsilon": 1.0}, 0.0),
    ("gaussian", {"epsilon": 1.0, "delta": 1e-5}, 1e-5),  # was δ = 0 ("vacuous") in suites
])
def test_every_route_plans_the_same_audit(name, params, delta):
    row, api, check = _suite_row(name, params), _api(name, params), _check(name, params)
    assert row and row == api == check
    assert {t[1] for t in row} == {(delta,)}
    # the grey-box replay is part of the audit in every route, gated "fail" by default
    assert [t[8] for t in row] == ["fail"] + ["off"] * (len(row) - 1)  # the first named test


@pytest.mark.parametrize("gate", ["warn", "off"])
def test_the_replay_gate_is_the_same_key_in_every_route(gate):
    text = ('[suite]\nname = "s"\n\n[[audit]]\nname = "laplace"\nmechanism = "laplace"\n'
            f'params = {{ epsilon = 1.0 }}\nreplay = "{gate}"\n')
    row = _plan(parse_suite(tomllib.loads(text), "s.toml"))
    spec = audit_spec("laplace", params={"epsilon": 1.0}, replay=gate)
    keys = {k: v for k, v in spec.keys().items() if k not in ("name", "samples")}
    api = _plan(single_audit_suite(spec.target, samples=spec.samples,
                                   confidence=DEFAULT_CONFIDENCE, seed=DEFAULT_SEED, **keys))
    check = _plan(black_box_suite(create_mechanism("laplace", epsilon=1.0), DEFAULT_SAMPLES,
                                  DEFAULT_SEED, DEFAULT_CONFIDENCE, replay=gate))
    assert row == api == check
    assert [t[8] for t in row] == [gate] + ["off"] * (len(row) - 1)


def test_a_bad_replay_gate_is_one_line_naming_the_key():
    with pytest.raises(ValueError, match=r"replay.*\"fail\".*\"warn\".*\"off\""):
        audit_spec("laplace", params={"epsilon": 1.0}, replay="maybe")


def test_an_explicit_delta_is_honoured_and_left_out_is_the_claims():
    gaussian = Target("gaussian", MECHANISM, "", None)
    left_out = single_audit_suite(gaussian, samples=2000, confidence=0.95, seed=0,
                                  params={"epsilon": 1.0, "delta": 1e-5})
    assert left_out.audits[0].delta_from_claim and "delta" not in left_out.audits[0].keys()
    given = single_audit_suite(gaussian, samples=2000, confidence=0.95, seed=0, delta=0.0,
                               params={"epsilon": 1.0, "delta": 1e-5})
    assert not given.audits[0].delta_from_claim
    # a spec given other deltas audits those (run_audit re-reads them from keys())
    moved = dataclasses.replace(left_out.audits[0], deltas=(1e-3,))
    assert not moved.uses_claim_delta and moved.keys()["delta"] == [1e-3]
    assert {t.deltas for t in plan_suite(given)[0]} == {(0.0,)}
