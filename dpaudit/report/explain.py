"""Plain-text certificates: what a failing test or a script prints about an audit point.

:func:`explain_record` turns one :class:`~dpaudit.results.records.CertificateRecord` into a few
lines — the pair and its two datasets, the verdict, ε_LB against the claimed ε, the certified
event with its counts on each side, the per-certificate and family-wise confidence, samples
and seed — so that a violation can be checked (and reproduced) by hand without opening
results.json.  :func:`explain_point` does it for every
certificate of one audit point (:class:`~dpaudit.results.hierarchy.AuditPoint`, its tests in
order, then their δs and αs), headed by the point's verdict and expectation (and the
parameters it left at their defaults, if any).
"""

from __future__ import annotations

import json

from dpaudit.spec.coverage import FLOAT_FIXES
from dpaudit.results.power_text import stop_text, underpowered_text
from dpaudit.util.jsonable import to_jsonable
from dpaudit.util.numbers import PLAIN_INFINITY, format_number
from dpaudit.results.defaults import format_values
from dpaudit.results.hierarchy import AuditPoint
from dpaudit.results.records import CertificateRecord


def _num(x) -> str:
    return format_number(x, 4, none="-", infinity=PLAIN_INFINITY)


#: characters of one dataset shown in a failure message before it is cut with "…"
MAX_DATASET_CHARS = 80


def _dataset(value) -> str:
    """A dataset as compact JSON (as results.json holds it), cut to
    :data:`MAX_DATASET_CHARS`."""
    try:
        text = json.dumps(to_jsonable(value), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= MAX_DATASET_CHARS else text[:MAX_DATASET_CHARS - 1] + "…"


def pair_text(pair, name: str | None) -> str:
    """``pair 'add-max-record' (d0 = [0,1], d1 = [0,1,1])``: the pair's name and its two
    datasets (``pair``: a :class:`~dpaudit.results.provenance.RecordedPair` or None), so that
    a failure can be reproduced without opening results.json."""
    text = f"pair {name!r}"
    if pair is not None:
        text += f" (d0 = {_dataset(pair.d0)}, d1 = {_dataset(pair.d1)})"
    return text


def evidence_line(evidence) -> str:
    """``black-box ε_LB = 0.93: event E = {…}: d1 in E 46991/90000 times, …``: one piece of
    evidence, its bound and its own description (the one line every report prints)."""
    what = "ε_LB" if evidence.certified else "bound"
    return f"{evidence.role} {what} = {_num(evidence.bound)}: {evidence.describe()}"


def explain_record(record: CertificateRecord) -> str:
    """A few lines describing one certificate (or its error), naming its pair and the pair's
    two datasets (:func:`pair_text`)."""
    where = (f"{pair_text(record.pair, record.pair_name)} "
             + (f"δ={record.delta:g}" if record.notion == "dp" else f"α={record.alpha:g}"))
    if record.sweep is not None:
        where = f"{record.sweep.parameter}={record.sweep.value} {where}"
    if record.error:
        return f"{where}: ERROR: {record.error}"
    claim = (record.claim or {}).get("text", "?")
    bound, claimed_eps = record.bound, record.claimed_epsilon
    relation = (">" if bound is not None and claimed_eps is not None and bound > claimed_eps
                else "≤")
    verdict = "FLOATING-POINT VIOLATION" if record.floating_point else record.verdict.upper()
    strongest = max(record.evidence, key=lambda e: e.bound, default=None)
    which = "" if strongest is None or len(record.evidence) < 2 else f" ({strongest.role})"
    lines = [f"{where}: {verdict}: ε_LB = {_num(record.bound)}{which} "
             f"{relation} claimed ε = {_num(record.claimed_epsilon)} ({claim})"]
    if record.rejection_reason:  # a violation the bound alone does not show
        lines.append(f"  the claim is rejected: {record.rejection_reason}")
    if record.floating_point:
        lines.append(f"  {record.floating_point_finding}; value-level ε_LB = "
                     f"{_num(record.value_epsilon_lower_bound)} (within the claim)")
        lines.append(f"  {FLOAT_FIXES}")
    if record.search is not None:
        lines.append(f"  {record.search.describe()}")
    for evidence in record.evidence:
        lines.append(f"  {evidence_line(evidence)}")
    if record.underpowered:  # "underpowered: this test could only detect …", shouted
        why = underpowered_text(record.claimed_epsilon, record.detectable_epsilon,
                                None if record.power is None else record.power.power)
        lines.append("  UNDERPOWERED" + why[len("underpowered"):])
    if record.sequential is not None:
        lines.append(f"  {stop_text(record.sequential)}")
    if record.exact_epsilon is not None:
        lines.append(f"  exact ε = {_num(record.exact_epsilon)}")
    lines.append(f"  confidence {record.per_certificate_confidence:.6g} for this certificate "
                 f"(family-wise {record.confidence:g}), budget {record.samples} samples per "
                 f"side, seed {record.seed}")
    return "\n".join(lines)


def explain_point(point: AuditPoint) -> str:
    """The verdict line of one judged audit point, then every certificate of it."""
    label = point.audit if point.sweep is None else \
        f"{point.audit}[{point.sweep.parameter}={point.sweep.value}]"
    head = (f"{label} ({point.mechanism}): verdict {point.verdict}, expected "
            f"{point.expect}")
    defaulted = format_values(point.defaulted_parameters) if point.tests else ""
    if defaulted:
        head += f"\n  parameters left at their defaults: {defaulted}"
    note = None if point.coverage is None else point.coverage.note
    if note:
        head += f"\n  {note}"
    return "\n".join([head] + [explain_record(point.record(test, certificate))
                               for test, certificate in point.certificates()])


__all__ = ["MAX_DATASET_CHARS", "evidence_line", "explain_point", "explain_record", "pair_text"]
