"""Distinguishers on Gaussian-sketch outputs, and the speed of their exact curves.

GaussMix releases a k × d matrix (flattened to k·d numbers) whose law on neighbouring datasets
differs only in covariance.  For the paper's tightness pair (XᵀX = C²I, d = 2, γ = 3) at several
k, this script runs ``estimate_privacy_curve_lower_bound`` with every distinguisher
(``statistics``, ``logistic``, ``boosting``, ``auto``) and the white-box likelihood ratio, and
compares the certified ε at δ = 1e-3 with the exact ε of the pair (median over seeds; 95%
confidence; samples per side as given).  It also times the exact profile: the rank-one closed
form (:class:`dpaudit.mechanisms.gaussian_mixing.sketch_profiles.ScaledChiSquareProfile`) against the general
:class:`~dpaudit.exact.gaussian_general.GaussianProfile` on the k·d-dimensional Kronecker pair.

    python benchmarks/gaussian_mixing_distinguishers.py [--samples 200000] [--seeds 2]
                                                         [--no-write]
"""

from __future__ import annotations

import argparse
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from common import markdown_table, record  # noqa: E402

from dpaudit import estimate_epsilon_lower_bound  # noqa: E402
from dpaudit.exact.gaussian_general import GaussianProfile  # noqa: E402
from dpaudit.mechanisms.gaussian_mixing.sketch_profiles import sketch_pair_profile  # noqa: E402
from dpaudit.mechanisms.gaussian_mixing.gaussmix import GaussMix  # noqa: E402

DELTA = 1e-3
DISTINGUISHERS = ("statistics", "logistic", "boosting", "auto", "white-box")


def certify(mech, pair, distinguisher, samples, seed):
    kw = {"log_density": mech.log_density} if distinguisher == "white-box" else {}
    t = time.perf_counter()
    r = estimate_epsilon_lower_bound(mech.sampler(), pair.d0, pair.d1, delta=DELTA,
                                     samples=samples, confidence=0.95, seed=seed,
                                     distinguisher=distinguisher, **kw)
    return r.epsilon, time.perf_counter() - t, r.event


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--ks", type=int, nargs="*", default=[1, 5, 20])
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows, speed = [], []
    for k in args.ks:
        mech = GaussMix(k=k, gamma=3.0, dim=2)
        pair = mech.worst_case_pairs()[0]
        exact = mech.exact_epsilon(pair.d0, pair.d1, DELTA)
        for dist in DISTINGUISHERS:
            runs = [certify(mech, pair, dist, args.samples, seed) for seed in range(args.seeds)]
            eps = float(np.median([r[0] for r in runs]))
            secs = float(np.median([r[1] for r in runs]))
            rows.append([k, 2 * k, dist, exact, eps, eps / exact, secs, runs[0][2][:48]])
        c0, c1 = mech.covariance(pair.d0), mech.covariance(pair.d1)
        t = time.perf_counter()
        fast = sketch_pair_profile(c0, c1, k).symmetric().epsilon(DELTA)
        t_fast = time.perf_counter() - t
        t = time.perf_counter()
        full = GaussianProfile(np.zeros(2 * k), np.kron(np.eye(k), c0), np.zeros(2 * k),
                               np.kron(np.eye(k), c1)).symmetric().epsilon(DELTA)
        t_full = time.perf_counter() - t
        speed.append([k, fast, full, abs(fast - full) / full, t_fast, t_full])
    body = (f"Tightness pair of GaussMix (γ = 3, d = 2, C = 1); δ = {DELTA:g}; {args.samples} "
            f"samples per side; 95% confidence; median of {args.seeds} seeds.\n\n"
            + markdown_table(["k", "output dim", "distinguisher", "exact ε", "ε_LB",
                              "ε_LB / exact", "s", "event (first seed)"], rows)
            + "\n\nExact ε(δ) of the same pair: rank-one closed form vs the general Gaussian "
              "profile of the k·d-dimensional Kronecker pair (both directions):\n\n"
            + markdown_table(["k", "closed form", "GaussianProfile", "rel. diff",
                              "s closed form", "s general"], speed))
    record("Gaussian mixing: distinguishers on sketch outputs "
           "(benchmarks/gaussian_mixing_distinguishers.py)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
