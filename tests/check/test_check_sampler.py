"""``dpaudit check file.py:fn`` for a plain sampler function (issue 26, item 4): the claim
from ``--epsilon [--delta]`` or ``--claim``, the pairs from ``--pair D0 D1``, its parameters
from ``--params`` — the audit a suite's ``sampler =`` entry runs."""

from __future__ import annotations

import json

import pytest

from dpaudit.cli.commands import main

SAMPLERS = '''
import numpy as np
from dpaudit import laplace_on_grid

def noisy_sum(dataset, n, rng, epsilon=1.0):
    return laplace_on_grid(float(np.clip(dataset, 0, 1).sum()), 1.0 / epsilon, n, rng)

def leaky_sum(dataset, n, rng):
    return laplace_on_grid(float(np.clip(dataset, 0, 1).sum()), 0.25, n, rng)
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "samplers.py").write_text(SAMPLERS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_sampler_is_checked_against_the_claim_given(project, capsys):
    out = project / "check.json"
    status = main(["check", "samplers.py:noisy_sum", "--claim", '{"notion": "pure-dp"}',
                   "--params", "epsilon=0.5", "--pair", "[0, 0]", "[0, 1]", "--samples",
                   "4000", "--json", str(out)])
    text = capsys.readouterr().out
    assert status == 0, text
    assert "[1/6] claim        consistent pure-dp(epsilon=0.5)" in text
    assert "[6/6] black-box    consistent" in text and "pair 'pair-0'" in text
    doc = json.loads(out.read_text())
    assert doc["parameters"] == {"epsilon": 0.5}
    assert main(["check", "samplers.py:leaky_sum", "--epsilon", "1", "--pair", "[0, 0]",
                 "[0, 1]", "--samples", "4000"]) == 1
    assert "[6/6] black-box    violation" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["samplers.py:noisy_sum", "--pair", "[0]", "[1]"], "states no claim: give it with "
                                                        "--epsilon E [--delta D] or --claim"),
    (["samplers.py:noisy_sum", "--epsilon", "1"], "give neighbouring datasets with --pair "
                                                  "D0 D1"),
    (["samplers.py:noisy_sum", "--delta", "0.1", "--pair", "[0]", "[1]"],
     "--delta goes with --epsilon"),
    (["samplers.py:noisy_sum", "--epsilon", "1", "--claim", "{}", "--pair", "[0]", "[1]"],
     "not both"),
    (["samplers.py:noisy_sum", "--claim", "[1]", "--pair", "[0]", "[1]"], "a JSON table"),
    (["samplers.py:noisy_sum", "--epsilon", "1", "--pair", "[0", "[1]"],
     "--pair #0: D0 must be a JSON dataset"),
    (["samplers.py:noisy_sum", "--epsilon", "1", "--pair", "[0]", "[1]", "--params",
      "epsilom=2"], "did you mean 'epsilon'"),
    (["laplace", "--epsilon", "1"], "go with a sampler function"),
    (["laplac"], "did you mean 'laplace'"),
])
def test_bad_sampler_checks_exit_2_naming_the_fix(project, capsys, argv, message):
    assert main(["check", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
