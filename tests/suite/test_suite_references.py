"""Suites that name user code: ``mechanism = "file.py:Class"`` / ``"module:Class"`` and
``sampler = "file.py:fn"`` with a ``claim`` (issue 13, item 1)."""

from __future__ import annotations

import textwrap

import pytest

from dpaudit.suite import SuiteError, load_suite
from dpaudit.api import run_suites
from dpaudit.mechanisms.references import CodeReferenceError, load_reference

MECH = '''
import numpy as np
from dpaudit import laplace_on_grid
from dpaudit.mechanisms.base import Mechanism, NeighbourPair
from dpaudit.claims.notions import PureDP

class ClippedMean(Mechanism):
    name = "user-clipped-mean"
    family = "user"
    def __init__(self, epsilon=1.0):
        super().__init__(epsilon=epsilon)
        self.epsilon = epsilon
    def sample(self, dataset, n, rng):
        x = np.clip(np.asarray(dataset, float), 0, 1)
        return laplace_on_grid(x.mean(), 1.0 / (len(x) * self.epsilon), n, rng)
    def claim(self):
        return PureDP(self.epsilon)
    def worst_case_pairs(self):
        return [NeighbourPair("one", [0.0, 0.0], [0.0, 1.0], "")]

class NotAMechanism:
    pass
'''

SAMPLERS = '''
import numpy as np
from dpaudit import laplace_on_grid
def noisy_count(dataset, n, rng):  # float-safe: user code is audited on its doubles too
    return laplace_on_grid(float(sum(dataset)), 1.0, n, rng)
def two_args(dataset, n):
    return None
def wrong_rows(dataset, n, rng):
    return np.zeros(3)
'''

PAIR = "[[audit.pairs]]\nd0 = [0, 1]\nd1 = [1, 1]\n"


@pytest.fixture
def code_dir(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")  # the project: references stay inside it
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "my_mech.py").write_text(MECH)
    (tmp_path / "samplers.py").write_text(SAMPLERS)
    (tmp_path / "suites").mkdir()
    return tmp_path


def _suite(directory, body: str):
    path = directory / "suites" / "s.toml"
    path.write_text("[suite]\nsamples = 5000\n" + textwrap.dedent(body))
    return path


def test_file_class_and_sampler_run_and_are_judged(code_dir):
    path = _suite(code_dir, f"""
        [[audit]]
        name = "mine"
        mechanism = "../lib/my_mech.py:ClippedMean"
        params = {{ epsilon = 1.0 }}
        [[audit]]
        name = "count"
        sampler = "../samplers.py:noisy_count"
        claim = {{ notion = "pure-dp", epsilon = 1.0 }}
        {PAIR}
        [[audit]]
        name = "count-understated"
        sampler = "../samplers.py:noisy_count"
        claim = {{ notion = "pure-dp", epsilon = 0.3 }}
        expect = "violation"
        {PAIR}
        """)
    run = run_suites([str(path)], workers=1)
    assert [s.error for s in run.suites] == [None]
    assert {o.audit: o.met_expectation for o in run.outcomes} == {
        "mine": True, "count": True, "count-understated": True}
    assert run.records[0].mechanism == "../lib/my_mech.py:ClippedMean"


def test_sampler_returning_wrong_rows_is_an_audit_error(code_dir):
    path = _suite(code_dir, f"""
        [[audit]]
        name = "rows"
        sampler = "../samplers.py:wrong_rows"
        claim = {{ notion = "gdp", mu = 1.0 }}
        {PAIR}
        """)
    run = run_suites([str(path)])
    (record,) = run.records
    assert record.verdict == "error" and "must return n outputs" in record.error


@pytest.mark.parametrize("body, key, words", [
    ('mechanism = "nofile.py:X"', "mechanism", "no such file"),
    ('mechanism = "no_such_module_xyz:X"', "mechanism", "cannot import module"),
    ('mechanism = "../lib/my_mech.py:Nope"', "mechanism", "no attribute 'Nope'"),
    ('mechanism = "../lib/my_mech.py:NotAMechanism"', "mechanism", "not a subclass"),
    ('mechanism = "../lib/my_mech.py:ClippedMean"\nparams = { bogus = 1 }', "params", "bogus"),
    ('mechanism = "laplace"\nclaim = { notion = "pure_dp", epsilon = 1.0 }', "claim",
     "did you mean 'pure-dp'"),
    (f'sampler = "../samplers.py:two_args"\nclaim = {{ notion = "pure-dp", epsilon = 1.0 }}\n'
     f'{PAIR}', "sampler", "(dataset, n, rng)"),
    ('sampler = "../samplers.py:noisy_count"\nclaim = { notion = "pure-dp", epsilon = 1.0 }',
     "pairs", "explicit"),
    (f'sampler = "../samplers.py:noisy_count"\n{PAIR}', "claim", "required"),
    (f'sampler = "../samplers.py:noisy_count"\nclaim = {{ notion = "gdp", epsilon = 1.0 }}\n'
     f'{PAIR}', "claim", "mu"),
])
def test_bad_references_are_suite_errors_naming_the_key(code_dir, body, key, words):
    path = _suite(code_dir, f'[[audit]]\nname = "x"\n{body}\n')
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    message = str(info.value)
    assert f"'x': key '{key}'" in message and words in message and "\n" not in message


def test_load_reference_forms(code_dir, monkeypatch):
    cls = load_reference("lib/my_mech.py:ClippedMean", code_dir)
    assert cls is load_reference(str(code_dir / "lib" / "my_mech.py") + ":ClippedMean",
                                 code_dir / "suites")
    monkeypatch.syspath_prepend(str(code_dir))
    assert callable(load_reference("samplers:noisy_count", code_dir))
    for bad in ("no-colon", "x.py:", "x.py:1bad"):
        with pytest.raises(CodeReferenceError):
            load_reference(bad, code_dir)


@pytest.mark.slow
def test_objects_from_a_loaded_file_cross_to_workers(code_dir):
    from dpaudit.api import audit_mechanism

    cls = load_reference("lib/my_mech.py:ClippedMean", code_dir)
    pairs = [([0.0, 0.0], [0.0, 1.0]), ([1.0, 0.0], [1.0, 1.0])]  # two tasks: a real pool
    results = [audit_mechanism(cls(epsilon=1.0), pairs=pairs, samples=5000, workers=w)
               for w in (1, 2)]
    assert [r.verdict for r in results] == ["consistent", "consistent"]
    assert [r.epsilon_lower_bound for r in results[0].records] == \
        [r.epsilon_lower_bound for r in results[1].records]
