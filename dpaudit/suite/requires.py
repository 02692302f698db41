"""The ``requires`` key of a suite's ``[suite]`` table: the optional libraries it needs.

A suite auditing a library that is an optional extra (``audits/external/*.toml``) declares it::

    [suite]
    requires = ["diffprivlib"]       # import names; each must import for the suite to run

When one is missing, the suite is **skipped**, not an error: :func:`check_requires` raises
:class:`SuiteSkipped` with one line naming the missing library and the extra that installs it;
``dpaudit run`` prints it, records the suite with ``skipped`` set, and the exit status is
unaffected.  A ``requires`` that is not a list of top-level import names (identifiers, no dots)
is a :class:`~dpaudit.suite.fields.SuiteError`.

Reading a suite must not run code it names (issue 39, item 3: ``requires =
["unittest.__main__"]`` ran unittest's command line at parse time).  So only the libraries
dpaudit adapts (:data:`~dpaudit.mechanisms.external.common.LIBRARIES`: diffprivlib, opendp, …)
are imported here — a library that is installed but fails to import skips the suite too; any
other name is only *looked up* (:func:`importlib.util.find_spec` of a top-level name runs
nothing), and is imported, if at all, by the project's own code when an audit runs.
"""

from __future__ import annotations

import importlib.util

from dpaudit.spec.fields import Where


class SuiteSkipped(Exception):
    """A suite whose required library is missing; the message is one line for the user."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: skipped: {message}")
        self.path, self.reason = path, message


def check_requires(table: dict, where: Where, path: str) -> tuple[str, ...]:
    """The ``requires`` list of a ``[suite]`` table; :class:`SuiteSkipped` if one is missing.

    Raises:
      SuiteError: ``requires`` is not a list of non-empty strings.
      SuiteSkipped: a listed library does not import."""
    from dpaudit.mechanisms.external.common import LIBRARIES, LibraryMissing, require

    value = table.get("requires", [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.isidentifier()
                                              for v in value):
        raise where.error("requires", "a list of top-level library import names (no dots), "
                                      "e.g. [\"diffprivlib\"]", value)
    for library in value:
        try:
            if library in LIBRARIES:
                require(library)
            elif importlib.util.find_spec(library) is None:
                raise LibraryMissing(library)
        except (LibraryMissing, ImportError, ValueError):
            dist, extra = LIBRARIES.get(library, (library, None))
            how = (f"pip install 'dpaudit[{extra}]'" if extra else f"pip install {dist}")
            raise SuiteSkipped(path, f"requires {library}, which is not installed ({how})") \
                from None
    return tuple(value)


__all__ = ["SuiteSkipped", "check_requires"]
