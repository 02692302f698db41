"""Figure 2/3-style comparison of the Gaussian mixing paper on data sets bundled with installed
packages (no downloads).

Linear regression (Figure 2 style): scikit-learn's ``load_diabetes`` (442 × 10) and statsmodels'
``randhie`` (20190 × 9, response ``mdvis``).  Methods: LinearMixing (Algorithm 2, both noise
levels: as printed and normalised), AdaSSP (Algorithm 3), Sheffet's algorithm (Algorithm 4)
and Sheffet's algorithm with the paper's analysis (Algorithm 5), against non-private ridge
(λ = 1e-6).  Metric: relative excess test loss (MSE(θ̂) − MSE(θ_np))/MSE(θ_np) over ``--trials``
independent runs (median and mean), and the run time of one run.

Logistic regression (Figure 3 style; objective perturbation belongs here: the paper uses it
only for logistic regression): scikit-learn's ``load_breast_cancer`` (569 × 30), GaussMix's
surrogate pipeline (``gaussmix-logistic``) against objective perturbation (Algorithm 6) and
non-private ``LogisticRegression(penalty=None)``; metric: test accuracy.

Choices where the paper is silent (also in reports/gaussian_mixing/README.md): a random 80/20
split (seed 0); features centred and scaled by the training standard deviations, then every
row divided by the largest training row norm (so C_X = 1, test rows scaled by the same
factor); y centred and divided by its largest training |y| (C_Y = 1); δ = 1e-5; ε ∈ {0.1, 0.3,
1, 3, 10}; k for the sketches by the paper's rule "negligible approximation error": the
smallest k in {50, 100, …, 3200} whose non-private sketched OLS (σ = 0) has median relative
excess test loss ≤ 1% over 20 sketches; for the logistic head k is grid-searched over
{1.5d, 2d, …, 7.5d} for the best mean accuracy at the largest ε, as the paper does (not charged
to the privacy budget, as in the paper).  Accuracy runs use the mechanisms' vectorised samplers
(exact in law, tested against literal runs); run times use one literal run (S drawn
explicitly: O(nkd)) per method, median of 5.

    python benchmarks/gaussian_mixing_regression.py [--trials 50] [--no-write]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from common import markdown_table, record  # noqa: E402

from dpaudit.mechanisms.gaussian_mixing.baselines import (AdaSSP,  # noqa: E402
                                                          ObjectivePerturbation, Sheffet,
                                                          SheffetOurAnalysis)
from dpaudit.mechanisms.gaussian_mixing.regression import (GaussMixLogistic,  # noqa: E402
                                                           LinearMixing)

OUT = Path(__file__).resolve().parents[1] / "reports" / "gaussian_mixing"
EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0)
DELTA = 1e-5
K_GRID = (50, 100, 200, 400, 800, 1600, 3200)


def split_normalise(X, y, seed=0, labels=False):
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(X))
    cut = int(0.8 * len(X))
    tr, te = idx[:cut], idx[cut:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    sd[sd == 0] = 1.0
    Xtr, Xte = (X[tr] - mu) / sd, (X[te] - mu) / sd
    scale = np.linalg.norm(Xtr, axis=1).max()
    Xtr, Xte = Xtr / scale, Xte / scale
    if labels:
        return Xtr, y[tr], Xte, y[te]
    ym = y[tr].mean()
    ys = np.abs(y[tr] - ym).max()
    return Xtr, (y[tr] - ym) / ys, Xte, (y[te] - ym) / ys


def datasets():
    from sklearn.datasets import load_diabetes
    import statsmodels.api as sm
    d = load_diabetes()
    out = {"diabetes (sklearn)": (d.data, d.target)}
    r = sm.datasets.randhie.load_pandas()
    out["randhie (statsmodels)"] = (r.exog.to_numpy(float), r.endog.to_numpy(float))
    return out


def mse(X, y, theta):
    return np.mean((X @ theta.T - y[:, None]) ** 2, axis=0)


def choose_k(Xtr, ytr, Xte, yte, base, rng):
    """The paper's rule: the smallest k whose non-private sketch loses ≤ 1% (median)."""
    J = np.column_stack([Xtr, ytr])
    for k in K_GRID:
        thetas = []
        for _ in range(20):
            M = rng.standard_normal((k, len(J))) @ J
            thetas.append(np.linalg.lstsq(M[:, :-1], M[:, -1], rcond=None)[0])
        rel = (mse(Xte, yte, np.array(thetas)) - base) / base
        if np.median(rel) <= 0.01:
            return k
    return K_GRID[-1]


def timed(fn, repeats=5) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def regression(trials: int, rng) -> tuple[list, dict]:
    rows, curves = [], {}
    for name, (X, y) in datasets().items():
        Xtr, ytr, Xte, yte = split_normalise(X, y)
        d = Xtr.shape[1]
        theta_np = np.linalg.solve(Xtr.T @ Xtr + 1e-6 * np.eye(d), Xtr.T @ ytr)
        base = float(mse(Xte, yte, theta_np[None, :])[0])
        k = choose_k(Xtr, ytr, Xte, yte, base, rng)
        J = np.column_stack([Xtr, ytr])
        methods = {
            "LinearMixing (printed η̃)": lambda e: LinearMixing(epsilon=e, delta=DELTA, k=k),
            "LinearMixing (normalised η̃)": lambda e: LinearMixing(
                epsilon=e, delta=DELTA, k=k, noise_level="normalised"),
            "AdaSSP": lambda e: AdaSSP(epsilon=e, delta=DELTA),
            "Sheffet (Alg. 4)": lambda e: Sheffet(epsilon=e, delta=DELTA, k=k),
            "Sheffet + Lemma 1 (Alg. 5, γ as printed)": lambda e: SheffetOurAnalysis(
                epsilon=e, delta=DELTA, k=k),
            "Sheffet + Lemma 1 (Alg. 5, γ·C²)": lambda e: SheffetOurAnalysis(
                epsilon=e, delta=DELTA, k=k, gamma_units="scaled"),
        }
        curves[name] = {"k": k, "n": len(Xtr), "d": d}
        for label, make in methods.items():
            med, mean = [], []
            for eps in EPSILONS:
                mech = make(eps)
                theta = mech.sample(J, trials, rng)
                rel = (mse(Xte, yte, theta) - base) / base
                med.append(float(np.median(rel)))
                mean.append(float(np.mean(rel)))
            mech = make(EPSILONS[-1])
            literal = getattr(mech, "run_literal", None)
            one = (lambda: literal(J, rng)) if literal else (lambda: mech.sample(J, 1, rng))
            seconds = timed(one)
            curves[name][label] = med
            rows.append([name, label, k] + [round(v, 4) for v in med]
                        + [round(mean[-1], 4), seconds])
    return rows, curves


def logistic(trials: int, rng) -> tuple[list, dict]:
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    data = load_breast_cancer()
    y = np.where(data.target == 1, 1.0, -1.0)
    Xtr, ytr, Xte, yte = split_normalise(data.data, y, labels=True)
    d = Xtr.shape[1]
    J = np.column_stack([Xtr, ytr])
    clf = LogisticRegression(penalty=None, fit_intercept=False, max_iter=5000).fit(Xtr, ytr)
    base = float(np.mean(clf.predict(Xte) == yte))

    def accuracy(theta):
        return np.mean(np.sign(Xte @ theta.T) == yte[:, None], axis=0)
    grid = [int(round(f * d)) for f in np.arange(1.5, 7.51, 0.5)]
    best_k = max(grid, key=lambda kk: float(np.mean(accuracy(GaussMixLogistic(
        epsilon=EPSILONS[-1], delta=DELTA, k=kk).sample(J, trials, rng)))))
    rows, curve = [], {"k": best_k}
    for label, make in {
            "GaussMix surrogate (LinearMixing)": lambda e: GaussMixLogistic(epsilon=e,
                                                                            delta=DELTA,
                                                                            k=best_k),
            "objective perturbation (Alg. 6)": lambda e: ObjectivePerturbation(epsilon=e,
                                                                               delta=DELTA)}.items():
        accs = []
        for eps in EPSILONS:
            accs.append(float(np.mean(accuracy(make(eps).sample(J, trials, rng)))))
        mech = make(EPSILONS[-1])
        literal = getattr(mech, "run_literal", None)
        one = (lambda: literal(J, rng)) if literal else (lambda: mech.sample(J, 1, rng))
        curve[label] = accs
        rows.append([label, best_k if "GaussMix" in label else "—"] + [round(a, 4) for a in accs]
                    + [timed(one)])
    rows.append(["non-private LogisticRegression", "—"] + [round(base, 4)] * len(EPSILONS)
                + [timed(lambda: LogisticRegression(penalty=None, fit_intercept=False,
                                                    max_iter=5000).fit(Xtr, ytr))])
    curve["non-private"] = [base] * len(EPSILONS)
    return rows, curve


def plot(curves, logit) -> None:
    fig, axes = plt.subplots(1, len(curves) + 1, figsize=(5 * (len(curves) + 1), 4))
    for ax, (name, c) in zip(axes, curves.items()):
        for label, values in c.items():
            if isinstance(values, list):
                ax.loglog(EPSILONS, np.maximum(values, 1e-4), marker="o", label=label)
        ax.set_title(f"{name}: n = {c['n']}, d = {c['d']}, k = {c['k']}")
        ax.set_xlabel("ε (δ = 1e-5)")
        ax.set_ylabel("median relative excess test MSE")
        ax.legend(fontsize=7)
    ax = axes[-1]
    for label, values in logit.items():
        if isinstance(values, list):
            ax.semilogx(EPSILONS, values, marker="o", label=label)
    ax.set_title(f"breast_cancer logistic, k = {logit['k']}")
    ax.set_xlabel("ε (δ = 1e-5)")
    ax.set_ylabel("mean test accuracy")
    ax.legend(fontsize=7)
    fig.tight_layout()
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / "figure2.png", dpi=120)


def main() -> None:
    # scikit-learn ≥ 1.8 deprecates penalty=None (the unregularised fit the paper uses)
    warnings.filterwarnings("ignore", category=FutureWarning, module="sklearn")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    rng = np.random.default_rng(20261122)
    rows, curves = regression(args.trials, rng)
    logit_rows, logit = logistic(args.trials, rng)
    plot(curves, logit)
    eps_cols = [f"ε={e:g}" for e in EPSILONS]
    body = (f"{args.trials} trials per point, δ = {DELTA:g}, seed 20261122; figure "
            f"`reports/gaussian_mixing/figure2.png`; {time.perf_counter() - start:.0f} s in "
            "total.\n\nLinear regression — median relative excess test MSE (mean at the largest "
            "ε), and seconds for one literal run at the largest ε (median of 5):\n\n"
            + markdown_table(["data set", "method", "k"] + eps_cols
                             + [f"mean ε={EPSILONS[-1]:g}", "s / run"], rows)
            + "\n\nLogistic regression (breast_cancer, sklearn) — mean test accuracy:\n\n"
            + markdown_table(["method", "k"] + eps_cols + ["s / run"], logit_rows))
    (OUT / "figure2.md").write_text("# Figure 2/3-style comparison (reproduction)\n\n" + body
                                    + "\n", encoding="utf-8")
    record("Gaussian mixing regression comparison (benchmarks/gaussian_mixing_regression.py)",
           body, write=not args.no_write)


if __name__ == "__main__":
    main()
