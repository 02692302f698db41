"""The names of the kinds of audit, known before any procedure is imported.

A suite's ``[[audit]]`` names its procedure with ``kind`` (default :data:`DEFAULT_KIND`).  The
procedures themselves live in :mod:`dpaudit.audit.procedures` (above the suite parser, which
must not import them); this module holds only their names — the built-in ones and the names of
the plug-ins installed under the ``dpaudit.procedures`` entry-point group (read from package
metadata, nothing imported) — so that a suite is checked for an unknown kind, with "did you
mean", while it is parsed.  ``tests/audit/test_procedures.py`` checks that this list and the
procedure table agree.
"""

from __future__ import annotations

#: the entry-point group of plug-in audit procedures
ENTRY_POINT_GROUP = "dpaudit.procedures"
#: the built-in kinds, in the order the docs list them
BUILTIN_KINDS = ("pair", "exact-curve", "canary", "replay")
#: the kind of an ``[[audit]]`` that names none
DEFAULT_KIND = "pair"


def known_kinds() -> tuple[str, ...]:
    """The built-in kinds, then every installed plug-in's (by entry-point name)."""
    from importlib.metadata import entry_points

    plugins = [e.name for e in entry_points(group=ENTRY_POINT_GROUP)
               if e.name not in BUILTIN_KINDS]
    return BUILTIN_KINDS + tuple(sorted(set(plugins)))


__all__ = ["BUILTIN_KINDS", "DEFAULT_KIND", "ENTRY_POINT_GROUP", "known_kinds"]
