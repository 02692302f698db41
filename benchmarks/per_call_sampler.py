"""What a one-output-per-call sampler costs: ``dpaudit check`` on ``dpaudit init``'s clipped
mean, vectorised and one output per call (issue 26, item 4).

Three versions of the same mechanism (``dpaudit.cli.scaffold.MECHANISM_CLASS``, ε-DP, float-safe
outputs on a 2⁻³² grid) are checked with :func:`dpaudit.check_mechanism`, its four steps, at
``--samples`` per side (seed 0, one thread):

* ``vectorised`` — the scaffold as written: ``laplace_on_grid(query(D), b, n, rng)``;
* ``python loop`` — ``np.array([one(D, rng) for _ in range(n)])`` by hand, where
  ``one`` recomputes the clipped mean and draws one Laplace value, as code built around a
  library call that releases one output does;
* ``per_call_sampler`` — ``dpaudit.per_call_sampler(one)`` on the same ``one``.

It also times the loop alone: microseconds per output of ``per_call_sampler`` and of the hand
loop around a function that returns a constant (the helper's own overhead) and around ``one``.

    python benchmarks/per_call_sampler.py [--samples 200000] [--variants ...]

Measured (2 cores shared with other jobs, load average ~8; 200 000 samples per side, the
check draws 4.04 million outputs in all): ``vectorised`` 3.2 s, ``python loop`` 51.8 s,
``per_call_sampler`` 48.8 s (all consistent); per output, around a constant function 0.039 µs
(helper) vs 0.046 µs (hand loop), around ``one`` 11.0 µs vs 9.7 µs (the difference is the
machine's noise).  The helper costs nothing over a hand-written loop; the time is ``one``'s
own (a numpy clip and mean per call, ~10 µs), and only vectorising removes it.
"""

from __future__ import annotations

import argparse
import math
import os
import time
import types

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np

from dpaudit import check_mechanism, per_call_sampler
from dpaudit.cli.scaffold import MECHANISM_CLASS as MECHANISM


def _scaffold():
    """The ``ClippedMean`` class ``dpaudit init`` writes."""
    module = types.ModuleType("bench_my_mechanism")
    exec(compile(MECHANISM, "my_mechanism.py", "exec"), module.__dict__)
    return module.ClippedMean


def variants() -> dict:
    """name → a ClippedMean class whose sample() is that variant."""
    base = _scaffold()
    grid = base.GRID

    def one(self, dataset, rng):
        """One release: the clipped mean on the grid plus one grid-rounded Laplace draw."""
        q = self.query(dataset)
        return round(q / grid) * grid + grid * round(rng.laplace(0.0, self.scale) / grid)

    class PythonLoop(base):
        def sample(self, dataset, n, rng):
            return np.array([one(self, dataset, rng) for _ in range(n)])

    class PerCall(base):
        def sample(self, dataset, n, rng):
            return per_call_sampler(self.one)(dataset, n, rng)

        def one(self, dataset, rng):
            return one(self, dataset, rng)

    return {"vectorised": base, "python loop": PythonLoop, "per_call_sampler": PerCall}


def time_check(cls, samples: int) -> tuple[float, str]:
    start = time.perf_counter()
    result = check_mechanism(cls(), samples=samples, seed=0)
    return time.perf_counter() - start, result.verdict


def per_output(samples: int = 200_000) -> dict:
    """µs per output of the helper and of a hand loop, around a constant and around ``one``."""
    rng = np.random.default_rng(0)
    mech = variants()["per_call_sampler"]()
    data = [0.5] * mech.n_min
    out = {}
    for label, fn in (("constant", lambda d, r: 0.25), ("one", mech.one)):
        helper = per_call_sampler(fn)
        for how, run in (("per_call_sampler", lambda: helper(data, samples, rng)),
                         ("hand loop", lambda: np.array([fn(data, rng)
                                                         for _ in range(samples)]))):
            best = math.inf
            for _ in range(3):
                start = time.perf_counter()
                run()
                best = min(best, time.perf_counter() - start)
            out[(label, how)] = best / samples * 1e6
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--variants", nargs="+", default=None)
    args = parser.parse_args()
    for (label, how), micro in per_output().items():
        print(f"per output, {label:>8} function, {how:>16}: {micro:.3f} µs")
    for name, cls in variants().items():
        if args.variants and name not in args.variants:
            continue
        seconds, verdict = time_check(cls, args.samples)
        print(f"dpaudit check, {name:>16}: {seconds:6.1f} s ({verdict})", flush=True)


if __name__ == "__main__":
    main()
