"""``summary.md`` — a pull-request comment rendered from the typed run report.

It never computes a certified number: every value comes from the
:class:`~dpaudit.report.json_report.RunReport` that results.json is written from, so the two
cannot disagree.  Layout, most important first:

1. the headline (:mod:`dpaudit.report.headline`: ``✅ PASS — 71/71 expectations met — 22
   known bugs detected, 0 unexpected violations``, or ``❌ FAIL — …`` saying what failed),
   the four counts (:mod:`dpaudit.report.glossary`) with the certificates by verdict, the
   run's facts (command, date, samples, workers, wall time);
2. unmet expectations, then errors — one line per distinct (suite, audit, message), not one
   per δ — then the unexpected violations as a table, the known bugs detected (violations of
   audit points that expect one) as a table inside ``<details>``, then the exact violations
   that could not be certified;
3. the parameters the audits left at their mechanisms' defaults (a row per audit; inside
   ``<details>`` when more than :data:`~dpaudit.results.defaults.MAX_AUDIT_LINES` audits do);
4. the full table (one row per certificate, ✓/✗ first) and the suites' Bonferroni families
   inside ``<details>`` (a blank line after ``<summary>`` so GitHub renders the Markdown
   table inside);
5. figures and closed-form series; the glossary of the counts, inside ``<details>``.

Vocabulary: :data:`dpaudit.report.glossary.GLOSSARY` (audit point, pair, test, certificate).

Figure links: ``results.json`` stores each figure relative to its own directory.  Pass
``out_dir`` — the output directory *as given on the command line* — and each link becomes
``out_dir/figure`` (POSIX separators, URL-quoted), which resolves from the directory the
command ran in: the repository root in CI, where the PR comment's readers look.  The commands
pass :func:`link_base` of the directory (an absolute one inside the current directory becomes
relative to it).  Without ``out_dir`` the links stay relative to summary.md's own directory.
"""

from __future__ import annotations

import math
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from dpaudit.util.atomic import write_text_atomic
from dpaudit.spec.coverage import FLOAT_FIXES
from dpaudit.util.numbers import format_number
from dpaudit.results.defaults import MAX_AUDIT_LINES, audit_defaults
from dpaudit.report.explain import pair_text
from dpaudit.results.sweep_curve import SweepCurve
from dpaudit.report.glossary import GLOSSARY, ReportCounts, plural
from dpaudit.report.headline import headline, verdict_counts, violation_kind
from dpaudit.report.json_report import RunReport
from dpaudit.report.md_escape import md_code, md_text

_COLUMNS = ("✓/✗", "audit", "mechanism", "pair", "at", "claimed ε", "certified ε_LB",
            "white-box ε_LB", "exact ε", "detectable ε", "verdict", "expected")


def _num(value, digits: int = 4) -> str:
    return format_number(value, digits)


def _cell(text) -> str:
    """User-supplied text (a name, a message) as a table cell or list item: escaped."""
    return md_text(text)


def _samples_text(run) -> str:
    values = sorted({test.samples for point in run.points for test in point.tests})
    if not values:
        return "no samples"
    if len(values) == 1:
        return f"{values[0]:,} per side"
    return f"{values[0]:,}–{values[-1]:,} per side"


def _sweep(sweep) -> str:
    return ("" if sweep is None else
            f" [{md_text(sweep.parameter)}={md_text(_num(sweep.value))}]")


def _point(suite, audit, sweep) -> str:
    return f"{md_code(suite)} / {md_code(audit)}" + _sweep(sweep)


def _audit_label(point) -> str:
    """The audit's name (escaped), with its swept value for a point of a swept audit."""
    return md_text(point.audit) + _sweep(point.sweep)


def _at(c) -> str:
    """Where a certificate (or a record) is read: ``δ=…`` or ``α=… (RDP)``."""
    return f"δ={_num(c.delta)}" if c.notion == "dp" else f"α={_num(c.alpha)} (RDP)"


def link_base(directory: str | Path) -> str:
    """``directory`` as links should start it: as given, except that an absolute directory
    inside the current working directory is made relative to it (a PR comment cannot follow
    an absolute path)."""
    path = Path(directory)
    if path.is_absolute():
        try:
            return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
        except (ValueError, OSError):
            return path.as_posix()
    return path.as_posix()


def figure_link(path: str, out_dir: str | Path | None) -> str:
    """The link to a figure stored as ``path`` (relative to results.json's directory): under
    ``out_dir`` when given (see the module docstring), URL-quoted (spaces and the like)."""
    link = path
    if out_dir is not None:
        base = PurePosixPath(Path(out_dir).as_posix())
        link = str(base / path) if str(base) not in ("", ".") else path
    return quote(link, safe="/:")


def _header(report: RunReport) -> list[str]:
    run, summary, prov = report.run, report.summary, report.provenance
    skipped = sum(1 for s in run.suites if s.skipped)
    counts = ReportCounts.of(run)
    facts = (f"{counts.text()}: {verdict_counts(report)} · "
             f"{plural(len(summary.exact_only_violations), 'exact-only violation')} · "
             f"{plural(len(run.suites), 'suite file')}"
             + (f", {summary.suite_errors} malformed" if summary.suite_errors else "")
             + (f", {skipped} skipped" if skipped else "")
             + f" · exit status {summary.exit_status}")
    only = ([f"Only audits matching {', '.join(md_code(p) for p in run.only)} (`--only`; "
             "families and seeds are those of the full suites)"]
            if getattr(run, "only", ()) else [])
    line = headline(report)
    result = f"{line.mark} {md_text(line.text())}"  # a stopped run says so, and why
    return [f"## {result}", "", facts,
            f"{md_code(prov.command)} · {md_text(prov.created)} · "
            f"dpaudit {prov.dpaudit_version} · "
            f"{_samples_text(run)} (profile {run.profile}) · {_where(run)} · "
            f"{run.seconds:.1f} s", *only, ""]


def _where(run) -> str:
    """Where the run executed: local worker processes or the Dask cluster it named."""
    backend = getattr(run, "backend", "local") or "local"
    return f"{run.workers} worker(s)" if backend == "local" else backend


def _problems(report: RunReport) -> list[str]:
    lines, points = [], report.run.points
    unmet = [p for p in points if not p.met_expectation and p.verdict != "error"]
    if unmet:
        lines += ["### Unmet expectations", ""]
        for point in unmet:
            found = [(t, c) for t, c in point.certificates() if c.verdict != "error"]
            best = max(found, default=None,
                       key=lambda tc: (tc[1].bound or 0.0) - (tc[1].claimed_epsilon or 0.0))
            evidence = ("" if best is None else
                        f" (largest ε_LB − claim: pair {md_code(best[0].pair_name)} "
                        f"{_at(best[1])}: "
                        f"ε_LB {_num(best[1].bound)} vs claimed "
                        f"{_num(best[1].claimed_epsilon)})")
            lines.append(f"- {_point(point.suite, point.audit, point.sweep)} "
                         f"({md_text(point.mechanism)}): expected {point.expect}, got "
                         f"{point.verdict}{evidence}")
        lines.append("")
    errors = list(dict.fromkeys(f"- {_cell(s.error)}" for s in report.run.suites if s.error))
    for point in points:  # one line per distinct message of a point, not one per δ
        messages: dict[str, int] = {}
        for test in point.tests:
            if test.error:
                messages[test.error] = messages.get(test.error, 0) + len(test.certificates)
        errors += [f"- {_point(point.suite, point.audit, point.sweep)}: {_cell(message)}"
                   + (f" ({plural(count, 'certificate')})" if count > 1 else "")
                   for message, count in messages.items()]
    if errors:
        lines += ["### Errors", "", *errors, ""]
    return lines + _warnings(points)


def _warnings(points) -> list[str]:
    """One line per distinct warning (e.g. a sampler that ignores its rng), with the audits
    that raised it."""
    warned: dict[str, list[str]] = {}
    for point in points:
        note = (None if point.coverage is None else point.coverage.note)  # "only the named pairs were audited …"
        if note:
            audits = warned.setdefault(note, [])
            if f"{point.suite}/{point.audit}" not in audits:
                audits.append(f"{point.suite}/{point.audit}")
        for test in point.tests:
            for w in test.warnings:
                audits = warned.setdefault(w, [])
                if f"{point.suite}/{point.audit}" not in audits:
                    audits.append(f"{point.suite}/{point.audit}")
    if not warned:
        return []
    lines = ["### Warnings", ""]
    for message, audits in warned.items():
        shown = ", ".join(md_code(a) for a in audits[:12])
        more = f" and {len(audits) - 12} more" if len(audits) > 12 else ""
        lines.append(f"- {_cell(message)} — {shown}{more}")
    return lines + [""]


_VIOLATION_COLUMNS = ("✓/✗", "audit", "pair", "at", "claimed ε", "certified ε_LB", "exact ε")


def _source(search) -> str:
    """``random``, or ``proposal: huge-value`` for a searched pair that is a named adversarial
    proposal of the dataset space."""
    name = search.extra.get("proposal")
    return f"{search.source}: {name}" if name else search.source


def _violation_table(rows) -> list[str]:
    """The table of violation certificates ``rows`` ((point, test, certificate) each), ✓/✗
    (the audit point's) first."""
    lines = ["| " + " | ".join(_VIOLATION_COLUMNS) + " |",
             "|" + "|".join("---" for _ in _VIOLATION_COLUMNS) + "|"]
    for point, test, c in rows:
        bound = (_num(c.bound) + (" (floating point)" if c.floating_point else "")
                 + (f" ({_cell(c.rejection_reason)})" if c.rejection_reason else ""))
        pair = (_cell(test.pair_name or "—") if test.search is None  # searched: its datasets
                else _cell(pair_text(test.pair, test.pair_name) + f" [{_source(test.search)}]"))
        lines.append("| " + " | ".join((
            "✓" if point.met_expectation else "✗", _audit_label(point),
            pair, _at(c), _num(c.claimed_epsilon), bound,
            _num(c.exact_epsilon))) + " |")
    return lines + [""]


def _violations(report: RunReport) -> list[str]:
    """The unexpected violations (a table), the known bugs detected (a table inside
    ``<details>``), the floating-point findings, the exact violations not certified."""
    lines = []
    violations = [(point, test, c) for point in report.run.points
                  for test, c in point.certificates() if c.verdict == "violation"]
    unexpected = [v for v in violations if violation_kind(v[0], v[2]) == "unexpected"]
    expected = [v for v in violations if violation_kind(v[0], v[2]) == "expected"]
    if unexpected:
        points = len({id(p) for p, _, _ in unexpected})
        lines += [f"### ❌ Unexpected violations ({plural(len(unexpected), 'certificate')} of "
                  f"{plural(points, 'audit point')} expected consistent)", "",
                  *_violation_table(unexpected)]
    if expected:
        points = len({id(p) for p, _, _ in expected})
        lines += [f"<details><summary>Known bugs detected as expected: "
                  f"{plural(len(expected), 'violation')} of "
                  f"{plural(points, 'audit point')} expecting one</summary>", "",
                  *_violation_table(expected), "</details>", ""]
    floating = [(point, test, c) for point, test, c in violations if c.floating_point]
    if floating:
        lines += ["### Floating-point violations", "",
                  "Certified only by an event on the outputs' float64 representation: "
                  "the value-level bound is within the claim. " + _cell(FLOAT_FIXES) + ".",
                  ""]
        for point, test, c in floating:
            expected_text = (" (detected as expected)"
                             if violation_kind(point, c) == "expected" else "")
            lines.append(f"- {_audit_label(point)} pair {md_code(test.pair_name or '—')} "
                         f"{_at(c)}{expected_text}: ε_LB = {_num(c.bound)}, value-level "
                         f"ε_LB = {_num(c.value_epsilon_lower_bound)}: "
                         f"{_cell(c.floating_point_finding)}")
        lines.append("")
    exact_only = report.summary.exact_only_violations
    if exact_only:
        lines += ["### Exact violations not certified at this sample size", "",
                  "The pair's exact ε exceeds the claim, but the events that show it are too "
                  "rare to certify with these samples (only certified violations fail a run):",
                  ""]
        for e in exact_only:
            lines.append(f"- {_point(e.suite, e.audit, e.sweep)} pair {md_code(e.pair_name)} "
                         f"{_at(e)}: exact ε = {_num(e.exact_epsilon)} > claimed "
                         f"{_num(e.claimed_epsilon)}; certified ε_LB = "
                         f"{_num(e.epsilon_lower_bound)}")
        lines.append("")
    return lines


def _defaults(report: RunReport) -> list[str]:
    """One line per audit that left parameters at their defaults (none for records of a file
    written before they were recorded)."""
    entries = audit_defaults(report.run.points)
    if not entries:
        return []
    table = ["| audit | left at the mechanism's default |", "|---|---|",
             *(f"| {md_code(e.suite, table=True)} / {md_code(e.audit, table=True)} | "
               f"{_cell(e.text())} |" for e in entries), ""]
    title = (f"Parameters left at their defaults ({len(entries)} "
             f"audit{'' if len(entries) == 1 else 's'}: not set in the suite file)")
    if len(entries) <= MAX_AUDIT_LINES:
        return [f"### {title}", "", *table]
    return [f"<details><summary>{title}</summary>", "", *table, "</details>", ""]


def certificate_verdict(point, c) -> str:
    """A certificate's verdict as the full table shows it: an unexpected violation in bold,
    a violation of an audit point that expects one "detected as expected"."""
    kind = violation_kind(point, c)
    what = "floating-point violation" if c.floating_point else "violation"
    if kind == "unexpected":
        return f"**{what}**"
    if kind == "expected":
        return f"{what}, detected as expected"
    if c.exact_verdict == "violation":
        return f"{c.verdict} (exact ε > claim, not certifiable here)"
    if c.underpowered:
        return f"{c.verdict}, underpowered"
    return c.verdict


def _full_table(report: RunReport) -> list[str]:
    run, certificates = report.run, report.summary.certificates
    lines = [f"<details><summary>All {plural(certificates, 'certificate')} "
             f"({plural(report.summary.audits, 'audit point')} in "
             f"{plural(len(run.suites), 'suite file')})</summary>", ""]
    for s in run.suites:
        if s.error:
            lines.append(f"- suite {md_code(s.file)}: **malformed** (see Errors)")
        elif s.skipped:
            lines.append(f"- suite {md_code(s.file)}: skipped: {_cell(s.skipped)}")
        else:
            tests = s.tests_run
            shares = ("" if tests == s.family_size else f"N = {s.family_size} shares, ")
            lines.append(f"- suite {md_code(s.file)} ({md_text(s.name)}): family-wise confidence "
                         f"{s.confidence:g} over {plural(tests, 'test')} ({shares}each at "
                         f"{s.per_certificate_confidence:.6g}), seed {s.seed}")
    lines.append("")
    if certificates:
        lines.append("| " + " | ".join(_COLUMNS) + " |")
        lines.append("|" + "|".join("---" for _ in _COLUMNS) + "|")
        for point in run.points:
            for test, c in point.certificates():
                row = ["✓" if point.met_expectation else "✗", _audit_label(point),
                       _cell(point.mechanism), _cell(test.pair_name or "—"), _at(c),
                       _num(c.claimed_epsilon), _num(c.epsilon_lower_bound),
                       _num(c.white_box_epsilon_lower_bound), _num(c.exact_epsilon),
                       _num(c.detectable_epsilon), certificate_verdict(point, c),
                       point.expect]
                lines.append("| " + " | ".join(row) + " |")
        lines += ["", "✓/✗ is per audit point (an expected violation is met when any of its "
                  "pairs, δs or αs certifies one).  ε_LB holds with the suite's family-wise "
                  "confidence over its tests.  White-box: the same certificate from the "
                  "exact likelihood ratio, where the mechanism has a log-density.  For RDP "
                  "rows the numbers are Rényi ε(α).  Detectable ε: the smallest true ε(δ) "
                  "the same test would certify with probability ≥ 1/2 at these samples "
                  "(dpaudit.stats.power); ∞ when no event of the test could certify a "
                  "violation at these samples."]
    return lines + ["", "</details>", ""]


def _glossary() -> list[str]:
    """The glossary of the counts (:data:`~dpaudit.report.glossary.GLOSSARY`), folded."""
    return ["<details><summary>Glossary: audit point, pair, test, certificate</summary>", "",
            *(f"- **{t.word}**: {md_text(t.meaning)}" for t in GLOSSARY), "", "</details>", ""]


def _figures_and_series(report: RunReport, out_dir) -> list[str]:
    lines = []
    figures = [(c, path) for c, path in report.curve_figures() if path]
    if figures:
        lines += ["### Figures", ""]
        for c, path in figures:
            what = (f" ε over {md_text(c.parameter)} at δ = {_num(c.delta)}"
                    if isinstance(c, SweepCurve) else "")
            lines.append(f"- {md_code(c.audit)} / {md_code(c.pair)}{what}: "
                         f"![{md_text(c.audit)}]({figure_link(path, out_dir)})")
        lines.append("")
    series = report.series_figures()
    if series:
        lines += ["### Series (closed form, not certified)", ""]
        for sr, path in series:
            head = (f"- {md_code(sr.name)} ({md_text(sr.mechanism)}, "
                    f"{md_text(sr.quantity)} over {md_text(sr.parameter)})")
            if sr.error:
                lines.append(f"{head}: **error** {_cell(sr.error)}")
                continue
            finite = [(y, i) for i, y in enumerate(sr.y or ())
                      if isinstance(y, (int, float)) and math.isfinite(y)]
            if finite:
                peak, at = max(finite, key=lambda row: row[0])
                head += (f": peak {_num(peak)} at {md_text(sr.parameter)} = "
                         f"{md_text(_num(sr.values[at]))}")
            if sr.claimed_epsilon is not None:
                head += (f"; claim {md_text(sr.claim_text) if sr.claim else ''} gives "
                         f"ε = {_num(sr.claimed_epsilon)} at δ = {_num(sr.delta)}")
            lines.append(head)
            for key, value in (sr.facts or {}).items():
                lines.append(f"  - {md_text(key)}: "
                             f"{md_text(_num(value) if not isinstance(value, str) else value)}")
            if path:
                lines.append(f"  ![{md_text(sr.name)}]({figure_link(path, out_dir)})")
        lines.append("")
    return lines


def render_markdown(report: RunReport, *, out_dir: str | Path | None = None) -> str:
    """The summary.md text of a run report (layout and ``out_dir`` in the module docstring)."""
    lines = (_header(report) + _problems(report) + _violations(report) + _defaults(report)
             + _full_table(report) + _figures_and_series(report, out_dir) + _glossary())
    return "\n".join(lines).rstrip("\n") + "\n"


def write_markdown(report: RunReport, path: str | Path, *,
                   out_dir: str | Path | None = None) -> Path:
    """Write :func:`render_markdown` to ``path`` atomically."""
    return write_text_atomic(path, render_markdown(report, out_dir=out_dir))


__all__ = ["certificate_verdict", "figure_link", "link_base", "render_markdown",
           "write_markdown"]
