"""An underpowered certificate (issue 24) in every renderer and route: the progress line,
the counts, the headline, summary.md, junit.xml, report.html, explain(), and
require_power making it fail."""

from __future__ import annotations

import pytest

from dpaudit.cli import main

SUITE = """
[suite]
confidence = 0.95
{power}
[[audit]]
name = "weak"
mechanism = "laplace"
params = {{ epsilon = 1.0 }}
samples = 3000
white_box = false
search = false
"""


def run(tmp_path, capsys, power="", *flags):
    path = tmp_path / "s.toml"
    path.write_text(SUITE.format(power=power))
    status = main(["run", str(path), "--out", str(tmp_path / "out"), "--workers", "1",
                   *flags])
    captured = capsys.readouterr()
    return status, captured.out, captured.err, tmp_path / "out"


@pytest.mark.slow
def test_a_small_budget_is_reported_underpowered_and_passes(tmp_path, capsys):
    status, out, err, folder = run(tmp_path, capsys)
    assert status == 0
    assert "consistent (UNDERPOWERED)" in err  # 3000 samples cannot detect 1.1 × ε = 1
    assert "1 consistent (1 underpowered)" in out
    assert out.splitlines()[-1].startswith("PASS — 1/1 expectations met")
    assert "consistent, underpowered" in (folder / "summary.md").read_text()
    assert "badge underpowered" in (folder / "report.html").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["suite", "flag"])
def test_require_power_makes_it_fail_everywhere(tmp_path, capsys, how):
    power = "require_power = true" if how == "suite" else ""
    flags = ("--require-power",) if how == "flag" else ()
    status, out, err, folder = run(tmp_path, capsys, power, *flags)
    assert status == 1
    assert "unmet: s/weak: expected consistent, got consistent, underpowered" in out
    assert out.splitlines()[-1] == ("FAIL — 0/1 expectations met — 0 known bugs detected, 0 "
                                    "unexpected violations, 1 underpowered audit point "
                                    "(s/weak) (require_power)")
    junit = (folder / "junit.xml").read_text()
    assert "got consistent, underpowered (require_power)" in junit
    assert "could detect ε ≥" in junit


def test_the_api_explains_an_underpowered_certificate():
    from dpaudit import audit_sampler

    def laplace(dataset, n, rng):
        return dataset[0] + rng.laplace(0.0, 1.0, n)

    weak = audit_sampler(laplace, epsilon=1.0, pairs=[([0.0], [1.0])], samples=3000,
                         representation=False, require_power=True)
    assert not weak.met_expectation and weak.verdict == "consistent"
    assert "UNDERPOWERED: this test could only detect ε ≥" in weak.explain()
    assert "stopped at the budget after 3,000 of 3,000 samples per side" in weak.explain()
    fine = audit_sampler(laplace, epsilon=1.0, pairs=[([0.0], [1.0])], samples=200_000,
                         representation=False, require_power=True, seed=3)
    assert fine.met_expectation and fine.records[0].sequential.stopped == "power"
