"""Workers that just work (issue 13, item 2): a script without a main guard, a main module
without a file (Jupyter, ``python -c``), closures and lambdas as samplers."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from dpaudit.api import audit_sampler

SCRIPT = textwrap.dedent('''
    import numpy as np
    from dpaudit.api import run_suites
    from dpaudit.api import audit_sampler
    from dpaudit.mechanisms.base import Mechanism, NeighbourPair
    from dpaudit.mechanisms.registry import register
    from dpaudit.claims.notions import PureDP

    class Mine(Mechanism):
        name = "script-mechanism"
        family = "user"
        def sample(self, dataset, n, rng):
            return float(sum(dataset)) + rng.laplace(0, 1.0, size=n)
        def claim(self):
            return PureDP(1.0)
        def worst_case_pairs(self):
            return [NeighbourPair("one", [0], [1], "")]

    register(Mine)
    SUITE.write_text('[suite]\\nsamples = 5000\\n[[audit]]\\nname = "a"\\n'
                     'mechanism = "script-mechanism"\\nrepresentation = false\\n[[audit]]\\nname = "b"\\n'
                     'mechanism = "laplace"\\n')
    run = run_suites([str(SUITE)], workers=2)
    scale = 1.0
    closure = audit_sampler(lambda d, n, rng: sum(d) + rng.laplace(0, scale, size=n),
                            epsilon=1.0, pairs=[([0], [1])], samples=5000, workers=2,
                            representation=False)
    print("VERDICTS", [str(o.verdict) for o in run.outcomes], str(closure.verdict))
''')


@pytest.mark.slow
@pytest.mark.parametrize("how", ["file", "-c"])
def test_a_script_without_main_guard_runs_with_two_workers(tmp_path, how):
    suite = tmp_path / "s.toml"
    code = f"from pathlib import Path\nSUITE = Path({str(suite)!r})\n" + SCRIPT
    if how == "file":
        script = tmp_path / "script.py"
        script.write_text(code)
        argv = [sys.executable, str(script)]
    else:  # a main module without __file__, as in Jupyter
        argv = [sys.executable, "-c", code]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "VERDICTS ['consistent', 'consistent'] consistent" in done.stdout
    assert done.stdout.count("VERDICTS") == 1  # the workers did not re-run the script


@pytest.mark.slow
def test_closure_sampler_same_numbers_with_one_and_two_workers():
    scale = 1.0

    def make(s):
        def sampler(dataset, n, rng):
            return float(sum(dataset)) + rng.laplace(0.0, s, size=n)
        return sampler

    results = [audit_sampler(make(scale), epsilon=0.5, pairs=[([0], [1]), ([1], [0])],
                             samples=5000, seed=7, workers=w) for w in (1, 2)]
    assert [r.epsilon_lower_bound for r in results[0].records] == \
        [r.epsilon_lower_bound for r in results[1].records]
    assert [r.seed for r in results[0].records] == [r.seed for r in results[1].records]
    assert results[0].verdict == "violation"
