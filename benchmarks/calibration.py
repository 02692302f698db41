"""Auditing the auditor: the certified lower bound against exact privacy curves.

For one representative pair of every exact-curve family in :mod:`dpaudit.exact` (Gaussians
with equal covariance, isotropic Gaussians with different variances, a covariance-only pair,
a Gaussian vs a 1000-component mixture (an SGLD step), two mixtures, Laplace pairs, a
discrete pair), the exact ε of the pair (both directions) at δ is computed from its profile,
a plain numpy sampler of the two laws is built, and ``estimate_epsilon_lower_bound`` is run
with ``--seeds`` seeds at each sample size (per side), 95% confidence.  Reported:

* coverage — the fraction of runs whose certificate is ≤ the exact ε (the estimator's
  guarantee says ≥ 0.95; Clopper–Pearson and Bonferroni make it conservative);
* tightness — mean and minimum of certificate / exact ε;
* seconds per run.

    python benchmarks/calibration.py [--seeds 100] [--samples 100000 1000000]
                                     [--workers 2] [--cases name ...] [--no-write]
"""

from __future__ import annotations

import argparse
import math
import os
import time

# one thread per worker process: the learned distinguishers (scikit-learn) would otherwise
# start a thread pool per process and oversubscribe the cores
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np
from common import markdown_table, record

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.util.processes import process_pool
from dpaudit.exact import (DiscreteProfile, GaussianMixtureProfile, GaussianProfile,
                           IsotropicGaussianProfile, LaplaceProfile, equal_covariance_profile)

CONFIDENCE = 0.95


# --- samplers: sampler(dataset, n, rng), dataset ∈ {0, 1} selects the law ----------------------
class GaussianSampler:
    """X ~ N(means[d], covs[d]) via a Cholesky factor."""

    def __init__(self, means, covs):
        self.means = [np.asarray(m, float) for m in means]
        self.chol = [np.linalg.cholesky(np.asarray(c, float)) for c in covs]

    def __call__(self, dataset, n, rng):
        z = rng.standard_normal((n, self.means[dataset].size))
        return self.means[dataset] + z @ self.chol[dataset].T


class MixtureSampler:
    """X ~ Σ wⱼ N(mⱼ, sⱼ²) (component drawn first)."""

    def __init__(self, laws):
        self.laws = [(np.asarray(w, float) / np.sum(w), np.asarray(m, float), np.asarray(s, float))
                     for w, m, s in laws]

    def __call__(self, dataset, n, rng):
        w, m, s = self.laws[dataset]
        j = rng.choice(w.size, size=n, p=w) if w.size > 1 else np.zeros(n, dtype=int)
        return m[j] + s[j] * rng.standard_normal(n)


class LaplaceSampler:
    def __init__(self, locs, scales):
        self.locs, self.scales = locs, scales

    def __call__(self, dataset, n, rng):
        return rng.laplace(self.locs[dataset], self.scales[dataset], n)


class BinomialSampler:
    def __init__(self, trials, probs):
        self.trials, self.probs = trials, probs

    def __call__(self, dataset, n, rng):
        return rng.binomial(self.trials, self.probs[dataset], n)


# --- the cases: (name, description, δ, profile (symmetric), sampler) --------------------------
def cases():
    rng = np.random.default_rng(2024)
    out = []

    # 1. equal covariance, d = 3, correlated Σ: GDP with μ = Mahalanobis distance
    a = rng.standard_normal((3, 3))
    cov = a @ a.T / 3 + 0.5 * np.eye(3)
    shift = rng.standard_normal(3)
    shift *= 0.6 / math.sqrt(shift @ np.linalg.solve(cov, shift))  # μ = 0.6
    out.append(("equal-covariance", "N(0,Σ) vs N(Δ,Σ), d=3, μ=0.6", 1e-3,
                equal_covariance_profile(np.zeros(3), shift, cov).symmetric(),
                GaussianSampler([np.zeros(3), shift], [cov, cov])))

    # 2. isotropic, different variances, d = 4 (smooth-sensitivity output perturbation)
    m1 = np.array([0.35, 0.0, 0.0, 0.0])
    out.append(("isotropic", "N(0,I₄) vs N(m,1.15²I₄), |m|=0.35", 1e-3,
                IsotropicGaussianProfile(np.zeros(4), 1.0, m1, 1.15).symmetric(),
                GaussianSampler([np.zeros(4), m1], [np.eye(4), 1.15 ** 2 * np.eye(4)])))

    # 3. covariance only, d = 5 (a sketching mechanism): Σ₁ = Σ₀ + rank-2 update
    a = rng.standard_normal((5, 5))
    c0 = a @ a.T / 5 + 0.5 * np.eye(5)
    u = rng.standard_normal((5, 2))
    c1 = c0 + 0.04 * u @ u.T
    out.append(("covariance-only", "N(0,Σ) vs N(0,Σ+0.04UUᵀ), d=5, rank 2", 1e-3,
                GaussianProfile(np.zeros(5), c0, np.zeros(5), c1).symmetric(),
                GaussianSampler([np.zeros(5), np.zeros(5)], [c0, c1])))

    # 4. a Gaussian vs an equal-weight mixture of 1000 Gaussians (one SGLD step: the target
    #    record enters the minibatch with probability 0.1 and shifts the mean by 1.5σ; the
    #    other records spread the component means)
    j = 1000
    means = 0.05 * rng.standard_normal(j) + np.where(np.arange(j) < 100, 1.5, 0.0)
    out.append(("gaussian-vs-mixture", "N(0,1) vs (1/1000)Σ N(mⱼ,1), 10% shifted by 1.5", 1e-3,
                GaussianMixtureProfile(1.0, 0.0, 1.0, np.ones(j), means, 1.0).symmetric(),
                MixtureSampler([([1.0], [0.0], [1.0]), (np.ones(j), means, np.ones(j))])))

    # 5. two mixtures
    law0 = ([0.5, 0.5], [-1.0, 1.0], [1.0, 1.0])
    law1 = ([0.4, 0.6], [-1.0, 1.6], [1.0, 0.8])
    out.append(("two-mixtures", "½N(−1,1)+½N(1,1) vs .4N(−1,1)+.6N(1.6,.8²)", 1e-3,
                GaussianMixtureProfile(*law0, *law1).symmetric(), MixtureSampler([law0, law1])))

    # 6. Laplace shift (pure DP)
    out.append(("laplace-shift", "Lap(0,1) vs Lap(1,1)", 0.0,
                LaplaceProfile(0.0, 1.0, 1.0, 1.0).symmetric(),
                LaplaceSampler([0.0, 1.0], [1.0, 1.0])))

    # 7. Laplace, different locations and scales (no finite pure ε: audited at δ = 1e-3)
    out.append(("laplace-scales", "Lap(0,1) vs Lap(0.5,1.3)", 1e-3,
                LaplaceProfile(0.0, 1.0, 0.5, 1.3).symmetric(),
                LaplaceSampler([0.0, 0.5], [1.0, 1.3])))

    # 8. discrete: Binomial(10, ½) vs Binomial(10, 0.56), pure DP
    from scipy import stats
    k = np.arange(11)
    p, q = stats.binom.pmf(k, 10, 0.5), stats.binom.pmf(k, 10, 0.56)
    out.append(("discrete", "Bin(10,.5) vs Bin(10,.56)", 0.0,
                DiscreteProfile(p, q).symmetric(), BinomialSampler(10, [0.5, 0.56])))
    return out


def _run(args):
    sampler, delta, samples, seed = args
    t = time.perf_counter()
    r = estimate_epsilon_lower_bound(sampler, 0, 1, delta=delta, samples=samples,
                                     confidence=CONFIDENCE, seed=seed)
    return r.epsilon, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--samples", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cases", nargs="*", default=None)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    rows, start = [], time.perf_counter()
    chosen = [c for c in cases() if not args.cases or c[0] in args.cases]
    with process_pool(args.workers) as pool:
        for index, (name, description, delta, profile, sampler) in enumerate(chosen):
            t = time.perf_counter()
            exact = profile.epsilon(delta)
            t_exact = time.perf_counter() - t
            for samples in args.samples:
                seeds = [100_000 * (index + 1) + 1_000 * len(str(samples)) + i
                         for i in range(args.seeds)]
                jobs = [(sampler, delta, samples, s) for s in seeds]
                results = list(pool.map(_run, jobs))
                cert = np.array([r[0] for r in results])
                secs = np.array([r[1] for r in results])
                covered = int(np.sum(cert <= exact))
                ratio = cert / exact
                rows.append([name, description, f"{delta:g}", exact, f"{t_exact:.2g}",
                             f"{samples:.0e}", f"{covered}/{len(cert)}", float(ratio.mean()),
                             float(ratio.min()), float(cert.max()), float(np.median(secs))])
                print(rows[-1], flush=True)
    total = time.perf_counter() - start
    body = (
        f"{args.seeds} seeds per row, samples per side as listed, {CONFIDENCE:.0%} confidence, "
        "pair = both directions.  exact ε = the pair's ε(δ) from its `dpaudit.exact` profile "
        "(seconds to compute it in the next column); coverage = runs with certificate ≤ exact ε "
        "(the guarantee is ≥ 95%); tightness = certificate / exact ε (mean and minimum over "
        f"seeds); s/run = median seconds per audit.  Total {total / 60:.1f} min with "
        f"{args.workers} worker processes.\n\n"
        + markdown_table(["case", "laws", "δ", "exact ε", "exact s", "samples", "coverage",
                          "mean tightness", "min tightness", "max certificate", "s/run"], rows))
    record("Calibration against exact privacy curves (benchmarks/calibration.py)", body,
           write=not args.no_write)


if __name__ == "__main__":
    main()
