"""``summary.md`` — a short Markdown summary rendered from the typed run report.

It never computes anything: every number comes from the
:class:`~dpaudit.report.json_report.RunReport` that results.json is written from (its typed
records, outcomes and summary), so the two cannot disagree.  The table is meant to be
pasted into a pull request: one row per certificate (audit × pair × δ), with the audit-level
✓/✗ (an expected violation is met when any pair/δ of the audit certifies one).
"""

from __future__ import annotations

import math
from pathlib import Path

from dpaudit.report.json_report import RunReport

_COLUMNS = ("audit", "mechanism", "pair", "at", "claimed ε", "certified ε_LB",
            "white-box ε_LB", "exact ε", "detectable ε", "verdict", "expected", "✓/✗")


def _num(value, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return {"inf": "∞", "-inf": "−∞"}.get(value, value)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.{digits}g}"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _samples_text(records) -> str:
    values = sorted({r.samples for r in records})
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:,} per side"
    return f"{values[0]:,}–{values[-1]:,} per side"


def render_markdown(report: RunReport) -> str:
    """The summary.md text of a run report."""
    run, summary, prov = report.run, report.summary, report.provenance
    records = run.records
    suites = [s.to_json() for s in run.suites]
    lines = ["# dpaudit audit summary", ""]
    lines.append(f"- date: {prov.created} (dpaudit {prov.dpaudit_version},"
                 f" Python {prov.python}, numpy {prov.numpy},"
                 f" scipy {prov.scipy})")
    lines.append(f"- command: `{prov.command}`")
    lines.append(f"- samples: {_samples_text(records)} (profile {run.profile}); "
                 f"workers: {run.workers}; wall time: "
                 f"{run.seconds:.1f} s")
    for suite in suites:
        if suite.get("error"):
            lines.append(f"- suite `{suite['file']}`: **malformed** (see errors below)")
        elif suite.get("skipped"):
            lines.append(f"- suite `{suite['file']}`: skipped: {suite['skipped']}")
        else:
            lines.append(f"- suite `{suite['file']}` ({suite['name']}): family-wise confidence "
                         f"{suite['confidence']:g} over {suite['family_size']} certificates "
                         f"(each at {suite['per_certificate_confidence']:.6g}), "
                         f"seed {suite['seed']}")
    verdicts = summary.verdicts
    lines.append(f"- result: {summary.audits_met}/{summary.audits} audits met "
                 f"their expectation; {verdicts.get('violation', 0)} violation(s), "
                 f"{verdicts.get('consistent', 0)} consistent, {summary.errors} "
                 f"error(s); exit status {summary.exit_status}")
    lines.append("")

    if records:
        lines.append("| " + " | ".join(_COLUMNS) + " |")
        lines.append("|" + "|".join("---" for _ in _COLUMNS) + "|")
        for r in records:
            verdict = r.verdict
            if verdict == "violation":
                verdict = "**violation**"
            elif r.exact_verdict == "violation":
                verdict = "consistent (exact ε > claim, not certifiable here)"
            at = (f"δ={_num(r.delta)}" if r.notion == "dp"
                  else f"α={_num(r.alpha)} (RDP)")
            audit = r.audit
            if r.sweep is not None:
                audit += f" [{r.sweep.parameter}={_num(r.sweep.value)}]"
            row = [audit, r.mechanism, (r.pair or {}).get("name", "—"),
                   at, _num(r.claimed_epsilon),
                   _num(r.epsilon_lower_bound),
                   _num(r.white_box_epsilon_lower_bound), _num(r.exact_epsilon),
                   _num(r.detectable_epsilon), verdict, r.expect, "✓" if r.met_expectation else "✗"]
            lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
        lines.append("")
        lines.append("ε_LB holds with the suite's family-wise confidence; ✓/✗ is per audit "
                     "(an expected violation is met when any of the audit's pairs/δs "
                     "certifies one).  White-box: the same certificate from the exact "
                     "likelihood ratio, where the mechanism has a log-density.  For RDP rows "
                     "the numbers are Rényi ε(α).  Detectable ε: the smallest true ε(δ) the "
                     "same test would certify with probability ≥ 1/2 at these samples (the "
                     "power of a consistent verdict; dpaudit.stats.power).")
        lines.append("")
    exact_only = summary.exact_only_violations
    if exact_only:
        lines.append("## Exact violations not certified at this sample size")
        lines.append("")
        lines.append("The pair's exact ε exceeds the claim, but the events that show it are "
                     "too rare to certify with these samples (only certified violations fail "
                     "a run):")
        lines.append("")
        for e in exact_only:
            at = f"δ={_num(e.delta)}" if e.alpha is None else f"α={_num(e.alpha)}"
            point = (f" [{e.sweep.parameter}={_num(e.sweep.value)}]"
                     if e.sweep is not None else "")
            lines.append(f"- `{e.suite}/{e.audit}`{point} pair `{e.pair_name}` {at}: "
                         f"exact ε = {_num(e.exact_epsilon)} > claimed "
                         f"{_num(e.claimed_epsilon)}; certified ε_LB = "
                         f"{_num(e.epsilon_lower_bound)}")
        lines.append("")
    figures = [c for c in report.curves_json() if c.get("figure")]
    if figures:
        lines.append("## Figures")
        lines.append("")
        for c in figures:
            what = (f" ε over {c['parameter']} at δ = {_num(c['delta'])}"
                    if c.get("kind") == "sweep" else "")
            lines.append(f"- `{c['audit']}` / `{c['pair']}`{what}: "
                         f"![{c['audit']}]({c['figure']})")
        lines.append("")
    series = report.series_json()
    if series:
        lines.append("## Series (closed form, not certified)")
        lines.append("")
        for sr in series:
            head = f"- `{sr['name']}` ({sr['mechanism']}, {sr['quantity']} over {sr['parameter']})"
            if sr.get("error"):
                lines.append(f"{head}: **error** {_cell(sr['error'])}")
                continue
            ys = [y for y in sr.get("y") or [] if isinstance(y, (int, float))]
            if ys:
                peak = max(range(len(ys)), key=lambda i: ys[i])
                head += (f": peak {_num(ys[peak])} at {sr['parameter']} = "
                         f"{_num(sr['values'][peak])}")
            if sr.get("claimed_epsilon") is not None:
                head += (f"; claim {sr['claim']['text'] if sr.get('claim') else ''} gives "
                         f"ε = {_num(sr['claimed_epsilon'])} at δ = {_num(sr['delta'])}")
            lines.append(head)
            for key, value in (sr.get("facts") or {}).items():
                lines.append(f"  - {key}: {_num(value) if not isinstance(value, str) else value}")
            if sr.get("figure"):
                lines.append(f"  ![{sr['name']}]({sr['figure']})")
        lines.append("")

    unmet = [o for o in summary.unmet_expectations if o.verdict != "error"]
    if unmet:
        lines.append("## Unmet expectations")
        lines.append("")
        for o in unmet:
            point = (f" [{o.sweep.parameter}={_num(o.sweep.value)}]"
                     if o.sweep is not None else "")
            lines.append(f"- `{o.suite}` / `{o.audit}`{point} ({o.mechanism}): expected "
                         f"{o.expect}, got {o.verdict}")
        lines.append("")

    warned: dict[str, list[str]] = {}
    for r in records:
        for w in r.warnings:
            audits = warned.setdefault(w, [])
            if f"{r.suite}/{r.audit}" not in audits:
                audits.append(f"{r.suite}/{r.audit}")
    if warned:
        lines.append("## Warnings")
        lines.append("")
        for message, audits in warned.items():
            shown = ", ".join(f"`{a}`" for a in audits[:12])
            more = f" and {len(audits) - 12} more" if len(audits) > 12 else ""
            lines.append(f"- {_cell(message)} — {shown}{more}")
        lines.append("")

    errors = [(None, None, s["error"]) for s in suites if s.get("error")]
    errors += [(r.suite, r.audit, r.error) for r in records if r.error]
    if errors:
        lines.append("## Errors")
        lines.append("")
        for where, audit, message in errors:
            if where is None:  # a malformed suite: the message names the file
                lines.append(f"- {_cell(message)}")
            else:
                lines.append(f"- `{where}` / `{audit}`: {_cell(message)}")
        lines.append("")
    return "\n".join(lines)


def write_markdown(report: RunReport, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(report), encoding="utf-8")
    return path
