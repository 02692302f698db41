"""Progress lines: one per finished certificate record, for stderr while a run goes on."""

from __future__ import annotations

import math
import sys

from dpaudit.audit.records import CertificateRecord


def _display_number(x) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.4g}"


def format_progress(record: CertificateRecord) -> str:
    """One line per finished record: where (suite, audit, pair, δ or α, swept value), the
    certified bounds, the claim, the verdict and the task's time; for a consistent one, the
    smallest ε the same test would certify half the time (its ``detectable_epsilon``)."""
    pair = (record.pair or {}).get("name", "-")
    where = f"δ={record.delta:g}" if record.notion == "dp" else f"α={record.alpha:g}"
    if record.sweep is not None:
        value = record.sweep.value
        where = (f"{record.sweep.parameter}={value:g} " if isinstance(value, float) else
                 f"{record.sweep.parameter}={value} ") + where
    white = record.white_box_epsilon_lower_bound
    white_text = "" if white is None else f" white-box={_display_number(white)}"
    line = (f"[{record.suite}] {record.audit} pair={pair} {where} "
            f"ε_LB={_display_number(record.epsilon_lower_bound)}{white_text} "
            f"claim={_display_number(record.claimed_epsilon)} {record.verdict} "
            f"({record.seconds:.1f}s)")
    if record.verdict == "consistent" and record.detectable_epsilon is not None:
        line += f" could detect ε ≥ {_display_number(record.detectable_epsilon)}"
    if record.exact_verdict == "violation" and record.verdict != "violation":
        line += f" [exact ε={_display_number(record.exact_epsilon)} > claim: not certifiable here]"
    if record.warnings:
        line += f" [{len(record.warnings)} warning(s) in results.json]"
    if record.error:
        line += f" — {record.error}"
    return line


def print_progress(record: CertificateRecord) -> None:
    print(format_progress(record), file=sys.stderr, flush=True)


__all__ = ["format_progress", "print_progress"]
