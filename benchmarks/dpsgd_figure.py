"""The DP-SGD papers' central comparison: ε(δ) of shuffled vs Poisson batches against σ.

Chua et al. ("How Private are DP-SGD Implementations?", ICML 2024; "Scalable DP-SGD: Shuffling
vs. Poisson Subsampling", NeurIPS 2024) plot, at fixed steps T and δ, the ε of ABLQ with
Poisson subsampling (its dominating pair, what every accountant reports) against a lower bound
on the ε of ABLQ with shuffled batches, over the noise multiplier σ.  This script draws the same
comparison with the dpsgd family's curves (:mod:`dpaudit.mechanisms.dpsgd.curves`) at the sizes
of ``audits/dpsgd.toml`` (n = 1000, b = 10: q = 0.01, T = 100, one epoch, δ = 1e-3):

* Poisson — the PLD bracket of the Poisson pair at discretisation 1e-5 (a band, [optimistic,
  pessimistic]), and the claim users report (dp_accounting's PLDAccountant at its default 1e-4);
* shuffle — Chua et al.'s max-statistic curve of the MoG(2) vs MoG(1) pair (a lower bound on
  the shuffle mechanism's ε), and above it the deterministic-batches Gaussian ε (an upper bound
  on shuffle's ε: shuffle is a mixture over deterministic assignments);
* the certified black-box and white-box lower bounds ε_LB of ``audit_mechanism`` for the
  shuffle and Poisson mechanisms at a few σ (200 000 samples per side, each σ and sampler its
  own audit at 95 % confidence, the suite's seed).

Writes ``reports/dpsgd/figure_epsilon_vs_sigma.png`` and ``results.json`` (every number of the
figure).  ``--no-audits`` skips the certified bounds; ``--redraw`` only redraws the figure
from ``results.json``.  About 4 min on 2 cores (curves ~2.5 min: the Poisson PLD at 1e-5 takes
up to 17 s at small σ; the 8 audits ~70 s).  A black-box ε_LB of 0 is drawn at 1e-3, off the
axis.

    python benchmarks/dpsgd_figure.py [--no-audits] [--samples 200000] [--redraw]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from dpaudit import audit_mechanism  # noqa: E402
from dpaudit.exact import gaussian_epsilon  # noqa: E402
from dpaudit.mechanisms.dpsgd.claim import (  # noqa: E402
    dp_accounting_version, pld_accountant_epsilon)
from dpaudit.mechanisms.dpsgd.curves import poisson_pld_epsilon, shuffle_max_curve  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "reports" / "dpsgd"
N, B, DELTA, SEED = 1000, 10, 1e-3, 20261125
Q, T = B / N, N // B
SIGMAS = tuple(np.round(np.geomspace(0.4, 4.0, 25), 4))
AUDITED = (0.5, 0.8, 1.2, 2.0)


def curves() -> dict:
    out = {"sigma": list(map(float, SIGMAS)), "poisson_lower": [], "poisson_upper": [],
           "pld_accountant": [], "shuffle_max_lower_bound": [], "deterministic": []}
    for s in SIGMAS:
        s = float(s)
        br = poisson_pld_epsilon(s, Q, T, DELTA)
        out["poisson_lower"].append(br.lower)
        out["poisson_upper"].append(br.upper)
        out["pld_accountant"].append(pld_accountant_epsilon(s, Q, T, DELTA))
        out["shuffle_max_lower_bound"].append(shuffle_max_curve(2.0, 1.0, s, T).epsilon(DELTA))
        out["deterministic"].append(gaussian_epsilon(DELTA, 1.0 / s))
    return out


def audits(samples: int) -> list[dict]:
    rows = []
    for sampler in ("shuffle", "poisson"):
        for s in AUDITED:
            start = time.perf_counter()
            res = audit_mechanism(f"dpsgd-{sampler}", params=dict(n=N, batch_size=B,
                                                                  noise_multiplier=s),
                                  delta=DELTA, samples=samples, seed=SEED, workers=2,
                                  expect="consistent")
            rec = res.records[0]
            rows.append({"sampler": sampler, "sigma": s, "samples": samples,
                         "claimed_epsilon": rec.claimed_epsilon,
                         "epsilon_lower_bound": rec.epsilon_lower_bound,
                         "white_box_epsilon_lower_bound": rec.white_box_epsilon_lower_bound,
                         "exact_epsilon": rec.exact_epsilon, "verdict": rec.verdict,
                         "seconds": time.perf_counter() - start})
            print(rows[-1], flush=True)
    return rows


def figure(c: dict, rows: list[dict]) -> None:
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    s = np.asarray(c["sigma"])
    ax.plot(s, c["deterministic"], color="tab:gray", ls=":",
            label="deterministic batches (upper bound on shuffle)")
    ax.plot(s, c["shuffle_max_lower_bound"], color="tab:red",
            label="shuffle: max-statistic pair (Chua et al., lower bound)")
    ax.fill_between(s, c["poisson_lower"], c["poisson_upper"], color="tab:blue", alpha=0.35)
    ax.plot(s, c["pld_accountant"], color="tab:blue",
            label="Poisson: PLD (dp_accounting, the reported claim)")
    for sampler, colour, marker in (("shuffle", "tab:red", "v"), ("poisson", "tab:blue", "v")):
        pts = [r for r in rows if r["sampler"] == sampler]
        if not pts:
            continue
        ax.scatter([r["sigma"] for r in pts], [max(r["epsilon_lower_bound"], 1e-3) for r in pts],
                   marker=marker, color=colour, edgecolor="k", zorder=5,
                   label=f"{sampler}: certified black-box ε_LB (95 %)")
        ax.scatter([r["sigma"] for r in pts],
                   [max(r["white_box_epsilon_lower_bound"] or 0.0, 1e-3) for r in pts],
                   marker="o", facecolor="none", edgecolor=colour, zorder=5,
                   label=f"{sampler}: certified white-box ε_LB (95 %)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-2, None)
    ax.set_xlabel("noise multiplier σ")
    ax.set_ylabel(f"ε at δ = {DELTA:g}")
    ax.set_title(f"ABLQ, n = {N}, b = {B}: q = {Q:g}, T = {T} steps (one epoch)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper right")
    fig.tight_layout()
    fig.savefig(OUT / "figure_epsilon_vs_sigma.png", dpi=130)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-audits", action="store_true")
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--redraw", action="store_true",
                        help="only redraw the figure from reports/dpsgd/results.json")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.redraw:
        saved = json.loads((OUT / "results.json").read_text(encoding="utf-8"))
        figure(saved["curves"], saved["audits"])
        return
    start = time.perf_counter()
    c = curves()
    curve_s = time.perf_counter() - start
    rows = [] if args.no_audits else audits(args.samples)
    figure(c, rows)
    ratio = np.asarray(c["shuffle_max_lower_bound"]) / np.asarray(c["pld_accountant"])
    (OUT / "results.json").write_text(json.dumps({
        "sizes": {"n": N, "batch_size": B, "q": Q, "steps": T, "epochs": 1, "delta": DELTA},
        "dp_accounting": dp_accounting_version(), "curve_seconds": curve_s,
        "curves": c, "shuffle_over_poisson": list(map(float, ratio)), "audits": rows},
        indent=1, default=lambda x: None if x is None or (isinstance(x, float) and
                                                           math.isnan(x)) else float(x)),
        encoding="utf-8")
    print(f"curves {curve_s:.1f} s")
    for k, s in enumerate(c["sigma"]):
        print(f"σ={s:.4g} poisson=[{c['poisson_lower'][k]:.4g}, {c['poisson_upper'][k]:.4g}] "
              f"claim={c['pld_accountant'][k]:.4g} shuffle≥{c['shuffle_max_lower_bound'][k]:.4g}"
              f" det={c['deterministic'][k]:.4g} ratio={ratio[k]:.3g}")


if __name__ == "__main__":
    main()
