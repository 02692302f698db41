"""The classic and known-bad zoo, end to end at CI-sized sample counts: every correct
mechanism passes, every published bug is flagged, and the report is self-consistent."""

import math

from dpaudit.cli.commands import main
from dpaudit.report.results_file import read_document
from dpaudit.stats.epsilon import epsilon_from_counts
from tests.support import REPO

SUITE = REPO / "audits" / "classic.toml"


def test_classic_suite_meets_every_expectation(tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(SUITE), "--out", str(out), "--samples", "200000"]) == 0
    report = read_document(out / "results.json")
    records = report["audits"]
    assert report["summary"]["unmet_expectations"] == [] and records
    bugs = {r["audit"] for r in records if r["expect"] == "violation"}
    flagged = {r["audit"] for r in records if r["verdict"] == "violation"}
    assert bugs == flagged  # every known bug found, nothing else flagged
    family = report["suites"][0]["family_size"]
    # one curve certificate per (audit, pair), two where a white-box one was added
    groups = {(r["audit"], r["pair"]["name"]): r["white_box_certificate"] is not None
              for r in records}
    assert report["suites"][0]["tests"] == sum(1 + white for white in groups.values()) <= family
    for r in records:
        cert = r["certificate"]
        # the certified number can be recomputed by hand from the stored counts
        again = epsilon_from_counts(cert["k_numerator"], cert["n_numerator"],
                                    cert["k_denominator"], cert["n_denominator"],
                                    delta=r["delta"], significance=cert["per_bound_significance"])
        assert again == r["epsilon_lower_bound"]
        # Bonferroni: the suite's 5% is split over its tests, each test's share over its
        # looks (dpaudit.stats.sequential: a look below the budget spends α·n/(2N), the look
        # at the budget what is left), then over the look's 2K bounds
        test_alpha = (1 - report["suites"][0]["confidence"]) / family
        spent = cert["per_bound_significance"] * cert["family_size"]
        seq = r["sequential"]
        if seq["samples"] < seq["budget"]:
            assert math.isclose(spent, test_alpha * seq["samples"] / (2 * seq["budget"]),
                                rel_tol=1e-9)
        else:
            earlier = sum(test_alpha * n / (2 * seq["budget"]) for n in seq["looks"][:-1])
            assert math.isclose(spent, test_alpha - earlier, rel_tol=1e-9)
        exact = r["exact_epsilon"]
        if exact not in (None, "inf"):
            assert r["epsilon_lower_bound"] <= exact + 1e-9
            if r["white_box_epsilon_lower_bound"] is not None:
                assert r["white_box_epsilon_lower_bound"] <= exact + 1e-9
