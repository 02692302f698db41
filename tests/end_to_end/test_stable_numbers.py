"""Stable numbers (README "Stable numbers"): with [suite] family_size fixed, adding or
reordering an audit leaves every other audit's certificates bit-identical, end to end."""

from __future__ import annotations

import textwrap

from dpaudit.api import run_suites
from tests.support import without_timings

HEAD = """
[suite]
name = "stable"
family_size = 16
samples = 3000
seed = 7
"""
LAPLACE = """
[[audit]]
name = "laplace"
mechanism = "laplace"
delta = [0.0, 0.01]
"""
BUG = """
[[audit]]
name = "scale-bug"
mechanism = "laplace-scale-epsilon"
params = { epsilon = 0.5 }
expect = "violation"
"""
NEW = """
[[audit]]
name = "geometric"
mechanism = "geometric"
"""


def numbers(run) -> dict:
    """Every certificate's numbers by (audit, pair, δ/α), without timings."""
    out = {}
    for r in run.records:
        data = without_timings(r.to_json())
        key = (r.audit, r.pair_name, r.notion, r.delta, r.alpha)
        out[key] = {k: v for k, v in data.items() if k not in ("audit_index", "warnings")}
    return out


def run_text(tmp_path, name: str, *parts: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(HEAD + "".join(parts)), encoding="utf-8")
    return run_suites([str(path)], workers=1)


def test_adding_and_reordering_audits_leaves_the_others_bit_identical(tmp_path):
    before = numbers(run_text(tmp_path, "before", LAPLACE, BUG))
    after = numbers(run_text(tmp_path, "after", NEW, BUG, LAPLACE))  # added and reordered
    assert set(before) < set(after)
    for key, value in before.items():
        assert after[key] == {**value, "suite_file": after[key]["suite_file"]}, key
