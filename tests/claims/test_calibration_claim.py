"""A noise calibration as a claim (dpaudit/claims/accountants/calibration.py): the σ is the
library's, the claim is the budget it was asked for, and every failure is one line."""

from __future__ import annotations

import math

import pytest

from dpaudit.claims.accountants import (AccountantError, AccountingParameters,
                                        CalibrationFailed, calibrated_claim, calibrating,
                                        get_accountant)
from dpaudit.claims.accountants import registry

pytest.importorskip("dp_accounting", reason="the test extra installs dp_accounting")

RUN = AccountingParameters(1.0, 0.1, 10)        # σ ignored by a calibration


@pytest.mark.slow
def test_the_claim_is_the_budget_at_the_sigma_the_library_returned():
    claim = calibrated_claim("dp_accounting:rdp", RUN, 2.0, 1e-5)
    assert claim.notion == "calibration"
    assert claim.epsilon(1e-5) == claim.epsilon(1e-3) == 2.0 and claim.epsilon(1e-6) == math.inf
    sigma = claim.noise_multiplier
    assert claim.params == AccountingParameters(sigma, 0.1, 10)
    # dp_accounting's bisection meets the target from above in σ: ε(σ) ≤ target, just
    reported = get_accountant("dp_accounting:rdp").epsilon(claim.params, 1e-5)
    assert 2.0 - 1e-3 < reported <= 2.0 + 1e-9
    assert f"σ = {sigma:.6g} for ε = 2 at δ = 1e-05" in claim.describe()
    data = claim.to_dict()
    assert data["noise_multiplier"] == sigma and data["accountant"] == "dp_accounting:rdp"
    assert data["parameters"]["target_epsilon"] == 2.0


def test_what_cannot_be_calibrated_is_one_line():
    assert "prv_accountant" not in calibrating() and "dp_accounting:pld" in calibrating()
    with pytest.raises(AccountantError, match="has no noise calibration"):
        calibrated_claim("prv_accountant", RUN, 2.0, 1e-5)
    with pytest.raises(AccountantError, match="target_epsilon"):
        calibrated_claim("dp_accounting:rdp", RUN, 0.0, 1e-5)
    with pytest.raises(AccountantError, match="target_delta"):
        calibrated_claim("dp_accounting:rdp", RUN, 2.0, 0.0)
    with pytest.raises(AccountantError, match="does not support"):   # the library's own no
        calibrated_claim("dp_accounting:rdp", AccountingParameters(
            1.0, 0.1, 10, relation="replace-one"), 2.0, 1e-5)


def test_a_library_failure_is_calibration_failed(monkeypatch):
    from dpaudit.claims.accountants.dp_accounting_accountants import DpAccountingAccountant

    class Failing(DpAccountingAccountant):
        def noise_multiplier(self, params, target_epsilon, delta):
            raise RuntimeError("no bracket found")

    monkeypatch.setitem(registry.ACCOUNTANTS, "failing:rdp", Failing("rdp"))
    with pytest.raises(CalibrationFailed, match="RuntimeError: no bracket found") as info:
        calibrated_claim("failing:rdp", RUN, 2.5, 1e-5)
    assert "\n" not in str(info.value)
