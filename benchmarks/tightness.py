"""Tightness of the certified lower bound on the classic and known-bad zoos.

For every zoo entry and its worst-case pairs, the true ε of the pair at δ is computed exactly
(``mechanism.exact_epsilon``; the literature value where that is unavailable), the estimator
is run at the given sample sizes (per side) and 95% confidence, and tightness = certified
lower bound / true ε is reported (median over seeds).  Entries whose true ε is ∞ report the
certified value itself (target ≥ 10 at 10⁶ samples).

    python benchmarks/tightness.py [--samples 1000000 10000000] [--seeds 3] [--no-write]
"""

from __future__ import annotations

import argparse
import math
import statistics

from common import markdown_table, record

from dpaudit import estimate_epsilon_lower_bound
from dpaudit.mechanisms import create_mechanism

#: (mechanism, parameters, δ) — every finite-ε entry has true ε in [0.1, 3]
ZOO = [
    ("laplace", {"epsilon": 0.1}, 0.0),
    ("laplace", {"epsilon": 1.0}, 0.0),
    ("laplace", {"epsilon": 3.0}, 0.0),
    ("gaussian", {"epsilon": 1.0, "delta": 1e-5}, 1e-5),
    ("gaussian", {"epsilon": 1.0, "delta": 1e-3}, 1e-3),
    ("randomized-response", {"epsilon": 0.1}, 0.0),
    ("randomized-response", {"epsilon": 1.0, "k": 4}, 0.0),
    ("geometric", {"epsilon": 0.5}, 0.0),
    ("exponential", {"epsilon": 1.0}, 0.0),
    ("noisy-max-laplace", {"epsilon": 0.5}, 0.0),
    ("noisy-max-exponential", {"epsilon": 0.5}, 0.0),
    ("sparse-vector", {"epsilon": 1.0}, 0.0),
    ("laplace-scale-epsilon", {"epsilon": 0.5}, 0.0),
    ("double-spending", {"epsilon": 0.5}, 0.0),
    ("noisy-max-laplace-value", {"epsilon": 0.5}, 0.0),
    ("noisy-max-exponential-value", {"epsilon": 2.0}, 0.0),
    ("svt-lyu3", {"epsilon": 1.0}, 0.0),
    ("svt-lyu4", {"epsilon": 1.0}, 0.0),
    ("svt-lyu5", {"epsilon": 1.0}, 0.0),
    ("svt-lyu6", {"epsilon": 1.0}, 0.0),
]


#: what limits the entries that miss the tightness targets (mechanism name → reason)
LIMITS = {
    "gaussian": "at δ = 10⁻⁵ the ε-optimal event is a far tail whose d1 probability is of "
                "order 10⁻⁴ (P₁ = 5.6·10⁻⁵: about 45 counts at 10⁶ samples), so the "
                "estimator certifies a more frequent event with a smaller ratio (the price of "
                "certifying a tail probability, not of the event family)",
    "sparse-vector": "the exact ε of the pair is approached only by ⊤/⊥ patterns of small "
                     "probability under both datasets (the last query's ⊤ with the "
                     "threshold noise in its tail); the likelihood-ratio-ordered pattern sets "
                     "trade ratio for frequency",
    "svt-lyu3": "released noisy values: the pair's ε = 3 is a supremum over values of vanishing "
                "probability (the ratio grows towards it only in the tails of the released "
                "values)",
    "svt-lyu4": "as for sparse-vector: the pair's ε is approached on rare ⊤/⊥ patterns",
    "svt-lyu6": "no cutoff: the pair's exact ε is attained on patterns whose probability under "
                "d1 is 10⁻⁴–10⁻⁵ (tens of counts even at 10⁶ samples)",
}


def targets(rows, samples_list) -> str:
    """Which finite-ε entries with true ε in [0.1, 3] meet ≥ 0.90 (10⁶) / ≥ 0.97 (10⁷), and
    ∞-ε entries ≥ 10 at 10⁶; the misses with what limits them."""
    goals = {1_000_000: 0.90, 10_000_000: 0.97}
    lines = []
    for i, n in enumerate(samples_list):
        col = 5 + 2 * i
        if n in goals:
            # true ε in [0.1, 3] up to the exact computation's rounding (3.0000000000008)
            finite = [r for r in rows
                      if math.isfinite(r[3]) and 0.1 - 1e-6 <= r[3] <= 3.0 + 1e-6]
            miss = [r for r in finite if r[col + 1] < goals[n]]
            lines.append(f"- tightness ≥ {goals[n]} at {n:.0e}: {len(finite) - len(miss)}/"
                         f"{len(finite)} finite-ε entries with true ε in [0.1, 3].")
            for r in miss:
                name = r[0].split(" ")[0]
                lines.append(f"  - {r[0]} / {r[1]}: {r[col + 1]:.3f} — "
                             f"{LIMITS.get(name, 'not analysed')}")
        if n == 1_000_000:
            inf = [r for r in rows if math.isinf(r[3])]
            ok = [r for r in inf if r[col] >= 10]
            lines.append(f"- ε = ∞ entries certified ≥ 10 at 10⁶: {len(ok)}/{len(inf)} "
                         f"(smallest {min((r[col] for r in inf), default=float('nan')):.3g}).")
    return "\n".join(lines)


def truth(mech, pair, delta):
    exact = mech.exact_epsilon(pair.d0, pair.d1, delta)
    if exact is not None:
        return float(exact), "exact (pair)"
    lit = mech.true_epsilon()
    if lit is not None:
        return float(lit), "literature"
    return float(mech.claim().epsilon(delta)), "claim"


def _row(mech, name, params, pair, delta, samples_list, seeds):
    true_eps, source = truth(mech, pair, delta)
    row = [f"{name} {params}", pair.name, delta, true_eps, source]
    for n in samples_list:
        vals = [estimate_epsilon_lower_bound(mech.sampler(), pair.d0, pair.d1, delta=delta,
                                             samples=n, confidence=0.95, seed=seed).epsilon
                for seed in range(seeds)]
        med = statistics.median(vals)
        row.append(med)
        row.append(med / true_eps if math.isfinite(true_eps) and true_eps > 0 else "—")
    return row


def run(samples_list, seeds, write):
    rows = []
    for name, params, delta in ZOO:
        mech = create_mechanism(name, **params)
        for pair in mech.worst_case_pairs():
            rows.append(_row(mech, name, params, pair, delta, samples_list, seeds))
            print(" | ".join(map(str, rows[-1])), flush=True)
    header = ["mechanism", "pair", "δ", "true ε", "source"]
    for n in samples_list:
        header += [f"ε_LB @ {n:.0e}", f"tightness @ {n:.0e}"]
    body = (f"Median over {seeds} seeds, 95% confidence, samples per side as in the column "
            "names; every default worst-case pair of each mechanism is listed; true ε = exact ε "
            "of the pair at δ where dpaudit can compute it (for several SVT pairs that value is "
            "a supremum approached only on events of vanishing probability).\n\n"
            + markdown_table(header, rows) + "\n\nTargets (issue 2):\n\n"
            + targets(rows, samples_list))
    record("Tightness of the certified lower bound (benchmarks/tightness.py)", body, write=write)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    run(args.samples, args.seeds, not args.no_write)


if __name__ == "__main__":
    main()
