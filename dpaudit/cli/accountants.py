"""``dpaudit accountants``: is the ε your accountant reports below the run's true ε?

For the run a user trains — ``--noise-multiplier σ``, ``--sample-rate q`` (or
``--batch-size b --dataset-size n``), ``--steps T`` (or ``--epochs E``), ``--relation``,
``--sampler`` — and each ``--delta``, every accountant named by ``--accountant`` (default: all
of :data:`dpaudit.claims.accountants.ACCOUNTANTS`) is asked for its ε and compared with the
bracket of the run's exact curve (:mod:`dpaudit.conformance.grid`): one line per accountant
with both numbers and the verdict.  ``--calibrate ε`` instead asks every calibrating accountant
for σ at that target and judges the σ it returns (:mod:`dpaudit.conformance.calibration`);
``--grid`` runs the shipped grid (:mod:`dpaudit.conformance.shipped`).  ``--json FILE`` writes
the rows (written whole or not at all).

Exit status: 0 when no accountant under-reports, 1 when one does, 2 on bad usage or when no
row could be computed (every accountant missing, rejecting or failing).
"""

from __future__ import annotations

import json
import sys
import time


def add_accountants_parser(sub) -> None:
    acc = sub.add_parser(
        "accountants", help="check privacy accountants (Opacus, dp_accounting, …) and noise "
                            "calibration against the exact curve of your DP-SGD run",
        description="Ask each accountant for the ε of a DP-SGD run and compare it with the "
                    "bracketed exact ε(δ) of the run's dominating pair; an accountant below "
                    "the bracket's lower end under-reports. Exit 0: none under-reports; 1: "
                    "one does; 2: bad usage or no row computed.")
    acc.add_argument("--accountant", action="append", default=[], metavar="NAME",
                     help="library:method to check (repeatable; default: every one installed "
                          "and known)")
    acc.add_argument("--noise-multiplier", type=float, metavar="SIGMA",
                     help="σ: the noise's standard deviation over the clipping norm")
    acc.add_argument("--sample-rate", type=float, metavar="Q", help="q per step")
    acc.add_argument("--batch-size", type=int, metavar="B", help="b (with --dataset-size)")
    acc.add_argument("--dataset-size", type=int, metavar="N", help="n")
    acc.add_argument("--steps", type=int, metavar="T", help="training steps")
    acc.add_argument("--epochs", type=int, metavar="E", help="epochs (T = E·⌈n/b⌉)")
    acc.add_argument("--relation", default="add-remove", choices=("add-remove", "replace-one"))
    acc.add_argument("--sampler", default="poisson",
                     choices=("poisson", "full-batch", "without-replacement"))
    acc.add_argument("--delta", type=float, action="append", default=[], metavar="D",
                     help="δ (repeatable; default 1e-5)")
    acc.add_argument("--calibrate", type=float, metavar="EPS",
                     help="check noise calibration to this target ε instead (σ not needed)")
    acc.add_argument("--grid", action="store_true",
                     help="run the shipped grid of runs and calibrations instead")
    acc.add_argument("--json", dest="json_out", metavar="FILE", help="also write the rows")


def _spec(args) -> dict:
    spec = {}
    for key in ("noise_multiplier", "sample_rate", "batch_size", "dataset_size", "steps",
                "epochs"):
        if getattr(args, key) is not None:
            spec[key] = getattr(args, key)
    if args.calibrate is not None:
        spec.setdefault("noise_multiplier", 1.0)  # ignored by the calibration
    spec["relation"], spec["sampler"] = args.relation, args.sampler
    return spec


def _print(rows) -> None:
    for row in rows:
        print(row.describe())


def cmd_accountants(args) -> int:
    from dpaudit.claims.accountants import (ACCOUNTANTS, AccountantError,
                                            AccountingParameters, Calibrates, get_accountant)
    from dpaudit.conformance import (RunPoint, Verdict, check_calibration, run_conformance,
                                     shipped_calibrations, shipped_points)
    from dpaudit.util.atomic import write_text_atomic

    def fail(message: str) -> int:
        print(f"dpaudit accountants: error: {message}", file=sys.stderr)
        return 2

    try:
        names = args.accountant or list(ACCOUNTANTS)
        for name in names:
            get_accountant(name)
        deltas = args.delta or [1e-5]
        for d in deltas:
            if not 0.0 < d < 1.0:
                return fail(f"--delta must be in (0, 1), got {d:g}")
        if args.grid:
            points, calibrations = shipped_points(), shipped_calibrations()
            calibrations = [c for c in calibrations if c[0] in names]
        else:
            params = AccountingParameters.from_spec(_spec(args))
            points = [RunPoint(params, d) for d in deltas]
            calibrations = []
            if args.calibrate is not None:
                if not args.calibrate > 0:
                    return fail(f"--calibrate must be a target ε > 0, got {args.calibrate:g}")
                calibrations = [(n, p, args.calibrate) for p in points for n in names
                                if isinstance(ACCOUNTANTS[n], Calibrates)]
                points = []
    except AccountantError as exc:
        return fail(str(exc))
    start = time.perf_counter()
    rows = run_conformance(names, points)
    _print(rows)
    cal_rows = [check_calibration(*c) for c in calibrations]
    _print(cal_rows)
    every = rows + cal_rows
    counted = [r for r in every if r.verdict not in (Verdict.REJECTED, Verdict.ERROR)]
    under = [r for r in every if r.verdict is Verdict.UNDER_REPORTS]
    print(f"{len(under)} of {len(counted)} checked under-report; "
          f"{sum(r.verdict is Verdict.REJECTED for r in every)} rejected by their library, "
          f"{sum(r.verdict is Verdict.ERROR for r in every)} errors "
          f"in {time.perf_counter() - start:.1f} s")
    if args.json_out:
        try:
            write_text_atomic(args.json_out, json.dumps(
                {"runs": [r.to_dict() for r in rows],
                 "calibrations": [r.to_dict() for r in cal_rows]}, indent=2) + "\n")
        except OSError as exc:
            return fail(f"cannot write --json {args.json_out}: {exc}")
    if not counted:
        return fail("no accountant could be checked (see the lines above)")
    return 1 if under else 0


__all__ = ["add_accountants_parser", "cmd_accountants"]
