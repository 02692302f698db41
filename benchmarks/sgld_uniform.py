"""Does SGLD with *uniform* minibatches (eq. 3's i_j ~ uniform{1..n}) leak like the cyclic scheme?

The uniform scheme has no finite closed form (its law is a mixture over 2^T index patterns), so
the audit is black-box on the step-by-step simulator: certified ε_LB at δ = 0.01 (confidence
0.95 per row, Bonferroni over the rows) on the audited instance of ``audits/sgld.toml`` (n = 2000)
for a few T, next to the cyclic scheme's exact ε and the posterior's claim.  Too slow for the CI
suite (T steps per output); recorded in RESULTS.md.

Run: ``.venv/bin/python benchmarks/sgld_uniform.py [--samples N] [--no-write]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import markdown_table, record  # noqa: E402
from dpaudit import estimate_epsilon_lower_bound  # noqa: E402
from dpaudit.suite.spec import load_suite  # noqa: E402
from dpaudit.mechanisms.registry import create_mechanism  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
STEPS = (6000, 16000, 26000, 50000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=40000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    audit = next(a for a in load_suite(REPO / "audits" / "sgld.toml").audits
                 if a.name == "sgld-interim-leak")
    params = {k: v for k, v in audit.params.items() if k != "minibatch"}
    rows = []
    confidence = 1 - 0.05 / len(STEPS)
    for t in STEPS:
        uniform = create_mechanism("sgld", **params, steps=t, minibatch="uniform")
        cyclic = create_mechanism("sgld", **params, steps=t)
        pair = uniform.worst_case_pairs()[0]
        d0, d1 = uniform.validate_dataset(pair.d0), uniform.validate_dataset(pair.d1)
        start = time.perf_counter()
        lb = estimate_epsilon_lower_bound(uniform.sampler(), d0, d1, delta=0.01,
                                          samples=args.samples, confidence=confidence,
                                          seed=t, distinguisher="statistics")
        seconds = time.perf_counter() - start
        claim = uniform.claim().epsilon(0.01)
        rows.append([t, lb.epsilon, cyclic.exact_epsilon(d0, d1, 0.01), claim,
                     "violation" if lb.epsilon > claim else "consistent", seconds])
    body = f"""
Uniform minibatches (simulated step by step), n = 2000 instance of `audits/sgld.toml`,
{args.samples} samples per side, δ = 0.01, confidence 0.95 jointly over the {len(STEPS)} rows:

{markdown_table(["T", "uniform: certified ε_LB", "cyclic: exact ε", "posterior claim",
                 "uniform verdict", "s"], rows)}
"""
    record("SGLD: uniform minibatches (black-box)", body, write=not args.no_write)


if __name__ == "__main__":
    main()
