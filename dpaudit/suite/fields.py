"""A suite file's errors: :class:`SuiteError` (a malformed file) and :func:`combined_error`
(every bad audit of a file at once).

The typed readers of the values themselves are the spec's (:mod:`dpaudit.spec.fields`): a
suite row, the Python API and ``dpaudit check`` read an audit with the same readers and get the
same messages.
"""

from __future__ import annotations

from dpaudit.spec.fields import SpecError

#: a malformed suite file: the message names the file, the audit, the key and the fix (the
#: spec's error, named in a suite's terms: the readers raise it wherever an audit comes from)
SuiteError = SpecError


def combined_error(path: str, errors: list) -> SuiteError:
    """One :class:`SuiteError` listing every problem of ``errors`` (the file's bad audits and
    series): the error itself when there is one, else a first line counting them and one
    ``  - audit …: key …: expected …`` line each (the file name not repeated)."""
    if len(errors) == 1:
        return errors[0]
    lines = [f"{path}: {len(errors)} problems (all are listed; the file runs once every one "
             f"is fixed):"]
    problems = [p for e in errors for p in e.problems]
    prefix = f"{path}: "
    lines += [f"  - {p[len(prefix):] if p.startswith(prefix) else p}" for p in problems]
    return SuiteError("\n".join(lines), problems)


__all__ = ["SuiteError", "combined_error"]
