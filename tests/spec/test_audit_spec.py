"""One audit, spelled once (issue 33, item 4): a suite row, the Python API and ``dpaudit
check`` build the same :class:`~dpaudit.spec.audit.AuditSpec` through the same reader, with the
same defaults and the same message for the same mistake."""

from __future__ import annotations

import glob
import re

import pytest

from dpaudit.api import audit_mechanism, audit_sampler, audit_spec, run_audit
from dpaudit.spec.audit import AUDIT_KEYS, AuditSpec, read_audit
from dpaudit.spec.fields import SpecError, Where
from dpaudit.suite.spec import SuiteError, load_suite, parse_suite


def _suite_audit(**row) -> AuditSpec:
    return parse_suite({"audit": [{"name": "a", "mechanism": "laplace", **row}]},
                       "s.toml").audits[0]


def _comparable(spec: AuditSpec) -> dict:
    keys = spec.keys()
    keys.pop("name")
    return keys


@pytest.mark.parametrize("path", sorted(glob.glob("audits/*.toml")))
def test_every_shipped_audit_reads_back_from_its_keys(path):
    """keys() is the audit: read again, it is equal field for field (what run_audit relies
    on to re-check a spec it is handed)."""
    suite = load_suite(path, load_code=False)
    for audit in suite.audits:
        keys = audit.keys()
        again = read_audit(keys, Where(path), index=audit.index,
                           read_target=lambda: audit.target,
                           default_samples=keys["samples"], default_stopping=suite.stopping)
        assert again == audit


ROWS = [
    {},
    {"params": {"epsilon": 0.5}, "delta": [0.0, 1e-6], "samples": 20_000,
     "expect": "violation", "distinguisher": "statistics", "white_box": False,
     "search": {"candidates": 4, "keep": 1}, "representation": True, "sequential": False,
     "power": 1.5, "require_power": True, "note": "n"},
    {"sweep": {"epsilon": [0.5, 1.0, 2.0]}, "expect": ["consistent", "violation", "consistent"],
     "search": False},
    {"kind": "exact-curve", "pairs": [{"name": "p", "d0": [0.0], "d1": [1.0]}]},
]


@pytest.mark.parametrize("row", ROWS)
def test_a_suite_row_and_the_api_build_the_same_audit(row):
    from_suite = _suite_audit(**row)
    api_row = dict(row)
    if "power" in api_row and api_row["power"] is False:
        api_row["power"] = None
    from_api = audit_spec("laplace", **api_row)
    assert _comparable(from_api) == _comparable(from_suite)
    assert (from_api.stopping, from_api.sweep, from_api.search) == \
        (from_suite.stopping, from_suite.sweep, from_suite.search)


MISTAKES = [
    ("delta", 1.5, r"key 'delta': expected a number in \[0, 1\), got 1.5"),
    ("delta", [1e-6, 1e-6], "key 'delta': expected a list of distinct values"),
    ("samples", 10, "key 'samples': expected an integer between 1000"),
    ("expect", "consistant", "key 'expect': expected one of 'consistent', 'violation'.*did you "
                             "mean 'consistent'"),
    ("distinguisher", "statistic", "key 'distinguisher': expected one of .*did you mean "
                                  "'statistics'"),
    ("kind", "exact_curve", "key 'kind': expected one of .*'exact-curve'"),
    ("alphas", [0.5], r"key 'alphas': expected a list of Rényi orders α > 1"),
    ("alphas", [2.0], "key 'alphas': expected a mechanism with a Rényi claim"),
    ("sweep", {"epsilon": []}, "key 'sweep.epsilon': expected a non-empty list"),
    ("search", {"candidate": 3}, "key 'search': expected true, false or a table"),
    ("white_box", "yes", "key 'white_box': expected true or false"),
    ("power", 0.5, "key 'power': expected a number > 1"),
]


@pytest.mark.parametrize("key, value, message", MISTAKES, ids=[f"{k}={v!r}" for k, v, _ in
                                                               MISTAKES])
def test_the_same_mistake_gets_the_same_message_in_every_route(key, value, message):
    with pytest.raises(SuiteError, match=message) as in_suite:
        _suite_audit(**{key: value})
    with pytest.raises(SpecError, match=message) as in_api:
        audit_mechanism("laplace", **{"samples": 1000, key: value})
    assert str(in_suite.value).startswith("s.toml: audit #0 'a': ")
    assert str(in_api.value).startswith("audit_mechanism(): ")
    tail = str(in_suite.value).split(": ", 2)[2]
    assert str(in_api.value).split(": ", 1)[1] == tail


def test_the_api_reads_every_audit_key_a_suite_row_has():
    """Every key of AUDIT_KEYS is an argument of audit_spec's reader; those a suite row has
    and the API has no use for are named here, so that a new key cannot be left out of the
    API by accident."""
    import inspect

    api = set(inspect.signature(audit_mechanism).parameters)
    without = {"min_samples",   # a floor under --profile quick: the API runs no profile
               "exact_points"}  # extra exact values for a figure: the API draws none
    assert set(AUDIT_KEYS) - without <= api, set(AUDIT_KEYS) - without - api


def test_run_audit_of_a_spec_is_audit_mechanism():
    spec = audit_spec("laplace", params={"epsilon": 1.0}, samples=2000, search=False)
    a = run_audit(spec, seed=3)
    b = audit_mechanism("laplace", params={"epsilon": 1.0}, samples=2000, search=False, seed=3)
    assert [r.epsilon_lower_bound for r in a.records] == [r.epsilon_lower_bound for r in b.records]
    assert a.verdict == b.verdict == "consistent"


def test_run_audit_checks_a_spec_changed_into_something_malformed():
    from dataclasses import replace

    spec = audit_spec("laplace", samples=2000)
    with pytest.raises(ValueError, match=re.escape("run_audit(): key 'delta'")):
        run_audit(replace(spec, deltas=(2.0,)))
    with pytest.raises(ValueError, match="expected an AuditSpec"):
        run_audit({"mechanism": "laplace"})


def test_a_sweep_through_the_api_is_one_family_of_points():
    result = audit_mechanism("laplace", sweep={"epsilon": [0.5, 2.0]}, samples=2000,
                             search=False, sequential=False)
    assert [o.verdict for o in result.outcomes] == ["consistent", "consistent"]
    assert result.suite.points == 2
    assert result.suite.family_size == 4  # one family: per point, black-box and white-box


def test_a_sampler_spec_has_no_search_and_no_white_box():
    def sampler(dataset, n, rng, epsilon=1.0):
        return rng.laplace(sum(dataset), 1.0 / epsilon, size=n)

    spec = audit_spec(sampler=sampler, claim={"notion": "pure-dp"}, params={"epsilon": 1.0},
                      pairs=[([0.0], [1.0])], samples=2000)
    assert spec.search is None and spec.white_box is False
    # a sampler given a dataset space is searched there (issue 36), still no white box
    from dpaudit import CategoricalRecords, with_dataset_space

    spaced = audit_spec(sampler=with_dataset_space(CategoricalRecords(["a", "b"]))(
        lambda dataset, n, rng: rng.random(n)), claim={"notion": "pure-dp", "epsilon": 1.0},
        pairs=[(["a"], ["a", "b"])], samples=2000)
    assert spaced.search is not None and spaced.search.proposals and not spaced.white_box
    result = audit_sampler(sampler, claim={"notion": "pure-dp"}, params={"epsilon": 1.0},
                           pairs=[([0.0], [1.0])], samples=2000,
                           representation=False)  # numpy's Laplace leaks in float64
    assert result.verdict == "consistent"
