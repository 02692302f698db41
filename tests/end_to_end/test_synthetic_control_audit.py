"""The synthetic-control audit suite end to end (a subset of its audits, at the suite's own
sample count): expectations met, exact ε consistent with every certified bound, the proved
violations of Theorem 3.10 detected, and `dpaudit check` on the coefficient mechanism."""

import math
from pathlib import Path

from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document
from tests.support import REPO

SUITE = REPO / "audits" / "synthetic_control.toml"
KEEP = {"f-out-n1-small-lambda", "post-data-n1", "f-obj-laplace-n1", "f-obj-gaussian-n1",
        "f-obj-laplace-paper-size", "y-obj-laplace-n1"}


def subset(tmp_path) -> Path:
    head, *blocks = SUITE.read_text(encoding="utf-8").split("[[audit]]")
    kept = [b for b in blocks if b.split('name = "', 1)[1].split('"', 1)[0] in KEEP]
    assert len(kept) == len(KEEP)
    path = tmp_path / "synthetic_control.toml"
    path.write_text(head + "".join("[[audit]]" + b for b in kept), encoding="utf-8")
    return path


def test_suite_subset_meets_expectations(tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(subset(tmp_path)), "--out", str(out), "--workers", "1"]) == 0
    report = read_document(out / "results.json")
    records = report["audits"]
    assert report["summary"]["unmet_expectations"] == []
    flagged = {r["audit"] for r in records if r["verdict"] == "violation"}
    assert flagged == {"f-obj-laplace-n1", "f-obj-gaussian-n1", "f-obj-laplace-paper-size",
                       "y-obj-laplace-n1"}
    for r in records:
        exact = r["exact_epsilon"]
        bounds = [b for b in (r["epsilon_lower_bound"], r["white_box_epsilon_lower_bound"])
                  if b is not None]
        if exact not in (None, "inf"):
            assert max(bounds) <= exact + 1e-9, r["audit"]
        if r["audit"] == "post-data-n1" and r["pair"]["name"] == "post-flip" \
                and r["delta"] == 0.0:
            assert math.isclose(exact, 1.0) and r["white_box_epsilon_lower_bound"] > 0.8
        if r["verdict"] == "violation" and r["audit"].startswith("f-obj-laplace"):
            assert exact == "inf"


def test_dpaudit_check_on_the_coefficients(capsys):
    code = main(["check", "dpsc-out-coefficients", "--params", "n=1", "T=3", "T0=1",
                 "lam=1.0", "--samples", "20000"])
    text = capsys.readouterr().out
    assert code == 0 and "sensitivity  consistent" in text and "calibration  consistent" in text
    assert "0.1179" in text   # √(2T₀/λ) / (4T₀√(8+n)/λ) = √2/12
