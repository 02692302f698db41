"""Reproduction of §6 of Balle, Gomrokchi & Precup (2016): LSW, LSL, DP-LSW, DP-LSL on the chain.

Chain with N = 40 states, p = 0.5, γ = 0.99; ε = δ = 0.1; tabular features and aggregation of
adjacent states; RMSE of V̂ = Φθ̂ against the exact values (dynamic programming) over 20 runs,
with standard errors, as a function of the batch size m, and of the regularisation λ for LSL
(including λ ∝ √m schedules).  Every estimate comes from the registered mechanisms
(``dp-lsw``/``dp-lsl``: θ_X from ``theta_of``, σ_X from ``sigma_of``) applied to the batch
statistics of :meth:`dpaudit.mechanisms.policy_evaluation.chain.ChainMDP.statistics`.

Writes ``reports/policy_evaluation/<initial>/`` for each initial-state distribution (uniform
and "first"; §6 does not say which): ``figure1.png`` (the paper's four panels),
``figure_fmax.png`` (public F_max = 1 vs R_max/(1 − γ) = 100), ``figure_sigma.png`` (σ_X at
the expected signature up to m = 1e9), ``results.json`` (means and
standard errors of every curve), ``results.md`` (tables); appends a summary to
``benchmarks/RESULTS.md``.  The choices where §6 is silent are listed in ``CHOICES`` and in
``reports/policy_evaluation/README.md``.

Run: ``.venv/bin/python benchmarks/policy_evaluation_reproduction.py [--runs R] [--max-m M]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import markdown_table, record  # noqa: E402

from dpaudit.mechanisms.policy_evaluation.chain import ChainMDP  # noqa: E402
from dpaudit.mechanisms.policy_evaluation.mechanisms import DPLSL, DPLSW  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "reports" / "policy_evaluation"
N, P_STAY, GAMMA, EPS, DELTA, R_MAX = 40, 0.5, 0.99, 0.1, 0.1, 1.0
FEATURES = ("tabular", "aggregate-2", "aggregate-4")
BATCHES = (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000)
#: the largest batch per initial distribution: with a uniform start state 0 is visited by 1/40
#: of the trajectories, and DP-LSW's noise only collapses once |X_0| ≈ (2/β) ln|X_0| ≈ 37 000
MAX_BATCH = {"uniform": 3_000_000, "first": 1_000_000}
SQRT_C = (1.0, 10.0, 100.0, 1000.0)     # λ = c·√m
#: the other schedule families compared with λ ∝ √m: λ = c (constant) and λ = c·m
SCHEDULES = {"√m": SQRT_C, "const": (10.0, 100.0, 1e3, 1e4, 1e5), "m": (0.01, 0.1, 1.0, 10.0)}
LAMBDA_GRID = tuple(float(x) for x in np.logspace(0.5, 6.5, 13))  # panel 2 (tabular)
GRID_BATCHES = (1000, 100_000)
CHOICES = {
    "states": "the 40 estimated states are the transient chain states; the absorbing terminal "
              "state is outside 𝒮 (value 0, never reported by a trajectory)",
    "initial": "initial state uniform on the 40 states (p_s = (s + 1)/40)",
    "reward": "reward 1 on the transition into the terminal state, R_max = 1",
    "f_max": "public F_max = 1 (the only reward is a single 1, so every return is ≤ 1); "
             "R_max/(1 − γ) = 100 shown separately (figure_fmax.png): σ_X scales by 100",
    "features": "tabular (d = 40), aggregate-2 (pairs of adjacent states, d = 20) and, for "
                "the 'more aggressive' panel, aggregate-4 (d = 10)",
    "weights": "w_s = 1 (LSW) and ρ_s = 1 (LSL) for every state",
    "lambda": "panel 2: λ on a log grid 10^0.5 … 10^6.5 at m = 1000 and m = 100000; "
              "schedules λ = c√m (c ∈ {1, 10, 100, 1000}), λ = c (c ∈ {10, …, 1e5}) and "
              "λ = c·m (c ∈ {0.01, …, 10}), each floored at 2‖Φ‖²‖ρ‖∞ (the constraint "
              "λ > ‖Φ‖²‖ρ‖∞); panel 4 uses the √m constant with the smallest DP-LSL RMSE at "
              "the largest batch (aggregate-2); panel 1 shows non-private LSL with λ = √m",
    "batches": "nested batches: batch m is the first m trajectories of one stream per run "
               "(m from 10 to 10^6)",
    "rmse": "per run, √(mean over the 40 states of (V̂_s − V_s)²); mean and standard error "
            "over 20 runs",
    "excess_risk": "the algorithm's own objective on its batch: J^w_X(θ̂) − J^w_X(θ^w_X) = "
                   "ηᵀΦᵀΓΦη and J^λ_X(θ̂) − J^λ_X(θ^λ_X) = ηᵀ(ΦᵀΓ_XΦ + λ/(2m)I)η",
    "noise": "one standard normal vector per (run, m, features, algorithm), shared by all λ "
             "(common random numbers)",
    "seeds": "SeedSequence([20160316, run]) for the trajectories, [.., run, m, features, "
             "algorithm] for the noise",
}


def lsl_lambda(family, c, m, floor):
    """λ of a schedule, floored at 2‖Φ‖²‖ρ‖∞ (Algorithm 2 needs λ > ‖Φ‖²‖ρ‖∞)."""
    base = {"√m": c * np.sqrt(m), "const": c, "m": c * m}[family]
    return max(base, 2.0 * floor)


def schedule_key(family, c):
    return {"√m": f"√m×{c:g}", "const": f"const {c:g}", "m": f"m×{c:g}"}[family]


def run(runs: int, batches, initial: str, seed: int = 20160316) -> dict:
    chain = ChainMDP(N, P_STAY, GAMMA, R_MAX, initial)
    values = chain.values()
    common = dict(epsilon=EPS, delta=DELTA, n_states=N, gamma=GAMMA, r_max=R_MAX)
    lsw = {f: DPLSW(features=f, f_max=1.0, **common) for f in FEATURES}
    lsw100 = {f: DPLSW(features=f, **common) for f in FEATURES}  # F_max = R_max/(1 − γ)
    floors = {f: lsw[f].phi_norm_sq if hasattr(lsw[f], "phi_norm_sq")
              else float(np.linalg.norm(lsw[f].phi, 2) ** 2) for f in FEATURES}
    out: dict = {}

    def add(key, m, rmse, risk=None):
        slot = out.setdefault(key, {}).setdefault(m, {"rmse": [], "risk": []})
        slot["rmse"].append(rmse)
        if risk is not None:
            slot["risk"].append(risk)

    for r in range(runs):
        rng = np.random.default_rng(np.random.SeedSequence([seed, r]))
        stats = None
        for mi, m in enumerate(batches):
            grow = m - (stats.m if stats else 0)
            fresh = chain.statistics(grow, rng)
            stats = fresh if stats is None else stats.prefix(fresh)
            for fi, f in enumerate(FEATURES):
                phi = lsw[f].phi
                noise = np.random.default_rng(np.random.SeedSequence([seed, r, mi, fi]))
                eta_w, eta_l = noise.standard_normal((2, phi.shape[1]))
                rmse = lambda th: float(np.sqrt(np.mean((phi @ th - values) ** 2)))  # noqa
                theta = lsw[f].theta_of(stats)
                gram = phi.T @ phi  # Γ = I (w = 1)
                for key, mech in ((f"DP-LSW|{f}", lsw[f]), (f"DP-LSW F=100|{f}", lsw100[f])):
                    step = mech.sigma_of(stats) * eta_w
                    add(key, m, rmse(theta + step), float(step @ gram @ step))
                add(f"LSW|{f}", m, rmse(theta))
                lams = [(schedule_key(fam, c), lsl_lambda(fam, c, m, floors[f]))
                        for fam, cs in SCHEDULES.items() for c in cs]
                if f == "tabular" and m in GRID_BATCHES:
                    lams += [(f"grid {lam:.4g}", lam) for lam in LAMBDA_GRID if lam > 2 * floors[f]]
                gx = stats.counts / m  # ρ = 1
                for name, lam in lams:
                    mech = DPLSL(features=f, f_max=1.0, lam=lam, **common)
                    th = mech.theta_of(stats)
                    step = mech.sigma_of(stats) * eta_l
                    hess = phi.T @ (gx[:, None] * phi) + lam / (2 * m) * np.eye(phi.shape[1])
                    add(f"LSL {name}|{f}", m, rmse(th))
                    add(f"DP-LSL {name}|{f}", m, rmse(th + step), float(step @ hess @ step))
        print(f"run {r + 1}/{runs} done", file=sys.stderr, flush=True)
    summary = {}
    for key, by_m in out.items():
        summary[key] = {}
        for m, slot in sorted(by_m.items()):
            entry = {}
            for metric, vals in slot.items():
                if vals:
                    a = np.asarray(vals)
                    entry[metric] = [float(a.mean()), float(a.std(ddof=1) / np.sqrt(a.size))
                                     if a.size > 1 else 0.0]
            summary[key][str(m)] = entry
    return {"values": values.tolist(), "curves": summary}


def _curve(res, key, metric="rmse"):
    pts = sorted((int(m), v[metric]) for m, v in res["curves"][key].items() if metric in v)
    return (np.array([p[0] for p in pts]), np.array([p[1][0] for p in pts]),
            np.array([p[1][1] for p in pts]))


def best_family_at(res, m, features, prefix="DP-LSL"):
    """{family: (c, mean RMSE)} — the best constant of each λ schedule family at batch m."""
    out = {}
    for fam, cs in SCHEDULES.items():
        vals = {c: res["curves"][f"{prefix} {schedule_key(fam, c)}|{features}"][str(m)]["rmse"][0]
                for c in cs}
        c = min(vals, key=vals.get)
        out[fam] = (c, vals[c])
    return out


def best_schedule(res, features="aggregate-2"):
    """The c of λ = c√m with the smallest DP-LSL RMSE at the largest batch size."""
    m = max(int(k) for k in res["curves"][f"LSW|{features}"])
    return min(SQRT_C, key=lambda c: res["curves"][f"DP-LSL √m×{c:g}|{features}"][str(m)]
               ["rmse"][0])


SIGMA_BATCHES = tuple(int(x) for x in np.logspace(1, 9, 33))


def expected_sigmas(c_best, initial) -> dict:
    """σ_X at the expected signature |X_s| = round(m·p_s), m up to 1e9 (the realised counts
    concentrate around it): where the private estimates can meet the non-private ones."""
    from dpaudit.mechanisms.policy_evaluation.data import BatchStatistics
    chain = ChainMDP(N, P_STAY, GAMMA, R_MAX, initial)
    ps, values = chain.visit_probabilities(), chain.values()
    common = dict(epsilon=EPS, delta=DELTA, n_states=N, gamma=GAMMA, r_max=R_MAX, f_max=1.0)
    out = {}
    for f in FEATURES:
        lsw = DPLSW(features=f, **common)
        floor = float(np.linalg.norm(lsw.phi, 2) ** 2)
        for m in SIGMA_BATCHES:
            counts = np.round(m * ps).astype(np.int64)
            stats = BatchStatistics(m, counts, counts * values)
            lsl = DPLSL(features=f, lam=lsl_lambda("√m", c_best, m, floor), **common)
            out.setdefault(f"DP-LSW|{f}", []).append(lsw.sigma_of(stats))
            out.setdefault(f"DP-LSL √m×{c_best:g}|{f}", []).append(lsl.sigma_of(stats))
    return out


def figures(res, c_best, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def plot(ax, key, label, style="-", metric="rmse"):
        m, mean, se = _curve(res, key, metric)
        ax.errorbar(m, mean, yerr=se, fmt=style, label=label, capsize=2, ms=3)

    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    ax = axes[0, 0]
    for f, mk in (("tabular", "o"), ("aggregate-2", "s")):
        plot(ax, f"LSW|{f}", f"LSW, {f}", f"-{mk}")
        plot(ax, f"LSL √m×1|{f}", f"LSL λ = √m, {f}", f"--{mk}")
    ax.set_title("(1) non-private LSW vs LSL")
    ax = axes[0, 1]
    for mb, mk in zip(GRID_BATCHES, ("o", "s")):
        if str(mb) not in res["curves"]["LSW|tabular"]:
            continue
        keys = sorted((float(k.split()[2].split("|")[0]), k) for k in res["curves"]
                      if k.startswith("LSL grid") and k.endswith("|tabular")
                      and str(mb) in res["curves"][k])
        for prefix, style in (("LSL", "--"), ("DP-LSL", "-")):
            lam = [l for l, _ in keys]
            vals = [res["curves"][prefix + k[3:]][str(mb)]["rmse"] for _, k in keys]
            ax.errorbar(lam, [v[0] for v in vals], yerr=[v[1] for v in vals], fmt=style + mk,
                        ms=3, capsize=2, label=f"{prefix}, m = {mb:g}")
        for prefix, style in (("LSW", ":"), ("DP-LSW", "-.")):
            v = res["curves"][f"{prefix}|tabular"][str(mb)]["rmse"][0]
            ax.axhline(v, ls=style, lw=1, color="grey" if prefix == "LSW" else "k")
    ax.set_xscale("log")
    ax.set_xlabel("λ")
    ax.set_title("(2) tabular, RMSE vs λ (horizontal: LSW dotted, DP-LSW dash-dot)")
    ax = axes[1, 0]
    f = "aggregate-2"
    plot(ax, f"LSW|{f}", "LSW", "-o")
    plot(ax, f"DP-LSW|{f}", "DP-LSW", "-s")
    for c, mk in zip(SQRT_C[1:], "^vD"):
        plot(ax, f"DP-LSL √m×{c:g}|{f}", f"DP-LSL λ = {c:g}√m", f"--{mk}")
    plot(ax, f"LSL √m×{c_best:g}|{f}", f"LSL λ = {c_best:g}√m", ":o")
    ax.axhline(float(np.sqrt(np.mean(np.square(res["values"])))), color="grey", lw=1, ls=":")
    ax.set_title("(3) aggregate-2, RMSE vs batch size (grey: the estimate V̂ = 0)")
    ax = axes[1, 1]
    for f, mk in zip(FEATURES, "os^"):
        plot(ax, f"DP-LSW|{f}", f"DP-LSW, {f}", f"-{mk}", "risk")
        plot(ax, f"DP-LSL √m×{c_best:g}|{f}", f"DP-LSL λ = {c_best:g}√m, {f}", f"--{mk}",
             "risk")
    ax.set_title("(4) excess empirical risk vs batch size")
    for a in axes.ravel():
        a.set_yscale("log")
        if a is not axes[0, 1]:
            a.set_xscale("log")
            a.set_xlabel("batch size m (trajectories)")
        a.legend(fontsize=7)
        a.grid(alpha=0.3)
    axes[0, 0].set_ylabel("RMSE")
    axes[1, 1].set_ylabel("excess empirical risk")
    fig.suptitle(f"Chain N = {N}, p = {P_STAY}, γ = {GAMMA}, initial state {res['initial']}; "
                 f"ε = δ = {EPS}; F_max = 1; mean ± s.e. over {res['runs']} runs")
    fig.tight_layout()
    fig.savefig(out / "figure1.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for f, mk in (("tabular", "o"), ("aggregate-4", "^")):
        plot(ax, f"DP-LSW|{f}", f"DP-LSW F_max = 1, {f}", f"-{mk}")
        plot(ax, f"DP-LSW F=100|{f}", f"DP-LSW F_max = R_max/(1−γ) = 100, {f}", f"--{mk}")
        plot(ax, f"LSW|{f}", f"LSW, {f}", f":{mk}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size m")
    ax.set_ylabel("RMSE")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "figure_fmax.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for key, sig in res["expected_sigma"].items():
        ax.plot(SIGMA_BATCHES, sig, "-" if key.startswith("DP-LSW") else "--",
                label=key.replace("|", ", "))
    ax.axhline(0.01, color="grey", lw=1, ls=":")
    ax.axvline(max(res["batches"]), color="grey", lw=1, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size m (expected signature |X_s| = m·p_s)")
    ax.set_ylabel("σ_X per coordinate")
    ax.set_title("noise scale at ε = δ = 0.1, F_max = 1 (dotted: σ = 0.01; largest simulated m)",
                 fontsize=8)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "figure_sigma.png", dpi=110)
    plt.close(fig)


def tables(res, c_best) -> str:
    ms = [m for m in BATCHES if str(m) in res["curves"]["LSW|tabular"]]
    lines = []
    for f in FEATURES:
        keys = [f"LSW|{f}", f"DP-LSW|{f}", f"DP-LSW F=100|{f}"] + [
            f"{p} √m×{c:g}|{f}" for c in SQRT_C for p in ("LSL", "DP-LSL")]
        rows = []
        for key in keys:
            row = [key.split("|")[0]]
            for m in ms:
                v = res["curves"][key][str(m)]["rmse"]
                row.append(f"{v[0]:.3g} ± {v[1]:.2g}")
            rows.append(row)
        lines.append(f"RMSE, features {f} (mean ± s.e.)\n\n"
                     + markdown_table(["estimator"] + [f"m={m:g}" for m in ms], rows))
    rows = []
    for f in FEATURES:
        for prefix in ("LSL", "DP-LSL"):
            row = [f"{prefix}, {f}"]
            for m in ms:
                best = best_family_at(res, m, f, prefix)
                fam = min(best, key=lambda k: best[k][1])
                row.append(f"{fam} ({best[fam][0]:g}): {best[fam][1]:.3g}")
            rows.append(row)
    lines.append("Best λ schedule family at each m — λ = c√m, λ = c or λ = c·m (the best c in "
                 "parentheses): RMSE\n\n"
                 + markdown_table(["estimator"] + [f"m={m:g}" for m in ms], rows))
    rows = []
    for f in FEATURES:
        for key in (f"DP-LSW|{f}", f"DP-LSL √m×{c_best:g}|{f}"):
            row = [f"{key.split('|')[0]}, {f}"]
            for m in ms:
                v = res["curves"][key][str(m)]["risk"]
                row.append(f"{v[0]:.3g}")
            rows.append(row)
    lines.append("Excess empirical risk (mean over runs)\n\n"
                 + markdown_table(["estimator"] + [f"m={m:g}" for m in ms], rows))
    return "\n\n".join(lines)


def summary(res, c_best) -> str:
    """The condensed table appended to benchmarks/RESULTS.md."""
    ms = [m for m in (1000, 10_000, 100_000, 1_000_000, 3_000_000) if m in res["batches"]]
    rows = []
    for f in ("tabular", "aggregate-2"):
        for key in (f"LSW|{f}", f"LSL √m×1|{f}", f"DP-LSW|{f}", f"DP-LSW F=100|{f}",
                    f"DP-LSL √m×{c_best:g}|{f}"):
            rows.append([key.replace("|", ", ").replace("F=100", "F_max=100")]
                        + [f"{res['curves'][key][str(m)]['rmse'][0]:.3g}" for m in ms])
        row = [f"DP-LSL best λ family, {f}"]
        for m in ms:
            best = best_family_at(res, m, f)
            fam = min(best, key=lambda k: best[k][1])
            row.append(f"{best[fam][1]:.3g} ({fam}, c={best[fam][0]:g})")
        rows.append(row)
    return markdown_table(["mean RMSE"] + [f"m={m:g}" for m in ms], rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--max-m", type=int, default=max(BATCHES),
                    help="cap on the batch sizes (default: 3e6 uniform start, 1e6 'first')")
    ap.add_argument("--initial", choices=("uniform", "first", "both"), default="both",
                    help="initial state distribution (§6 does not say); default: both")
    ap.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    args = ap.parse_args(argv)
    bodies = []
    for initial in (("uniform", "first") if args.initial == "both" else (args.initial,)):
        batches = [m for m in BATCHES if m <= min(args.max_m, MAX_BATCH[initial])]
        out = OUT / initial
        out.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        res = run(args.runs, batches, initial)
        seconds = time.perf_counter() - t0
        c_best = best_schedule(res)
        res["expected_sigma"] = expected_sigmas(c_best, initial)
        res.update({"runs": args.runs, "batches": batches, "seconds": seconds,
                    "best_sqrt_c": c_best, "initial": initial, "choices": CHOICES,
                    "setup": {"N": N, "p": P_STAY, "gamma": GAMMA, "epsilon": EPS,
                              "delta": DELTA}})
        (out / "results.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        figures(res, c_best, out)
        body = (f"Initial state {initial}: {args.runs} runs, batch sizes {batches}, chain "
                f"N = {N}, p = {P_STAY}, γ = {GAMMA}, ε = δ = {EPS}, F_max = 1; best DP-LSL "
                f"schedule λ = {c_best:g}√m; {seconds:.0f} s.\n\n" + tables(res, c_best))
        (out / "results.md").write_text("# Reproduction of §6 (generated by benchmarks/"
                                        "policy_evaluation_reproduction.py)\n\n" + body + "\n",
                                        encoding="utf-8")
        bodies.append(f"Initial state {initial}: {args.runs} runs, {seconds:.0f} s (full tables: "
                      f"reports/policy_evaluation/{initial}/results.md)\n\n"
                      + summary(res, c_best))
    head = (f"Chain N = {N}, p = {P_STAY}, γ = {GAMMA}, ε = δ = {EPS}, public F_max = 1 "
            f"(F_max=100: R_max/(1 − γ)); RMSE of V̂ = Φθ̂ over the 40 states, mean over runs; "
            f"the estimate V̂ = 0 has RMSE 0.707.")
    record("DP policy evaluation: reproduction of §6 "
           "(benchmarks/policy_evaluation_reproduction.py)", head + "\n\n" + "\n\n".join(bodies),
           write=not args.no_record)


if __name__ == "__main__":
    main()
