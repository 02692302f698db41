"""``dpaudit accountants`` (dpaudit/cli/accountants.py): one line per accountant with both
numbers, exit 1 on an under-report, 2 on bad usage, --json written whole."""

from __future__ import annotations

import json

import pytest

from dpaudit.cli import main

pytest.importorskip("dp_accounting", reason="the test extra installs dp_accounting")

SWAP = ["--noise-multiplier", "2", "--sampler", "full-batch", "--steps", "1",
        "--relation", "replace-one"]


def test_an_under_reporting_accountant_exits_1_with_both_numbers(tmp_path, capsys):
    out = tmp_path / "rows.json"
    code = main(["accountants", "--accountant", "dp_accounting:rdp", "--accountant",
                 "autodp:rdp", *SWAP, "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 1
    assert ("dp_accounting:rdp ε = 2.166 at σ=2, q=1, T=1, full-batch, replace-one, "
            "δ=1e-05; the run's ε ∈ [4.377, 4.377]: under-reports") in text
    assert "1 of 1 checked under-report; 1 rejected by their library, 0 errors" in text
    rows = json.loads(out.read_text())
    assert [r["verdict"] for r in rows["runs"]] == ["under-reports", "rejected"]


@pytest.mark.slow
def test_a_consistent_accountant_exits_0_and_calibration_is_checked(capsys):
    assert main(["accountants", "--accountant", "dp_accounting:pld", *SWAP,
                 "--delta", "1e-5", "--delta", "1e-3"]) == 0
    assert capsys.readouterr().out.count("dp_accounting:pld ε = ") == 2
    assert main(["accountants", "--accountant", "dp_accounting:rdp", "--sampler", "full-batch",
                 "--steps", "4", "--relation", "replace-one", "--calibrate", "2"]) == 1
    assert "dp_accounting:rdp calibration to ε = 2 at q=1, T=4" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--sample-rate", "0.1", "--steps", "3"], "needs noise_multiplier"),
    (["--accountant", "nope", *SWAP], "unknown accountant 'nope'"),
    ([*SWAP, "--delta", "2"], "--delta must be in (0, 1)"),
    (["--noise-multiplier", "1", "--batch-size", "10", "--steps", "3"], "needs dataset_size"),
    (["--sample-rate", "0.1", "--steps", "3", "--calibrate", "-1"], "target ε > 0"),
])
def test_bad_usage_is_one_line_and_exit_2(argv, message, capsys):
    assert main(["accountants", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_every_accountant_rejecting_is_exit_2(capsys):
    code = main(["accountants", "--accountant", "prv_accountant", *SWAP])
    captured = capsys.readouterr()
    assert code == 2 and "rejected" in captured.out
    assert "no accountant could be checked" in captured.err
