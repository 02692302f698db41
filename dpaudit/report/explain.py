"""Plain-text certificates: what a failing test or a script prints about an audit point.

:func:`explain_record` turns one :class:`~dpaudit.results.records.CertificateRecord` into a few
lines — the verdict, ε_LB against the claimed ε, the certified event with its counts on each
side, the per-certificate and family-wise confidence, samples and seed — so that a violation
can be checked by hand without opening results.json.  :func:`explain_point` does it for every
record of one audit point, headed by the point's verdict and expectation (and the parameters it
left at their defaults, if any).
"""

from __future__ import annotations

from typing import Iterable

from dpaudit.results.defaults import format_values
from dpaudit.results.records import AuditOutcome, CertificateRecord


def _num(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def explain_record(record: CertificateRecord) -> str:
    """A few lines describing one certificate (or its error)."""
    where = (f"pair {record.pair_name!r} "
             + (f"δ={record.delta:g}" if record.notion == "dp" else f"α={record.alpha:g}"))
    if record.sweep is not None:
        where = f"{record.sweep.parameter}={record.sweep.value} {where}"
    if record.error:
        return f"{where}: ERROR: {record.error}"
    claim = (record.claim or {}).get("text", "?")
    relation = ">" if record.verdict == "violation" else "≤"
    lines = [f"{where}: {record.verdict.upper()}: ε_LB = {_num(record.epsilon_lower_bound)} "
             f"{relation} claimed ε = {_num(record.claimed_epsilon)} ({claim})"]
    cert = record.certificate or {}
    if "event" in cert and record.notion == "dp":
        num = cert.get("numerator", "d0")
        den = "d1" if num == "d0" else "d0"
        lines.append(f"  event E = {{{cert['event']}}}: {num} in E {cert.get('k_numerator')}/"
                     f"{cert.get('n_numerator')} times, {den} in E "
                     f"{cert.get('k_denominator')}/{cert.get('n_denominator')} times "
                     f"(one-sided Clopper–Pearson)")
    if record.white_box_epsilon_lower_bound is not None:
        lines.append(f"  white-box ε_LB = {_num(record.white_box_epsilon_lower_bound)}")
    if record.exact_epsilon is not None:
        lines.append(f"  exact ε = {_num(record.exact_epsilon)}")
    lines.append(f"  confidence {record.per_certificate_confidence:.6g} for this certificate "
                 f"(family-wise {record.confidence:g}), {record.samples} samples per side, "
                 f"seed {record.seed}")
    return "\n".join(lines)


def explain_point(outcome: AuditOutcome, records: Iterable[CertificateRecord]) -> str:
    """The outcome line of one audit point, then every certificate of it."""
    point = [r for r in records if (r.suite_file, r.audit, r.sweep) ==
             (outcome.file, outcome.audit, outcome.sweep)]
    label = outcome.audit if outcome.sweep is None else \
        f"{outcome.audit}[{outcome.sweep.parameter}={outcome.sweep.value}]"
    head = (f"{label} ({outcome.mechanism}): verdict {outcome.verdict}, expected "
            f"{outcome.expect}")
    defaulted = format_values(point[0].defaulted_parameters) if point else ""
    if defaulted:
        head += f"\n  parameters left at their defaults: {defaulted}"
    return "\n".join([head] + [explain_record(r) for r in point])


__all__ = ["explain_point", "explain_record"]
