"""Learned and fitted distinguishers on vector outputs, against a fixed projection.

Vector-output mechanisms with a known true ε of the audited pair:

* ``gaussian-d{2,10,50}`` — q(D) + N(0, σ²I_d) with σ the analytic-Gaussian calibration for a
  claimed (ε, δ) = (1, 10⁻³) at ℓ₂ sensitivity 1, but *mis-scaled*: the sampler uses σ/2.  The
  pair moves q by v = (1/√d)·𝟙 (‖v‖₂ = 1, spread over every coordinate), so the true ε(δ) is
  the Gaussian curve at μ = ‖v‖/(σ/2) (:func:`dpaudit.exact.gaussian_epsilon`).
* ``double-spending`` — two Lap(1/ε) releases of one sum charged as ε = 0.5: true ε = 1
  (:func:`dpaudit.exact.laplace_twofold_epsilon`), δ = 0.
* ``noisy-counts-5`` — five counting queries that all count the changed record, each released
  with Lap(1/0.2): true pure ε = 5 × 0.2 = 1, attained on the orthant where every count is
  below its mean, δ = 0.

Each is audited at 10⁶ samples per side and 95% confidence with every distinguisher
(``auto`` = fitted statistics + logistic regression + gradient boosting, ``statistics``,
``logistic``, ``boosting``, ``projection`` = the data-chosen mean-difference projection), and
with the *same samples* reduced to a **fixed projection** chosen before seeing any data — the
first coordinate, which is what a scalar-only auditor sees without hand-written
post-processing — and with the white-box privacy loss (the Neyman–Pearson test) as the
reference a black-box user can at best reach.  Tightness = certificate / true ε, median over
seeds; time = median seconds per audit.

    python benchmarks/learned.py [--samples 1000000] [--seeds 3] [--no-write]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np
from common import markdown_table, record

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.exact import gaussian_epsilon, laplace_twofold_epsilon
from dpaudit.mechanisms import create_mechanism

DISTINGUISHERS = ("auto", "statistics", "logistic", "boosting", "projection")


class GaussianVector:
    """q(D)·v + N(0, s²I_d) with the pair q ∈ {0, 1}; picklable."""

    def __init__(self, d: int, scale: float):
        self.v = np.full(d, 1.0 / math.sqrt(d))
        self.scale = scale

    def __call__(self, dataset, n, rng):
        return float(dataset) * self.v + rng.normal(0.0, self.scale, (n, len(self.v)))

    def log_density(self, dataset, y):
        z = (np.asarray(y, float) - float(dataset) * self.v) / self.scale
        return -0.5 * np.einsum("ij,ij->i", z, z)


class LaplaceVector:
    """q(D)·𝟙 + Lap(0, b)^k with the pair q ∈ {0, 1}; picklable."""

    def __init__(self, k: int, scale: float):
        self.k, self.scale = k, scale

    def __call__(self, dataset, n, rng):
        return float(dataset) + rng.laplace(0.0, self.scale, (n, self.k))

    def log_density(self, dataset, y):
        return -np.abs(np.asarray(y, float) - float(dataset)).sum(axis=1) / self.scale


class FirstCoordinate:
    """The same sampler (same draws), reduced to its first coordinate."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __call__(self, dataset, n, rng):
        return np.asarray(self.sampler(dataset, n, rng))[:, 0]


def cases():
    claim = create_mechanism("gaussian", epsilon=1.0, delta=1e-3, calibration="analytic")
    sigma = claim.sigma  # analytic σ for (1, 1e-3) at Δ = 1 (from the certified formula)
    out = []
    for d in (2, 10, 50):
        s = GaussianVector(d, sigma / 2.0)
        out.append((f"gaussian-d{d} (σ/2)", s, 1e-3, gaussian_epsilon(1e-3, 2.0 / sigma),
                    1.0))
    ds = create_mechanism("double-spending", epsilon=0.5)
    out.append(("double-spending (2 × Lap, ε=0.5)", LaplaceVector(2, ds.scale), 0.0,
                laplace_twofold_epsilon(0.0, 1.0, ds.scale), ds.claim().epsilon(0.0)))
    out.append(("noisy-counts-5 (5 × Lap(1/0.2))", LaplaceVector(5, 5.0), 0.0, 1.0, 1.0))
    return out


def run(samples: int, seeds: int):
    rows = []
    for label, sampler, delta, true_eps, claimed in cases():
        results = {}
        runs = [(name, dict(distinguisher=name), sampler) for name in DISTINGUISHERS]
        runs.append(("fixed projection (output[0])", dict(distinguisher="statistics"),
                     FirstCoordinate(sampler)))
        runs.append(("white-box (privacy loss)",
                     dict(distinguisher="white-box", log_density=sampler.log_density), sampler))
        for name, options, s in runs:
            eps, secs = [], []
            for seed in range(seeds):
                t = time.perf_counter()
                r = estimate_epsilon_lower_bound(s, 0, 1, delta=delta, samples=samples,
                                                 seed=seed, **options)
                secs.append(time.perf_counter() - t)
                eps.append(r.epsilon)
            med = statistics.median(eps)
            results[name] = med
            rows.append([label, delta, true_eps, claimed, name, med, med / true_eps,
                         statistics.median(secs)])
            print(rows[-1], flush=True)
    return rows


def summarize(rows, samples: int, seeds: int) -> str:
    """The full table, then per mechanism what a black-box user gets relative to the white-box
    (Neyman–Pearson) certificate, with and without a data-chosen statistic."""
    table = markdown_table(["mechanism", "δ", "true ε", "claimed ε", "distinguisher",
                            "ε_LB (median)", "tightness", "s/audit"], rows)
    by_case: dict[str, dict[str, list]] = {}
    for row in rows:
        by_case.setdefault(row[0], {})[row[4]] = row
    summary = []
    for label, runs in by_case.items():
        white = runs["white-box (privacy loss)"][5]
        auto = runs["auto"]
        best = max((r for name, r in runs.items() if not name.startswith(("white", "fixed"))),
                   key=lambda r: r[5])
        fixed = runs["fixed projection (output[0])"][5]
        summary.append([label, white, auto[5], auto[5] / white, best[4], best[5],
                        fixed, fixed / white, auto[7] / runs["statistics"][7]])
    summary_table = markdown_table(
        ["mechanism", "white-box ε_LB", "auto ε_LB", "auto / white-box", "best black-box",
         "its ε_LB", "fixed projection ε_LB", "fixed / white-box", "auto time / statistics time"],
        summary)
    return (f"Median over {seeds} seeds, {samples:.0e} samples per side, 95% confidence.  "
            "'fixed projection' = the same sampler reduced to output[0] before any data is "
            "seen; 'white-box' = the exact privacy loss (Neyman–Pearson), the best a "
            "black-box user can hope for.\n\n" + table
            + "\n\nWhat a black-box user loses (ratios to the white-box certificate):\n\n"
            + summary_table
            + "\n\nReading: the data-chosen statistics reach the white-box certificate within a "
            "few percent in every case, while a projection fixed in advance loses most of the "
            "signal as the dimension grows (it sees a 1/√d share of the shift) and cannot see "
            "composition at all (double spending, several counts).  Logistic regression on "
            "[z, z², |z|] matches the statistics on Gaussians but cannot represent the "
            "clipped-linear Laplace privacy loss; gradient boosting can, but never beat the "
            "fitted statistics (orthant events) and costs 4–10× more, which is why ``auto`` "
            "adds logistic regression only.  The remaining gap to the true ε is the "
            "Clopper–Pearson price of certifying a tail event at δ = 10⁻³ with 10⁶ samples.")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows = run(args.samples, args.seeds)
    record("Learned distinguishers on vector outputs (benchmarks/learned.py)",
           summarize(rows, args.samples, args.seeds), write=not args.no_write)


if __name__ == "__main__":
    main()
