"""``comment.md`` — the pull-request comment, always within the platform's size limit.

summary.md grows with the run (63 299 characters for the default run; a δ list of 1000 gave
352 KB and 2000 audits 870 KB), and GitHub refuses a comment over 65 536 characters: the CI
example's comment step then failed — softly, as it must for forks — and the comment vanished
(issue 39, item 10).  :func:`fit_comment` joins diff.md (when there is one) and summary.md
and, when that is longer than ``limit`` characters, keeps whole lines from the start — the
headline, the unmet expectations, errors and violations come first in both files — up to the
limit less a closing note, closes a code fence or ``<details>`` block left open, and ends
with that note: how much was shown, and a link to the full report (``link``: e.g. the CI
run's page with its artefact; without one, the note names summary.md and report.html of the
run's output).  The result is never longer than ``limit`` (:data:`GITHUB_COMMENT_LIMIT` by
default; GitLab's note limit, 1 000 000, is larger).
"""

from __future__ import annotations

from pathlib import Path

from dpaudit.util.atomic import write_text_atomic

#: the most characters GitHub accepts in an issue or pull-request comment
GITHUB_COMMENT_LIMIT = 65_536


def _closing(kept: list[str]) -> str:
    """What closes the Markdown/HTML blocks the kept lines leave open."""
    out = ""
    fences = sum(1 for line in kept if line.lstrip().startswith("```"))
    if fences % 2:
        out += "```\n"
    opened = sum(line.count("<details") for line in kept)
    closed = sum(line.count("</details>") for line in kept)
    out += "</details>\n" * max(0, opened - closed)
    return out


def fit_comment(sections: list[str], *, limit: int = GITHUB_COMMENT_LIMIT,
                link: str | None = None) -> str:
    """``sections`` (Markdown texts, e.g. diff.md and summary.md) as one comment of at most
    ``limit`` characters (see the module docstring)."""
    text = "\n\n".join(s.strip("\n") for s in sections if s and s.strip()) + "\n"
    if len(text) <= limit:
        return text
    lines = text.splitlines(keepends=True)
    where = (f"the full summary and report.html: {link}" if link else
             "the full summary.md and report.html are in the run's output (its artefact)")

    def note(shown: int) -> str:
        return (f"\n---\n**Cut to fit a pull-request comment** ({limit:,} characters): the "
                f"first {shown:,} of {len(lines):,} lines are shown; {where}\n")

    kept: list[str] = []
    used = 0
    for line in lines:
        closing = _closing(kept + [line])
        if used + len(line) + len(closing) + len(note(len(kept) + 1)) > limit:
            break
        kept.append(line)
        used += len(line)
    out = "".join(kept) + _closing(kept) + note(len(kept))
    if len(out) > limit:  # a link longer than the limit itself: the note alone, cut
        out = note(0)[:limit]
    return out


def write_comment(sections: list[str], path: str | Path, *, limit: int = GITHUB_COMMENT_LIMIT,
                  link: str | None = None) -> Path:
    """Write :func:`fit_comment` to ``path`` atomically."""
    return write_text_atomic(path, fit_comment(sections, limit=limit, link=link))


__all__ = ["GITHUB_COMMENT_LIMIT", "fit_comment", "write_comment"]
