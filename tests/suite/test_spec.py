"""Suite files: a good file parses to the documented defaults; every kind of malformed file
raises a SuiteError naming the file, the audit and the key; planning is deterministic."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.results.options import RunOptions
from dpaudit.audit.plan import plan_suite, resolve_samples, task_key, task_seed
from dpaudit.suite.spec import (DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, SuiteError, load_suite,
                                parse_suite)
from tests.support import REPO


GOOD = """
[suite]
name = "demo"
confidence = 0.9
samples = 50000
seed = 11

[[audit]]
name = "laplace-eps1"
mechanism = "laplace"
params = { epsilon = 1.0 }
delta = [0.0, 1e-6]
note = "the classic"

[[audit]]
name = "scale-bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
samples = 30000
expect = "violation"

[[audit]]
name = "explicit"
mechanism = "laplace"
params = { epsilon = 1.0 }

[[audit.pairs]]
name = "zero-one"
d0 = [0.0]
d1 = [1.0]
description = "one record changed"

[[audit.pairs]]
d0 = [1.0]
d1 = [0.0]
"""


def write(tmp_path: Path, text: str, name: str = "suite.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_good_file(tmp_path):
    suite = load_suite(write(tmp_path, GOOD))
    assert (suite.name, suite.confidence, suite.samples, suite.seed) == ("demo", 0.9, 50000, 11)
    a, b, c = suite.audits
    assert (a.index, a.name, a.mechanism, a.params) == (0, "laplace-eps1", "laplace",
                                                         {"epsilon": 1.0})
    assert a.deltas == (0.0, 1e-6) and a.pairs == "worst-case" and a.samples == 50000
    assert a.expect == "consistent" and a.note == "the classic"
    assert b.samples == 30000 and b.expect == "violation" and b.deltas == (0.0,)
    assert [p.name for p in c.pairs] == ["zero-one", "pair-1"]
    assert c.pairs[0].d0 == [0.0] and c.pairs[0].description == "one record changed"


def test_defaults_and_name_from_file_stem(tmp_path):
    suite = load_suite(write(tmp_path, """
        [[audit]]
        name = "a"
        mechanism = "laplace"
        params = { epsilon = 1.0 }
        """, name="my-suite.toml"))
    assert suite.name == "my-suite"
    assert suite.confidence == DEFAULT_CONFIDENCE and suite.samples == DEFAULT_SAMPLES
    assert suite.audits[0].expect == "consistent" and suite.audits[0].deltas == (0.0,)


@pytest.mark.slow
def test_shipped_suites_parse():
    files = sorted((REPO / "audits").glob("*.toml"))
    assert files, "audits/ must hold at least one suite"
    for path in files:
        suite = load_suite(path)
        assert suite.audits


AUDIT = '[[audit]]\nname = "a"\nmechanism = "laplace"\nparams = { epsilon = 1.0 }\n'

MALFORMED = {
    "bad-toml": ('[[audit]\nname = "a"\n', ["not valid TOML"]),
    "top-level-typo": ('[suit]\nname = "x"\n' + AUDIT, ["'suit'"]),
    "suite-key-typo": ('[suite]\nconfidense = 0.9\n' + AUDIT, ["[suite]", "'confidense'",
                                                               "did you mean 'confidence'"]),
    "audit-key-typo": (AUDIT + 'expct = "violation"\n', ["audit #0 'a'", "'expct'"]),
    "samples-wrong-type": (AUDIT + 'samples = "lots"\n', ["'a'", "'samples'", "integer"]),
    "samples-too-small": (AUDIT + "samples = 999\n", ["'a'", "'samples'", "between 1000 and 1e+12"]),
    "suite-samples-float": ('[suite]\nsamples = 1e5\n' + AUDIT, ["[suite]", "'samples'"]),
    "unknown-mechanism": ('[[audit]]\nname = "a"\nmechanism = "laplase"\n',
                          ["'a'", "'mechanism'", "laplace"]),
    "params-not-table": (AUDIT.replace("{ epsilon = 1.0 }", "1.0"), ["'a'", "'params'"]),
    "params-unknown": (AUDIT.replace("epsilon = 1.0", "epsilon = 1.0, bogus = 2"),
                       ["'a'", "'params'", "bogus"]),
    "params-bad-value": (AUDIT.replace("epsilon = 1.0", "epsilon = -1.0"), ["'a'", "'params'"]),
    "expect-bad": (AUDIT + 'expect = "maybe"\n', ["'a'", "'expect'", "consistent", "violation"]),
    "delta-one": (AUDIT + "delta = 1.0\n", ["'a'", "'delta'", "[0, 1)"]),
    "delta-negative": (AUDIT + "delta = -1e-6\n", ["'a'", "'delta'"]),
    "delta-list-bad": (AUDIT + "delta = [0.0, 2.0]\n", ["'a'", "'delta'"]),
    "delta-string": (AUDIT + 'delta = "1e-5"\n', ["'a'", "'delta'"]),
    "duplicate-name": (AUDIT + AUDIT, ["audit #1 'a'", "'name'", "unique"]),
    "missing-name": ('[[audit]]\nmechanism = "laplace"\n', ["audit #0", "'name'", "required"]),
    "missing-mechanism": ('[[audit]]\nname = "a"\n', ["'a'", "'mechanism'"]),
    "pairs-bad-string": (AUDIT + 'pairs = "best"\n', ["'a'", "'pairs'", "worst-case"]),
    "pair-missing-d1": (AUDIT + '[[audit.pairs]]\nd0 = [0.0]\n', ["'a'", "pairs[0].d1"]),
    "pair-key-typo": (AUDIT + '[[audit.pairs]]\nd0 = [0.0]\nd1 = [1.0]\nd2 = [2.0]\n',
                      ["'a'", "'d2'"]),
    "confidence-out-of-range": ('[suite]\nconfidence = 1.5\n' + AUDIT, ["'confidence'"]),
    "seed-negative": ('[suite]\nseed = -1\n' + AUDIT, ["'seed'"]),
    "no-audits": ('[suite]\nname = "empty"\n', ["'audit'"]),
    "note-not-string": (AUDIT + "note = 3\n", ["'a'", "'note'"]),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_names_file_audit_and_key(tmp_path, case):
    text, fragments = MALFORMED[case]
    path = write(tmp_path, text, name=f"{case}.toml")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_missing_file(tmp_path):
    with pytest.raises(SuiteError, match="cannot read"):
        load_suite(tmp_path / "nope.toml")


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2))
def test_delta_accepted_exactly_in_unit_interval(delta):
    data = {"audit": [{"name": "a", "mechanism": "laplace", "params": {"epsilon": 1.0},
                       "delta": delta}]}
    if 0.0 <= delta < 1.0:
        assert parse_suite(data, "x.toml").audits[0].deltas == (delta,)
    else:
        with pytest.raises(SuiteError, match="'delta'"):
            parse_suite(data, "x.toml")


def test_plan_family_size_confidence_and_seeds(tmp_path):
    suite = load_suite(write(tmp_path, GOOD))
    tasks, info = plan_suite(suite)
    # one curve task per (audit, pair) — all of its δs in one certificate — and a second,
    # white-box certificate when the mechanism has a log-density (all three do here); and,
    # as every mechanism here has a dataset space, search.keep = 2 black-box tests of pairs
    # its pair search finds, counted in the family before anything is drawn
    named = [t for t in tasks if t.search is None]
    searched = [t for t in tasks if t.search is not None]
    assert all(t.white_box for t in named) and not any(t.white_box for t in searched)
    points = {t.audit for t in tasks}
    assert sorted(t.search.slot for t in searched) == sorted([0, 1] * len(points))
    assert info.family_size == 2 * len(named) + len(searched) >= 8
    assert {t.deltas for t in tasks if t.audit_index == 0} == {(0.0, 1e-6)}
    m = info.family_size
    for t in tasks:
        assert t.point.confidence == 0.9
        assert t.point.per_certificate_confidence == pytest.approx(1 - 0.1 / m)
        name = t.pair.name if t.search is None else f"search#{t.search.slot}"
        assert t.seed == task_seed(11, task_key(t.audit, name))
    search_seeds = {t.audit: t.search.seed for t in searched}
    assert search_seeds == {a: task_seed(11, task_key(a, "search")) for a in points}
    assert info.tests == info.family_size
    assert len({t.seed for t in tasks}) == len(tasks)
    # planning twice gives the same tasks; a seed override changes every seed
    again, _ = plan_suite(suite)
    assert [t.seed for t in again] == [t.seed for t in tasks]
    other, _ = plan_suite(suite, RunOptions(seed=12))
    assert not {t.seed for t in other} & {t.seed for t in tasks}


def test_fixed_family_size_keeps_every_number_when_an_audit_is_added(tmp_path):
    """With [suite] family_size, a test's confidence and seed do not depend on the other
    audits: adding (or reordering) audits leaves every existing task bit-identical."""
    fixed = GOOD.replace("[suite]", "[suite]\nfamily_size = 40", 1)
    before, info = plan_suite(load_suite(write(tmp_path, fixed, "before.toml")))
    assert info.family_size == 40 and info.tests == sum(t.tests for t in before) < 40
    assert all(t.point.per_certificate_confidence == pytest.approx(1 - 0.1 / 40) for t in before)
    added = fixed.replace("[[audit]]", '[[audit]]\nname = "new-one"\nmechanism = "geometric"'
                          '\n\n[[audit]]', 1)
    after, info_after = plan_suite(load_suite(write(tmp_path, added, "after.toml")))
    assert info_after.tests == info.tests + sum(t.tests for t in after if t.audit == "new-one")
    key = lambda t: (t.audit, t.pair.name if t.search is None else t.search.slot)  # noqa: E731
    old = {key(t): (t.seed, t.point.per_certificate_confidence, t.samples) for t in before}
    new = {key(t): (t.seed, t.point.per_certificate_confidence, t.samples) for t in after}
    assert {k: new[k] for k in old} == old
    # without family_size the family grows and every confidence moves (the documented default)
    loose_before, _ = plan_suite(load_suite(write(tmp_path, GOOD, "lb.toml")))
    loose_after, _ = plan_suite(load_suite(write(tmp_path, added.replace(
        "family_size = 40\n", ""), "la.toml")))
    same = next(t for t in loose_after if key(t) == key(loose_before[0]))
    assert (loose_before[0].point.per_certificate_confidence
            != same.point.per_certificate_confidence)
    assert loose_before[0].seed == same.seed  # seeds follow names, not positions


def test_family_size_too_small_or_malformed_is_a_clear_error(tmp_path):
    small = GOOD.replace("[suite]", "[suite]\nfamily_size = 3", 1)
    with pytest.raises(SuiteError, match=r"family_size = 3, but the file plans \d+ tests"):
        plan_suite(load_suite(write(tmp_path, small, "small.toml")))
    for bad in ("0", "2.5", '"many"'):
        text = GOOD.replace("[suite]", f"[suite]\nfamily_size = {bad}", 1)
        with pytest.raises(SuiteError, match="family_size"):
            load_suite(write(tmp_path, text, "bad.toml"))


def test_white_box_can_be_switched_off_and_alphas_need_a_renyi_claim(tmp_path):
    text = GOOD.replace('name = "laplace-eps1"', 'name = "laplace-eps1"\nwhite_box = false', 1)
    tasks, info = plan_suite(load_suite(write(tmp_path, text, "nowhite.toml")))
    assert not any(t.white_box for t in tasks if t.audit_index == 0)
    bad = GOOD.replace('name = "laplace-eps1"', 'name = "laplace-eps1"\nalphas = [2.0]', 1)
    with pytest.raises(SuiteError, match="alphas"):
        load_suite(write(tmp_path, bad, "alphas.toml"))
    worse = GOOD.replace('name = "laplace-eps1"', 'name = "laplace-eps1"\nalphas = [0.5]', 1)
    with pytest.raises(SuiteError, match="alphas"):
        load_suite(write(tmp_path, worse, "alphas2.toml"))


def test_samples_override_and_profile(tmp_path):
    audit = load_suite(write(tmp_path, GOOD)).audits[1]
    assert resolve_samples(audit) == 30000
    assert resolve_samples(audit, scale=0.1) == 3000
    assert resolve_samples(audit, samples=40000, scale=10) == 400000
    assert resolve_samples(audit, samples=2000, scale=0.1) == 1000  # never below the minimum
