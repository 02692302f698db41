"""Accountants and calibration against the bracketed curves (dpaudit/conformance/): the verdicts
follow the bracket, a library's rejection or failure is one row that stops nothing, and the
shipped grid holds what its docstring says."""

from __future__ import annotations

import json
import math

import pytest

from dpaudit.claims.accountants import AccountingParameters, Relation, Sampler
from dpaudit.claims.accountants import registry
from dpaudit.claims.accountants.base import Accountant
from dpaudit.conformance import (RunPoint, Verdict, check_accountant, check_calibration, judge,
                                 run_conformance, shipped_calibrations, shipped_points)
from dpaudit.exact import gaussian_epsilon

pytest.importorskip("dp_accounting", reason="the test extra installs dp_accounting")

#: dp_accounting issue 378: full batches under replace-one, where the curve is closed-form
SWAP = RunPoint(AccountingParameters(2.0, 1.0, 1, relation="replace-one",
                                     sampler="full-batch"), 1e-5)


def test_judge_compares_with_both_ends():
    assert judge(0.9, 1.0, 1.1) is Verdict.UNDER_REPORTS
    assert judge(1.0, 1.0, 1.1) is Verdict.WITHIN
    assert judge(1.1, 1.0, 1.1) is Verdict.CONSISTENT
    assert judge(5.0, 1.0, math.inf) is Verdict.WITHIN


def test_judge_is_the_exact_curve_checks_violation_rule():
    """Under-reporting is the seam's verdict on the same evidence: the bracket's lower end
    less its floating-point tolerance above the number (so a suite row of kind exact-curve
    and `dpaudit accountants` cannot disagree on one run)."""
    from dpaudit.conformance.verdicts import bracket_evidence
    from dpaudit.evidence.exact_curve import EXACT_TOLERANCE

    evidence = bracket_evidence(1.0, 1.1, 1e-5)
    assert evidence.bound == pytest.approx(1.0 - EXACT_TOLERANCE)
    assert judge(1.0 - EXACT_TOLERANCE / 2, 1.0, 1.1) is Verdict.WITHIN
    assert judge(1.0 - 2 * EXACT_TOLERANCE, 1.0, 1.1) is Verdict.UNDER_REPORTS
    assert "∈ [1, 1.1]" in evidence.describe()


@pytest.mark.slow
def test_rdp_under_replace_one_is_half_the_gaussian_shift_and_pld_is_exact():
    """GaussianDpEvent(σ) sums values of norm ≤ C with noise σC: under replace-one the sum
    moves by 2C, the exact ε is the Gaussian shift 2/σ; dp_accounting's RDP accountant
    reports the shift 1/σ (its issue 378), its PLD accountant the right one."""
    rdp = check_accountant("dp_accounting:rdp", SWAP)
    pld = check_accountant("dp_accounting:pld", SWAP)
    exact = gaussian_epsilon(1e-5, 2 / 2.0)
    assert rdp.lower == rdp.upper == pytest.approx(exact, abs=1e-12)
    assert rdp.verdict is Verdict.UNDER_REPORTS and rdp.reported < 0.55 * exact
    assert rdp.shortfall == pytest.approx(1 - rdp.reported / exact)
    assert pld.verdict in (Verdict.WITHIN, Verdict.CONSISTENT)
    assert pld.reported == pytest.approx(exact, abs=1e-3)
    assert "under-reports" in rdp.describe() and "% below the lower end" in rdp.describe()
    d = rdp.to_dict()
    assert d["verdict"] == "under-reports" and d["point"]["relation"] == "replace-one"
    json.dumps(d)


class _Broken(Accountant):
    name = "broken:crash"
    distribution = "dp-accounting"
    module = "dp_accounting"
    source = "a test double that raises"
    relations = (Relation.REPLACE_ONE,)
    samplers = (Sampler.FULL_BATCH,)

    def compute(self, params, delta):
        raise ZeroDivisionError("inside the library")


class _Missing(Accountant):
    name = "missing:lib"
    distribution = "no-such-distribution"
    module = "no_such_module_dpaudit"
    source = "nothing"

    def compute(self, params, delta):  # pragma: no cover - never reached
        return 0.0


def test_a_failing_or_missing_library_is_one_row_and_the_others_go_on(monkeypatch):
    monkeypatch.setitem(registry.ACCOUNTANTS, "broken:crash", _Broken())
    monkeypatch.setitem(registry.ACCOUNTANTS, "missing:lib", _Missing())
    rows = run_conformance(["broken:crash", "missing:lib", "prv_accountant", "dp_accounting:rdp"],
                           [SWAP])
    verdicts = [r.verdict for r in rows]
    assert verdicts == [Verdict.ERROR, Verdict.REJECTED, Verdict.REJECTED,
                        Verdict.UNDER_REPORTS]
    assert "ZeroDivisionError: inside the library" in rows[0].message
    assert "needs no-such-distribution" in rows[1].message
    assert "\n" not in rows[0].describe() + rows[1].describe()


def test_calibration_is_judged_at_the_sigma_it_returns():
    point = RunPoint(AccountingParameters(1.0, 1.0, 4, relation="replace-one",
                                          sampler="full-batch"), 1e-5)
    row = check_calibration("dp_accounting:rdp", point, 2.0)
    # RDP calibrates the shift 1/σ; the run's shift is 2/σ: it over-spends
    assert row.verdict is Verdict.UNDER_REPORTS and row.lower > 2.0
    assert row.lower == pytest.approx(gaussian_epsilon(1e-5, 2 * 2 / row.sigma), abs=1e-9)
    add = RunPoint(AccountingParameters(1.0, 1.0, 4, sampler="full-batch"), 1e-5)
    ok = check_calibration("dp_accounting:rdp", add, 2.0)
    assert ok.verdict is Verdict.CONSISTENT and ok.upper <= 2.0
    assert check_calibration("prv_accountant", add, 2.0).verdict is Verdict.REJECTED


def test_shipped_grid_is_what_its_docstring_says():
    points = shipped_points()
    poisson = [p for p in points if p.params.sampler.value == "poisson"]
    assert len(poisson) == 13 and len(points) == 13 + 8
    assert {p.delta for p in points} == {1e-5}
    cal = shipped_calibrations()
    assert len(cal) == 17 and sum(name == "dp_accounting:pld" for name, _, _ in cal) == 1


@pytest.mark.slow  # Opacus (torch) and the Poisson PLD bracket: ~15 s
def test_opacus_gdp_under_reports_at_issue_35s_parameters():
    pytest.importorskip("opacus", reason="the opacus extra (torch) is not installed")
    point = RunPoint(AccountingParameters(1.0, 0.1, 10), 1e-5)
    gdp = check_accountant("opacus:gdp", point)
    prv = check_accountant("opacus:prv", point)
    assert gdp.verdict is Verdict.UNDER_REPORTS
    assert gdp.reported == pytest.approx(1.6177, abs=1e-3)
    assert 2.853 < gdp.lower <= 2.8545 <= gdp.upper < 2.856
    assert prv.verdict is Verdict.CONSISTENT
