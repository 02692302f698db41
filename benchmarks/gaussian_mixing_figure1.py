"""Reproduction of the Gaussian mixing paper's Figure 1, with the exact curve added.

Figure 1 plots, against λ̄_min + σ² (here with C = 1, so the x-axis is γ), the ε_DP that
GaussMix reaches at δ by (i) Lemma 1 converted by Proposition 1 (CKS, optimised over
α ∈ (1, γ)) and (ii) Sheffet's 2019 bound ε = 2√(2k ln(4/δ))/γ + 2 ln(4/δ)/γ, and their ratio.
The paper states neither k nor δ; this script uses δ = 1e-5 and k ∈ {1, 10, 100, 1000}.
dpaudit also knows the exact ε(δ) of the paper's tightness pair (XᵀX = C²I, the removed row
any unit row; :mod:`dpaudit.mechanisms.gaussian_mixing.sketch_profiles`), plotted as a third curve: it is what any valid
analysis of GaussMix must stay above.

Every number comes from the mechanism's own claims (``GaussMix(claim=...)``, formulas from
``proofs/certificates/gaussian_mixing.json``) and ``exact_epsilon``.  Writes
``reports/gaussian_mixing/figure1.png`` and ``figure1.md`` (a table); also appends a section to
``benchmarks/RESULTS.md`` unless ``--no-write``.

    python benchmarks/gaussian_mixing_figure1.py [--delta 1e-5] [--no-write]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from common import markdown_table, record  # noqa: E402

from dpaudit.mechanisms.gaussian_mixing.gaussmix import GaussMix  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "reports" / "gaussian_mixing"
KS = (1, 10, 100, 1000)


def curves(k: int, gammas: np.ndarray, delta: float) -> dict:
    """ε_DP(γ) by Lemma 1 + Prop. 1, by Sheffet 2019, and the exact ε of the tightness pair."""
    out = {"lemma1": [], "sheffet": [], "exact": []}
    for g in gammas:
        lemma = GaussMix(k=k, gamma=float(g), claim="lemma1", dim=1)
        sheffet = GaussMix(k=k, gamma=float(g), claim="sheffet2019", dim=1)
        pair = lemma.worst_case_pairs()[0]
        out["lemma1"].append(lemma.claim().epsilon(delta))
        out["sheffet"].append(sheffet.claim().epsilon(delta))
        out["exact"].append(lemma.exact_epsilon(pair.d0, pair.d1, delta))
    return {key: np.asarray(v) for key, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    gammas = np.unique(np.concatenate([np.geomspace(1.02, 1e4, 60), np.linspace(1.02, 4.0, 150)]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    rows = []
    colours = dict(zip(KS, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    for k in KS:
        c = curves(k, gammas, args.delta)
        col = colours[k]
        axes[0].loglog(gammas, c["lemma1"], color=col, label=f"k={k}: Lemma 1 + Prop. 1")
        axes[0].loglog(gammas, c["sheffet"], color=col, ls="--", label=f"k={k}: Sheffet 2019")
        axes[0].loglog(gammas, c["exact"], color=col, ls=":", label=f"k={k}: exact (tight pair)")
        ratio = c["lemma1"] / c["sheffet"]
        axes[1].loglog(gammas, ratio, color=col, label=f"k={k}")
        worse = gammas[ratio > 1]
        invalid = gammas[c["exact"] > c["sheffet"] * (1 + 1e-9)]
        valid_worse = gammas[(ratio > 1) & (c["exact"] <= c["sheffet"])]
        for g in (2.0, 10.0, 100.0, 1000.0):
            i = int(np.argmin(np.abs(gammas - g)))
            rows.append([k, round(float(gammas[i]), 3), float(c["lemma1"][i]),
                         float(c["sheffet"][i]), float(c["exact"][i]), float(ratio[i])])
        span = lambda a: f"γ ∈ [{a.min():.3g}, {a.max():.3g}]" if a.size else "nowhere"  # noqa
        rows.append([k, "Lemma 1 > Sheffet on", span(worse), "", "", ""])
        rows.append([k, "Sheffet < exact (invalid) on", span(invalid), "", "", ""])
        rows.append([k, "Lemma 1 > a valid Sheffet on", span(valid_worse), "", "", ""])
    axes[0].set_xlabel("λ̄_min + σ²  (C = 1, i.e. γ)")
    axes[0].set_ylabel(f"ε_DP at δ = {args.delta:g}")
    axes[0].legend(fontsize=6, ncol=2)
    axes[0].set_title("(a) ε_DP reached")
    axes[1].axhline(1.0, color="grey", lw=0.8)
    axes[1].set_xlabel("λ̄_min + σ²  (C = 1)")
    axes[1].set_ylabel("ε(Lemma 1 + Prop. 1) / ε(Sheffet 2019)")
    axes[1].set_title("(b) ratio")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / "figure1.png", dpi=130)
    header = ["k", "γ = λ̄+σ²", "ε Lemma 1+Prop.1", "ε Sheffet 2019", "ε exact (pair)",
              "ratio L1/Sheffet"]
    table = markdown_table(header, rows)
    body = (f"δ = {args.delta:g}, C = 1; k and δ are not stated in the paper.  Figure: "
            f"`reports/gaussian_mixing/figure1.png`.  {time.perf_counter() - start:.1f} s.\n\n"
            + table)
    (OUT / "figure1.md").write_text("# Figure 1 (reproduction)\n\n" + body + "\n",
                                    encoding="utf-8")
    record("Gaussian mixing Figure 1 (benchmarks/gaussian_mixing_figure1.py)", body,
           write=not args.no_write)


if __name__ == "__main__":
    main()
