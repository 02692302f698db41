"""``results.json`` — the source of truth of a ``dpaudit run``; every other report renders from it.

Numbers that can be infinite are written as the string ``"inf"`` (JSON has no infinity);
``null`` means "not known / not applicable".  Schema (version 2)::

    {
      "schema": 2,
      "dpaudit_version": "0.1.0",
      "created": "2026-11-22T10:00:00+00:00",      # UTC, ISO 8601
      "command": "dpaudit run audits/ --out reports/latest",
      "python": "3.11.7", "numpy": "...", "scipy": "...",
      "platform": "Linux-...",
      "options": {"profile": "default", "samples": null, "seed": null, "workers": 2},
      "seconds": 123.4,                            # wall time of the whole run
      "suites": [                                  # one per suite file, in command-line order
        {"file": "audits/classic.toml", "name": "classic",
         "confidence": 0.95,                       # family-wise, over the whole file
         "family_size": 24,                        # m = number of curve certificates: one per
                                                   #   (audit, pair), two with a white-box one
         "per_certificate_confidence": 0.99792,    # 1 − (1 − confidence)/m
         "seed": 20261122, "audits": 20,
         "error": null}                            # SuiteError message if the file is malformed
      ],
      "audits": [                                  # one record per (audit, pair, δ) and per
                                                   #   (audit, pair, α) of an RDP audit
        {"suite": "classic", "suite_file": "audits/classic.toml",
         "audit": "laplace-eps1", "audit_index": 0,
         "mechanism": "laplace", "parameters": {"epsilon": 1.0},
         "claim": {...},                           # Claim.to_dict(): notion, parameters, text,
                                                   #   sympy expression, latex, substitutions
         "pair": {"name": ..., "d0": ..., "d1": ..., "description": ...},  # NeighbourPair.to_dict()
         "pair_index": 0,
         "notion": "dp",                           # "dp": ε at delta; "rdp": Rényi ε at alpha
         "delta": 0.0, "alpha": null,
         "claimed_epsilon": 1.0,                   # claim.epsilon(delta) (dp) or the claim's
                                                   #   RDP ε(alpha) (rdp); "inf" if none implied
         "epsilon_lower_bound": 0.93,              # certified black-box lower bound on ε(δ)
                                                   #   (dp) or on max(D_α(P0‖P1), D_α(P1‖P0))
         "white_box_epsilon_lower_bound": 0.97,    # the same from the white-box likelihood-
                                                   #   ratio distinguisher; null without one
         "exact_epsilon": 1.0,                     # exact ε(δ) / D_α of this pair, null if unknown
         "true_epsilon": null,                     # literature's real ε of a known-bad mechanism
         "verdict": "consistent",                  # this certificate: consistent|violation|error
                                                   #   (certified: max(black, white) vs claim)
         "exact_verdict": "consistent",            # exact ε vs the claim (violation when the
                                                   #   exact ε exceeds it); null without an exact
                                                   #   value; reported, never a CI gate
         "black_box_share": 0.96,                  # black-box ε_LB / white-box ε_LB (null
                                                   #   without a positive white-box one)
         "audit_verdict": "consistent",            # the audit's: error > violation > consistent
         "expect": "consistent",
         "met_expectation": true,                  # audit_verdict == expect
         "tightness": 0.97,                        # max(black, white ε_LB) / claimed ε; null if
                                                   #   claimed is inf or 0
         "samples": 200000,                        # per side, after --samples/--profile
         "seed": 123456789,                        # SeedSequence([suite seed, audit, pair, 0])
         "seconds": 3.2,
         "confidence": 0.95,                       # family (suite) confidence
         "per_certificate_confidence": 0.99792,    # what the estimator was called with
         "distinguisher": "auto",
         "certificate": {...},                     # EpsilonLowerBound.to_dict(): event, counts,
                                                   #   numerator side, method, … (null on error)
         "white_box_certificate": {...},           # the white-box one (or null)
         "error": null,                            # "ExceptionType: message" when verdict=error
         "warnings": [],                           # distinct warnings raised during the task
         "note": "",
         "sweep": null}                            # swept audits: {"parameter", "value",
                                                   #   "index"} of this audit point
      ],
      "curves": [                                  # per (audit, pair) with a δ grid or αs
        {"suite", "suite_file", "audit", "pair", "mechanism",
         "certified": [[δ, black ε_LB, white ε_LB], ...],
         "dense_delta": [...], "claimed": [...], "exact": [...],   # claimed/exact ε(δ)
         "renyi_certified": [[α, black, white], ...],
         "dense_alpha": [...], "claimed_renyi": [...], "exact_renyi": [...],
         "figure": "figures/classic__gaussian__add-max-record.png"},  # relative to results.json
        {"kind": "sweep",                          # one per (swept audit, pair, δ)
         "suite", "suite_file", "audit", "audit_index", "pair", "pair_index", "mechanism",
         "parameter": "steps", "delta": 0.01, "confidence", "per_certificate_confidence",
         "samples",
         "points": [{"value", "claimed", "certified", "white_box", "exact", "verdict",
                     "expect"}, ...],              # one per swept value
         "dense": [{"value", "claimed", "exact"}, ...],   # exact_points extra values
         "dense_errors": [...], "figure": "figures/…__sweep.png"}
      ],
      "series": [                                  # closed-form [[series]] entries
        {"suite", "suite_file", "name", "mechanism", "params", "quantity", "parameter",
         "values": [...], "y": [...], "label", "ylabel", "markers": [{"x", "label"}],
         "facts": {...}, "pair", "claim": {...}, "delta", "claimed_epsilon", "note",
         "seconds", "error", "figure": "figures/…__series.png"}
      ],
      "summary": {
        "certificates": 24,
        "verdicts": {"consistent": 15, "violation": 9, "error": 0},
        "exact_violations": 1,                     # certificates whose exact ε exceeds the
                                                   #   claim (whatever their certified verdict)
        "exact_only_violations": [{"suite", "audit", "pair", "delta", "alpha",
                                   "claimed_epsilon", "exact_epsilon", "epsilon_lower_bound"}],
                                                   # of those, the ones not certified
        "audits": 20, "audits_met": 20,               # audit points (one per swept value)
        "unmet_expectations": [{"suite", "file", "audit", "mechanism", "expect", "verdict",
                                "met_expectation", "certificates", "sweep"}, ...],
        "errors": 0,                               # erroring certificates + malformed suites
        "suite_errors": 0,
        "exit_status": 0                           # 0 all met, 1 some unmet, 2 any error
      }
    }
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import platform
import sys
from pathlib import Path

import numpy as np

SCHEMA_VERSION = 2


def to_jsonable(value):
    """Plain JSON values: numpy → Python, tuples → lists, ±inf/nan → "inf"/"-inf"/"nan"."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if value is None or isinstance(value, str):
        return value
    return str(value)


def build_report(run, *, command: str, exit_status: int) -> dict:
    """The results.json document of an :class:`dpaudit.audit.runner.AuditRun`."""
    import scipy

    from dpaudit import __version__

    outcomes = run.outcomes
    verdicts = {v: 0 for v in ("consistent", "violation", "error")}
    for record in run.records:
        verdicts[record["verdict"]] = verdicts.get(record["verdict"], 0) + 1
    suite_errors = sum(1 for s in run.suites if s.get("error"))
    exact_violations = [r for r in run.records if r.get("exact_verdict") == "violation"]
    summary = {
        "certificates": len(run.records),
        "verdicts": verdicts,
        "exact_violations": len(exact_violations),
        "exact_only_violations": [
            {"suite": r["suite"], "audit": r["audit"], "sweep": r.get("sweep"),
             "pair": (r.get("pair") or {}).get("name"), "delta": r["delta"],
             "alpha": r["alpha"], "claimed_epsilon": r["claimed_epsilon"],
             "exact_epsilon": r["exact_epsilon"],
             "epsilon_lower_bound": r["epsilon_lower_bound"]}
            for r in exact_violations if r["verdict"] != "violation"],
        "audits": len(outcomes),
        "audits_met": sum(1 for o in outcomes if o["met_expectation"]),
        "unmet_expectations": [o for o in outcomes if not o["met_expectation"]],
        "errors": verdicts["error"] + suite_errors,
        "suite_errors": suite_errors,
        "exit_status": exit_status,
    }
    report = {
        "schema": SCHEMA_VERSION,
        "dpaudit_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "platform": platform.platform(),
        "executable": sys.executable,
        "options": {"profile": run.profile, "samples": run.samples_override,
                    "seed": run.seed_override, "workers": run.workers},
        "seconds": run.seconds,
        "suites": run.suites,
        "audits": run.records,
        "curves": run.curves,
        "series": getattr(run, "series", []),
        "summary": summary,
    }
    return to_jsonable(report)


def write_json(report: dict, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n",
                    encoding="utf-8")
    return path


def read_json(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
