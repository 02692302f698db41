"""audits/accountants.toml and audits/external/opacus_accountants.toml: the accountants audited
through the seam.  They parse, the default one is in the default run, their rows are exactly the
grid `dpaudit accountants --grid` checks (runs × accountants, and its calibrations), a few rows
of each kind run to their expected verdicts (the certified issue-378 pair among them), and the
full-batch rows' expectations are what the conformance path says of the same runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpaudit.claims.accountants import ACCOUNTANTS, AccountantError, AccountingParameters
from dpaudit.conformance import shipped_calibrations, shipped_points
from dpaudit.suite.spec import load_suite

pytest.importorskip("dp_accounting", reason="the test extra installs dp_accounting")

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "audits" / "accountants.toml"
OPACUS = ROOT / "audits" / "external" / "opacus_accountants.toml"
#: the accountants each file checks
CHECKS = {DEFAULT: ("dp_accounting:rdp", "dp_accounting:pld", "prv_accountant", "autodp:rdp"),
          OPACUS: ("opacus:rdp", "opacus:prv", "opacus:gdp")}
#: the calibrations each file checks (dp_accounting's PLD calibration, 7 s of CPU, is outside
#: the default run)
CALIBRATES = {DEFAULT: ("dp_accounting:rdp",), OPACUS: CHECKS[OPACUS] + ("dp_accounting:pld",)}
#: the grid's σ of the Poisson add/remove runs and calibration targets each file keeps (the
#: default run leaves out σ = 0.8 and ε = 8, the costliest curves)
SIGMAS = {DEFAULT: (1.0, 2.0), OPACUS: (0.8, 1.0, 2.0)}
TARGETS = {DEFAULT: (1.0, 2.0, 3.0), OPACUS: (1.0, 2.0, 3.0, 8.0)}


def _kept(path, params: AccountingParameters) -> bool:
    """Whether the file keeps the grid's run ``params`` (SIGMAS)."""
    from dpaudit.claims.accountants import Relation, Sampler

    poisson = params.sampler is Sampler.POISSON and params.relation is Relation.ADD_REMOVE
    return not poisson or params.noise_multiplier in SIGMAS[path]


def _table(path) -> dict:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def _points(path):
    """(audit table, params, expect) of every exact-curve point of the suite, read from the
    TOML (loading the suite builds every point's mechanism: the calibrations would run)."""
    out = []
    for audit in _table(path)["audit"]:
        if audit.get("kind") != "exact-curve":
            continue
        ((key, values),) = audit.get("sweep", {"": [None]}).items()
        for value in values:
            params = dict(audit["params"], **({key: value} if key else {}))
            out.append((audit, params, audit.get("expect", "consistent")))
    return out


def _run_of(mechanism: str, params: dict) -> AccountingParameters:
    """The run a row's mechanism states, without building its claim (no library call)."""
    from dpaudit.mechanisms.dpsgd.run import accounting_parameters
    from dpaudit.mechanisms.registry import create_mechanism

    build = {k: v for k, v in params.items() if k not in ("target_epsilon", "target_delta")}
    if "target_epsilon" in params:
        build["noise_multiplier"] = 1.0     # the calibration's σ is not the run's key here
    m = create_mechanism(mechanism, **build)
    return accounting_parameters(params["accountant"], sigma=m.noise_multiplier, q=m.q,
                                 steps=m.steps, relation=m.relation_name)


def test_the_default_suite_is_in_the_default_run_and_needs_the_main_jobs_extras():
    import tomllib

    from dpaudit.cli.run import expand_suite_paths

    paths, _ = expand_suite_paths([str(DEFAULT.parent)])
    assert DEFAULT in [Path(p).resolve() for p in paths]
    assert OPACUS not in [Path(p).resolve() for p in paths]
    table = _table(DEFAULT)
    pair_rows = [a for a in table["audit"] if a.get("kind", "pair") == "pair"]
    assert [a["name"] for a in pair_rows] == ["issue-378-certified"]
    assert 2 * len(pair_rows) <= table["suite"]["family_size"]
    requires = set(table["suite"]["requires"])
    ml = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["ml"]
    installs = {"dp_accounting": "dp-accounting", "prv_accountant": "prv-accountant",
                "autodp": "autodp"}
    assert requires == set(installs)
    assert all(any(spec.startswith(installs[r]) for spec in ml) for r in requires)


@pytest.mark.parametrize("path", [DEFAULT, OPACUS], ids=["default", "opacus"])
def test_the_rows_are_the_shipped_grid(path):
    """Every (run, accountant) of the shipped grid the file's accountants analyse is one
    exact-curve point (the runs and targets the file keeps: SIGMAS, TARGETS), and nothing else
    is; so is every calibration of the grid."""
    for module in (("prv_accountant", "autodp") if path == DEFAULT else ("opacus",)):
        pytest.importorskip(module)
    runs, calibrations = set(), set()
    for audit, params, _ in _points(path):
        run = _run_of(audit["mechanism"], params)
        assert audit["delta"] == 1e-5, audit["name"]
        if "target_epsilon" in params:
            assert params["target_delta"] == 1e-5
            calibrations.add((params["accountant"], run.sample_rate, run.steps,
                              params["target_epsilon"]))
        else:
            assert (params["accountant"], run) not in runs, audit["name"]
            runs.add((params["accountant"], run))
    expected = set()
    for point in shipped_points():
        if not _kept(path, point.params):
            continue
        for name in CHECKS[path]:
            try:
                ACCOUNTANTS[name].check(point.params)    # the runs its library analyses
            except AccountantError:
                continue
            expected.add((name, point.params))
    assert runs == expected
    assert calibrations == {(name, p.params.sample_rate, p.params.steps, eps)
                            for name, p, eps in shipped_calibrations()
                            if name in CALIBRATES[path] and eps in TARGETS[path]}


@pytest.mark.slow
def test_a_row_of_each_kind_runs_through_the_seam_to_its_expectation(tmp_path):
    """An exact-curve row of the issue-378 violation (closed form), a Poisson row (PLD
    bracket) and a calibration row: their evidence is the run's bracket, computed; and the
    certified issue-378 pair row: sampled, a violation certified black-box and white-box."""
    from dpaudit.api import run_suites
    from dpaudit.conformance import RunPoint, true_bracket

    # the shipped rows, in a file of their own (loading the whole file builds every point)
    rows = ("dp-accounting-rdp-full-batch-replace-one-T1", "dp-accounting-rdp-poisson-q0.01-T100",
            "calibration-dp-accounting-rdp-q0.1-T10", "issue-378-certified")
    blocks = DEFAULT.read_text(encoding="utf-8").split("[[audit]]")
    kept = [b for b in blocks[1:] if any(f'name = "{r}"' in b for r in rows)]
    assert len(kept) == len(rows)
    path = tmp_path / "accountants.toml"
    path.write_text(blocks[0] + "".join("[[audit]]" + b for b in kept), encoding="utf-8")
    run = run_suites([str(path)])
    points = {(p.audit, p.sweep and p.sweep.value): p for p in run.points}
    assert len(points) == 2 + 2 + 1 + 1
    certified = points.pop(("issue-378-certified", None))
    assert certified.met_expectation
    (test,) = certified.tests
    (certificate,) = test.certificates
    assert certificate.verdict.value == "violation"
    assert certificate.claimed_epsilon == pytest.approx(2.1657, abs=1e-4)
    *sampled, replay = certificate.evidence  # the grey-box replay joins the first named test
    assert [e.certified for e in sampled] == [True, True] and replay.kind == "replay"
    assert replay.status == "consistent" and not replay.rejects(certificate.claimed_epsilon)
    assert all(2.1657 < e.bound <= 4.3772 for e in sampled)
    for (audit, _), point in points.items():
        (test,) = point.tests
        (certificate,) = test.certificates
        (evidence,) = certificate.evidence
        assert evidence.kind == "exact-curve" and not evidence.certified
        assert point.met_expectation, audit
        assert test.family_members == 0 and test.samples == 0
    issue = points[("dp-accounting-rdp-full-batch-replace-one-T1", 2.0)]
    certificate = issue.tests[0].certificates[0]
    assert certificate.verdict.value == "violation"
    assert certificate.claimed_epsilon == pytest.approx(2.1657, abs=1e-4)
    assert certificate.evidence[0].interval() == pytest.approx((4.37718, 4.37718), abs=1e-5)
    cal = points[("calibration-dp-accounting-rdp-q0.1-T10", None)]
    claim = cal.tests[0].claim
    assert claim["notion"] == "calibration" and claim["accountant"] == "dp_accounting:rdp"
    sigma = claim["noise_multiplier"]
    expected = true_bracket(RunPoint(AccountingParameters(sigma, 0.1, 10), 1e-5))
    assert cal.tests[0].certificates[0].evidence[0].interval() == pytest.approx(expected)


def test_every_full_batch_expectation_is_what_dpaudit_accountants_says():
    """The suite and `dpaudit accountants --grid` on the same runs: a full-batch row (closed
    form, milliseconds) expects a violation iff the conformance path finds the accountant
    under-reporting — issue 378's four runs and none other.  (The Poisson rows' brackets are
    the same function's, `subsampled_gaussian_bracket`; their expectations are checked by the
    default run itself and, against `--grid`, by benchmarks/accountants.py section 7.)"""
    from dpaudit.conformance import RunPoint, Verdict, check_accountant

    seen = []
    for audit, params, expect in _points(DEFAULT):
        if audit["mechanism"] != "dpsgd-deterministic" or audit["params"].get(
                "accountant") != "dp_accounting:rdp":
            continue
        row = check_accountant(params["accountant"],
                               RunPoint(_run_of(audit["mechanism"], params), 1e-5))
        assert row.verdict not in (Verdict.ERROR, Verdict.REJECTED), audit["name"]
        assert (row.verdict is Verdict.UNDER_REPORTS) == (expect == "violation"), audit["name"]
        seen.append(expect)
    assert sorted(seen) == ["consistent"] * 4 + ["violation"] * 4


def test_the_opacus_suite_parses_and_needs_opacus():
    import tomllib

    from dpaudit.suite.requires import SuiteSkipped

    if not _has("opacus"):
        with pytest.raises(SuiteSkipped, match="opacus"):
            load_suite(OPACUS)
    table = tomllib.loads(OPACUS.read_text())
    assert set(table["suite"]["requires"]) == {"opacus", "dp_accounting"}
    pairs = [a for a in table["audit"] if a.get("kind", "pair") == "pair"]
    assert {a["name"] for a in pairs} == {"opacus-gdp-certified",
                                          "opacus-mean-reduction-certified"}
    gdp = next(a for a in pairs if a["name"] == "opacus-gdp-certified")
    assert gdp["samples"] <= 1_000_000 and gdp["params"]["accountant"] == "opacus:gdp"
    assert 3 <= table["suite"]["family_size"]     # 2 + 1 tests


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
