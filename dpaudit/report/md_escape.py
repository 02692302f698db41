"""Markdown escaping of user-supplied names (suite, audit, pair, mechanism, parameter, claim
text, messages) in summary.md and diff.md — both are pull-request comments, so a name must not
inject raw HTML, links, emphasis or table cells, nor break a line.

:func:`md_text` is the one escaping function: a name as Markdown text (a table cell, a list
item, a link's text).  Every line break (``\\n``, ``\\r``, U+2028, …) becomes a space and a
backslash goes before every character that Markdown (GitHub-flavoured) gives a meaning inside a
line: ``\\ ` * [ ] < > | ~ & $`` (``$``: GitHub's math), and ``_`` unless it is *inside* a word
(a letter or digit on both sides, where it can neither open nor close emphasis — so
``gaussian_mixing`` stays as it is).  Characters that matter only at the start of a line
(``#``, ``-``, ``+``, ``1.``) are left alone: a name never starts a line here.  A name with
none of these characters is returned unchanged, so the shipped suites' summary.md is
byte-identical to what it was before names were escaped.

:func:`md_code` is the same name inside a code span (how summary.md shows suite and audit
names): inside backticks Markdown takes everything literally except a backtick and, in a
table, ``|``; so line breaks become spaces, the span is fenced by one backtick more than the
name's longest run of them (padded with spaces when the name starts or ends with one), and
``table=True`` escapes ``|``.
"""

from __future__ import annotations

import re

#: characters escaped with a backslash wherever they are (see the module docstring)
SPECIAL = frozenset("\\`*[]<>|~&$")


def _one_line(text) -> str:
    return " ".join(str(text).splitlines())


def md_text(text) -> str:
    """``text`` as Markdown text that renders as exactly its characters, on one line."""
    s = _one_line(text)
    out = []
    for i, ch in enumerate(s):
        if ch in SPECIAL:
            out.append("\\" + ch)
        elif ch == "_" and not (0 < i < len(s) - 1 and s[i - 1].isalnum()
                                and s[i + 1].isalnum()):
            out.append("\\_")
        else:
            out.append(ch)
    return "".join(out)


def md_code(text, *, table: bool = False) -> str:
    """``text`` as a Markdown code span (``table=True`` inside a table cell)."""
    s = _one_line(text)
    if table:
        s = s.replace("|", "\\|")
    runs = [len(r) for r in re.findall(r"`+", s)]
    fence = "`" * (max(runs, default=0) + 1)
    if s.startswith("`") or s.endswith("`"):
        s = f" {s} "
    return f"{fence}{s}{fence}"


__all__ = ["md_code", "md_text"]
