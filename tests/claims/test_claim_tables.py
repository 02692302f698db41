"""dpaudit.claims.tables: every claim class can be stated as a table (suites, the API, check),
numbers left out come from the audit's params, and plug-ins add notions."""

from __future__ import annotations

import math

import pytest

from dpaudit.claims import GDP, RDP, TCDP, ZCDP, AllOf, ApproxDP, PrivacyProfile, PureDP
from dpaudit.claims.tables import (ClaimTable, ClaimTableError, check_claim_table,
                                   claim_from_table, claim_notions, register_claim_table)


@pytest.mark.parametrize("table, cls", [
    ({"notion": "pure-dp", "epsilon": 1.0}, PureDP),
    ({"notion": "approx-dp", "epsilon": 1.0, "delta": 1e-5}, ApproxDP),
    ({"notion": "zcdp", "rho": 0.5}, ZCDP),
    ({"notion": "gdp", "mu": 1.0}, GDP),
    ({"notion": "tcdp", "rho": 0.1, "omega": 5.0}, TCDP),
    ({"notion": "rdp", "curve": "alpha * rho", "values": {"rho": 0.5}}, RDP),
    ({"notion": "privacy-profile", "profile": "exp(-epsilon)"}, PrivacyProfile),
    ({"notion": "all-of", "claims": [{"notion": "pure-dp", "epsilon": 2.0},
                                     {"notion": "zcdp", "rho": 0.5}]}, AllOf),
])
def test_every_claim_class_has_a_table(table, cls):
    claim = claim_from_table(table)
    assert isinstance(claim, cls) and claim.notion == table["notion"]
    assert math.isfinite(claim.epsilon(1e-5))


def test_the_rdp_and_profile_tables_build_the_curves_they_name():
    rdp = claim_from_table({"notion": "rdp", "curve": "alpha * rho", "values": {"rho": 0.5},
                            "alpha_max": 64})
    assert rdp.rdp(4.0) == pytest.approx(2.0) and rdp.alpha_range == (1.0, 64.0)
    both = claim_from_table({"notion": "all-of", "claims": [
        {"notion": "pure-dp", "epsilon": 2.0}, {"notion": "zcdp", "rho": 0.5}]})
    assert both.epsilon(0.0) == 2.0 and both.epsilon(1e-5) <= 2.0


def test_numbers_left_out_are_read_from_the_params():
    assert claim_from_table({"notion": "pure-dp"}, {"epsilon": 0.5}).epsilon(0.0) == 0.5
    with pytest.raises(ClaimTableError, match="give epsilon in the claim table or in the "
                                              "audit's params"):
        claim_from_table({"notion": "pure-dp"})


@pytest.mark.parametrize("table, fragment", [
    ({"notion": "pure_dp", "epsilon": 1.0}, "did you mean 'pure-dp'"),
    ({"notion": "pure-dp", "eps": 1.0}, "takes the keys notion, epsilon"),
    ({"notion": "pure-dp", "epsilon": "one"}, "must be a number"),
    ({"notion": "rdp", "curve": 3}, "sympy expression as text"),
    ({"notion": "all-of", "claims": []}, "non-empty array"),
    ("pure-dp", "expected a claim table"),
])
def test_a_bad_table_is_one_line_naming_the_problem(table, fragment):
    with pytest.raises(ClaimTableError, match=fragment) as info:
        claim_from_table(table)
    assert "\n" not in str(info.value)


def test_a_plug_in_adds_a_notion():
    table = ClaimTable("test-doubled", ("epsilon",),
                       lambda values: PureDP(2 * values["epsilon"]), doc="twice ε")
    register_claim_table(table)
    assert "test-doubled" in claim_notions()
    assert claim_from_table({"notion": "test-doubled", "epsilon": 1.0}).epsilon(0.0) == 2.0
    assert check_claim_table({"notion": "test-doubled"}) is table
    with pytest.raises(ValueError, match="already taken"):
        register_claim_table(ClaimTable("test-doubled", (), lambda v: PureDP(1.0)))


@pytest.mark.slow
def test_an_accountant_is_a_claim_table_and_takes_the_run_from_the_params():
    pytest.importorskip("dp_accounting")
    table = {"accountant": "dp_accounting:pld", "sample_rate": 0.1, "steps": 10}
    claim = claim_from_table(table, {"noise_multiplier": 1.0, "epsilon": 3.0})
    assert claim.notion == "accountant" and "dp_accounting" in claim.describe()
    assert 2.0 < claim.epsilon(1e-5) < 4.0
    explicit = claim_from_table({"notion": "accountant", **table, "noise_multiplier": 1.0})
    assert explicit.epsilon(1e-5) == claim.epsilon(1e-5)
    with pytest.raises(ClaimTableError, match="noise_multiplier"):
        claim_from_table(table)
    with pytest.raises(ClaimTableError, match="unknown accountant"):
        claim_from_table({"accountant": "opacus:gpd", "noise_multiplier": 1.0,
                          "sample_rate": 0.1, "steps": 10})


def test_an_accountant_table_inherits_one_key_of_each_group_of_alternatives():
    """steps | epochs and sample_rate | batch_size say one thing two ways: the table's own
    key wins over the params' alternatives, the params' first key of a group wins over the
    rest, and a parameter left unset (None) is not inherited."""
    from dpaudit.claims.tables import claim_table, inherited_values

    row = claim_table("accountant")
    params = {"noise_multiplier": 1.0, "batch_size": 1, "steps": 10, "epochs": 1,
              "relation": "add-remove", "sampler": None}
    # the table states epochs: neither steps nor epochs comes from the params
    assert inherited_values(row, {"accountant": "x", "epochs": 2}, params) == {
        "noise_multiplier": 1.0, "batch_size": 1, "relation": "add-remove"}
    # nothing stated: steps (first of its group) and not epochs; sampler None is left out
    assert inherited_values(row, {"accountant": "x"}, params) == {
        "noise_multiplier": 1.0, "batch_size": 1, "steps": 10, "relation": "add-remove"}
    # steps unset: epochs is inherited in its place
    assert inherited_values(row, {"accountant": "x"}, {**params, "steps": None})["epochs"] == 1
    # the table's sample_rate keeps the params' batch_size out
    assert "batch_size" not in inherited_values(row, {"accountant": "x", "sample_rate": 0.1},
                                                params)
    pytest.importorskip("dp_accounting")
    claim = claim_from_table({"accountant": "dp_accounting:rdp", "sample_rate": 0.1},
                             params)
    assert claim.params.steps == 10 and claim.params.sample_rate == 0.1
