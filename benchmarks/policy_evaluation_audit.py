"""Evidence for DP-LSW / DP-LSL beyond the CI suite (audits/policy_evaluation.toml).

1. Wall time of the suite at its default samples with ``--workers 2``.
2. Certified ε_LB (black-box and white-box) against the exact ε of every worst-case pair of the
   suite's ε = 10 audits, at 2·10⁶ samples per side (95 % per pair, Bonferroni over the pairs).
3. Lemma 1 itself: the exact ε(δ) of the worst pair its hypotheses allow — N(0, σ²I_d) vs
   N(Δ, σ²e^{±β}I_d) with ‖Δ‖ = min σ/α — for the main-text constants (α, β) and the appendix's
   (α′, β′, where ε ≤ 5 and β′ ≤ ln 2), over a grid of ε, δ, d.
4. The smallest ε at which DP-LSW's pair ``sole-visitor-max-vs-zero`` (equal σ) violates the
   claim, for several δ (bisection on the exact curve).

Run: ``.venv/bin/python benchmarks/policy_evaluation_audit.py [--no-record]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import markdown_table, record  # noqa: E402

from scipy.optimize import brentq  # noqa: E402

from dpaudit.api import run_suites  # noqa: E402
from dpaudit.distinguish.lower_bound import estimate_privacy_curve_lower_bound  # noqa: E402
from dpaudit.exact.gaussian_pairs import IsotropicGaussianProfile  # noqa: E402
from dpaudit.mechanisms.policy_evaluation import estimators as est  # noqa: E402
from dpaudit.mechanisms.registry import create_mechanism  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def suite_time() -> str:
    t0 = time.perf_counter()
    run = run_suites([str(ROOT / "audits" / "policy_evaluation.toml")], workers=2)
    seconds = time.perf_counter() - t0
    met = sum(o.met_expectation for o in run.outcomes)
    return (f"`dpaudit run audits/policy_evaluation.toml --workers 2` (default samples): "
            f"{seconds:.1f} s wall, {len(run.records)} certificates, {met}/{len(run.outcomes)} "
            f"audits met their expectation.")


def tightness(samples: int) -> str:
    rows = []
    deltas = (1e-3, 1e-2)
    for name, extra in (("dp-lsw", {}), ("dp-lsl", {"lam": 4.0})):
        mech = create_mechanism(name, epsilon=10.0, delta=1e-3, n_states=1, f_max=1.0,
                                gamma=0.9, **extra)
        pairs = mech.worst_case_pairs()
        conf = 1 - 0.05 / (2 * len(pairs))
        for j, pair in enumerate(pairs):
            d0, d1 = mech.validate_dataset(pair.d0), mech.validate_dataset(pair.d1)
            found = {}
            for dist in ("auto", "white-box"):
                curve = estimate_privacy_curve_lower_bound(
                    mech.sampler(), d0, d1, deltas=deltas, samples=samples, confidence=conf,
                    seed=1000 + j, distinguisher=dist, log_density=mech.log_density)
                found[dist] = [p.epsilon for p in curve.points]
            for i, dl in enumerate(deltas):
                exact = mech.exact_epsilon(d0, d1, dl)
                rows.append([name, pair.name, dl, 10.0, exact, found["auto"][i],
                             found["white-box"][i],
                             max(found["auto"][i], found["white-box"][i]) / exact])
    return (f"ε = 10, δ_claim = 1e-3, one state, F_max = 1; {samples} samples per side; "
            f"confidence 0.95 per mechanism over its pairs × {{black-box, white-box}}.\n\n"
            + markdown_table(["mechanism", "pair", "δ", "claimed ε", "exact ε", "ε_LB black-box",
                              "ε_LB white-box", "best/exact"], rows))


def worst_lemma1(eps, delta, d, constants):
    values = dict(epsilon=eps, delta=delta, d=d)
    if constants == "main":
        alpha, beta = est.ALPHA(**values), est.BETA(**values)
    else:
        alpha, beta = est.ALPHA_APPENDIX(**values), est.BETA_APPENDIX(**values)
    best = 0.0
    for ratio in (math.exp(beta / 2), math.exp(-beta / 2)):
        shift = min(1.0, ratio) / alpha
        prof = IsotropicGaussianProfile([0.0] * d, 1.0, [shift] + [0.0] * (d - 1), ratio)
        best = max(best, prof.symmetric().epsilon(delta))
    return best, beta


def lemma1_table() -> str:
    rows = []
    for eps in (0.1, 1.0, 5.0, 10.0, 30.0, 60.0, 100.0):
        for delta in (0.1, 1e-3):
            for d in (1, 10):
                main, beta = worst_lemma1(eps, delta, d, "main")
                row = [eps, delta, d, main, main / eps]
                if eps <= 5:
                    app, beta_p = worst_lemma1(eps, delta, d, "appendix")
                    row += [app, app / eps] if beta_p <= math.log(2) else ["—", "—"]
                else:
                    row += ["(ε > 5)", "—"]
                rows.append(row)
    return ("Exact ε(δ) of the worst pair Lemma 1's hypotheses allow (both variance orders, "
            "shift min σ/α); a ratio > 1 is a counterexample.\n\n"
            + markdown_table(["ε", "δ", "d", "exact ε, main (α, β)", "ratio", "exact ε, appendix "
                              "(α′, β′)", "ratio"], rows))


def threshold_table() -> str:
    rows = []
    for delta in (0.1, 1e-2, 1e-3, 1e-5):
        def gap(eps):
            mech = create_mechanism("dp-lsw", epsilon=eps, delta=delta, n_states=1, f_max=1.0)
            pair = mech.worst_case_pairs()[0]
            return mech.exact_epsilon(pair.d0, pair.d1, delta) - eps
        eps_star = brentq(gap, 20.0, 5000.0, xtol=1e-3)
        rows.append([delta, eps_star, gap(2 * eps_star) + 2 * eps_star])
    return ("DP-LSW, one state, pair `sole-visitor-max-vs-zero` (σ_X = σ_X′ = α, shift 1): "
            "smallest claimed ε whose pair has exact ε(δ) above it.\n\n"
            + markdown_table(["δ", "ε* (exact ε = claim)", "exact ε at claim 2ε*"], rows))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=2_000_000)
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args(argv)
    parts = [suite_time(), tightness(args.samples), lemma1_table(), threshold_table()]
    record("DP policy evaluation: audit evidence (benchmarks/policy_evaluation_audit.py)",
           "\n\n".join(parts), write=not args.no_record)


if __name__ == "__main__":
    main()
