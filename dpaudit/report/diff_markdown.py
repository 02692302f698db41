"""The Markdown of a :class:`dpaudit.report.diff.RunDiff`: a pull-request comment.

A header (✅/❌ with the number of regressions, the counts of every kind of change, the two
runs compared, then what is comparable: the settings the runs differ in and what that means,
from :meth:`dpaudit.report.comparable.Comparison.notes`), then one section per non-empty kind
of change: the regressions (one line each), new and resolved violations and significant ε
changes as tables (a violation whose samples per side changed says so), expectations newly
met, audits added and removed as lists, and last, folded, the audit points not compared (not
selected by one run's ``--only``).  Rendering only: every number comes
from the diff (this module takes the diff object and does not import its type, so
:mod:`dpaudit.report.diff` can import it).

Every line of the diff that holds names (a certificate's or audit point's "suite / audit
[sweep] / pair @ δ=…", a regression, an error) is escaped whole with
:func:`dpaudit.report.md_escape.md_text`: the names cannot inject HTML, links, emphasis or
table cells (the sweep's brackets become ``\\[``, which renders as ``[``).
"""

from __future__ import annotations

from dpaudit.util.numbers import format_number
from dpaudit.report.glossary import plural
from dpaudit.report.md_escape import md_code, md_text

_MAX_LIST = 50  # longer lists are cut, with a "… and N more" line


def _num(value, digits: int = 4) -> str:
    return format_number(value, digits)


def _cell(text) -> str:
    """Text that holds names, as a table cell or list item: escaped."""
    return md_text(text)


def _bound(record) -> float | None:
    """A record's certified bound (``record.bound``); None for an error or no record."""
    return None if record is None or record.verdict == "error" else record.bound


def _table(header: list[str], rows: list[list]) -> list[str]:
    """A table; the first cell of each row (the certificate, with names) is escaped, the
    others are numbers and verdicts."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join([_cell(row[0]), *map(str, row[1:])]) + " |"
              for row in rows[:_MAX_LIST]]
    if len(rows) > _MAX_LIST:
        lines.append(f"\n… and {len(rows) - _MAX_LIST} more (see `dpaudit diff --format json`)")
    return lines + [""]


def _items(items) -> list[str]:
    items = list(items)
    lines = [f"- {_cell(i)}" for i in items[:_MAX_LIST]]
    if len(items) > _MAX_LIST:
        lines.append(f"- … and {len(items) - _MAX_LIST} more")
    return lines + [""]


def _samples(change) -> str:
    """``"samples 1,000,000 → 100,000"`` when the two certificates drew different samples per
    side (a change of power, not necessarily of the mechanism), else ""."""
    if change.old is None or change.old.samples == change.new.samples:
        return ""
    return f" (samples {change.old.samples:,} → {change.new.samples:,})"


def _verdict_rows(changes) -> list[list]:
    return [[c.where + _samples(c), _num(c.new.claimed_epsilon),
             "—" if c.old is None else f"{_num(_bound(c.old))} ({c.old.verdict})",
             f"{_num(_bound(c.new))} ({c.new.verdict})", c.expect] for c in changes]


def _interval(interval) -> str:
    return "—" if interval is None else f"[{_num(interval.lower)}, {_num(interval.upper)}]"


def render_diff_markdown(diff) -> str:
    """The Markdown text of ``diff`` (a :class:`dpaudit.report.diff.RunDiff`)."""
    regressions = diff.regressions
    mark = (f"❌ {len(regressions)} regression(s)" if regressions else "✅ no regression")
    added = len(diff.added_points) + len(diff.added_pairs) + len(diff.added_certificates)
    removed = (len(diff.removed_points) + len(diff.removed_pairs)
               + len(diff.removed_certificates))
    lines = [f"## dpaudit diff: {mark}", "",
             f"{diff.compared} certificates in both runs · {len(diff.new_violations)} new "
             f"violation(s) · {len(diff.resolved_violations)} resolved · "
             f"{len(diff.newly_unmet)} newly unmet · {len(diff.newly_met)} newly met · "
             f"{len(diff.new_errors)} new error(s) · {len(diff.significant_changes)} "
             f"significant ε change(s) · {added} added · {removed} removed",
             f"Old: {md_code(diff.old_source)} · new: {md_code(diff.new_source)}", "",
             *(md_text(note) for note in diff.comparison.notes(diff.compared)), ""]
    if regressions:
        lines += ["### Regressions", ""] + _items(regressions)
    header = ["certificate", "claimed ε", "ε_LB before", "ε_LB now", "expected"]
    if diff.new_violations:
        lines += ["### New violations", ""] + _table(header, _verdict_rows(diff.new_violations))
    if diff.resolved_violations:
        lines += ["### Resolved violations", ""] + _table(
            header, _verdict_rows(diff.resolved_violations))
    if diff.newly_met:
        lines += ["### Expectations newly met", ""] + _items(
            f"{p.where}: expected {p.expect}, got {p.new_verdict} (was {p.old_verdict})"
            for p in diff.newly_met)
    if diff.significant_changes:
        rows = [[c.where, f"{_num(_bound(c.old))} {_interval(c.old_interval)}",
                 f"{_num(_bound(c.new))} {_interval(c.new_interval)}",
                 f"{_num(c.old.claimed_epsilon)} → {_num(c.new.claimed_epsilon)}",
                 f"{_num(c.old.tightness, 3)} → {_num(c.new.tightness, 3)}"]
                for c in diff.significant_changes]
        lines += ["### Significant ε changes", "",
                  "The two certificates' intervals for the certifying event's ε (certified "
                  "ε_LB to the upper confidence bound from the same counts) do not overlap; "
                  "overlapping changes are sampling noise and not listed.", ""]
        lines += _table(["certificate", "ε_LB before [interval]", "ε_LB now [interval]",
                         "claimed ε", "tightness"], rows)
    for title, items in (("Audit points added", diff.added_points),
                         ("Audit points removed", diff.removed_points),
                         ("Pairs added", diff.added_pairs),
                         ("Pairs removed", diff.removed_pairs),
                         ("Certificates added", diff.added_certificates),
                         ("Certificates removed", diff.removed_certificates)):
        if items:
            lines += [f"### {title}", ""] + _items(items)
    c = diff.comparison
    for title, items in (("Not compared: not selected by the new run's --only",
                          c.not_selected_new),
                         ("Not compared: not selected by the old run's --only",
                          c.not_selected_old)):
        if items:
            lines += [f"<details><summary>{title} ({plural(len(items), 'audit point')})"
                      f"</summary>",
                      "", *_items(items), "</details>", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


__all__ = ["render_diff_markdown"]
