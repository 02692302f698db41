"""Reading a suite without running its code: the syntax pass.

A suite names code (``mechanism = "file.py:Class"``, ``sampler = "file.py:fn"``), and checking
an audit fully imports that code and builds the mechanism with the audit's parameters.  Some
readers must not run it (issue 39, item 3):

* a **malformed file** — an unknown key in one audit — is refused as a whole, so the code its
  other audits name must not run either: :func:`dpaudit.suite.spec.parse_suite` first reads the
  whole file under :func:`deferring_code` and raises every problem that needs no code; only a
  file that passes is read again with its code;
* **collection** (``pytest --collect-only``, the plugin's items) needs the audits' names and
  sweep points, not their code: ``load_suite(path, load_code=False)``.

Under :func:`deferring_code`, :func:`dpaudit.suite.target_keys.parse_target` does not import a
sampler and :func:`~dpaudit.suite.target_keys.check_mechanism` builds no user code (a
registered mechanism — dpaudit's own, or an installed plug-in — is built and checked as
usual), and the Rényi orders of a user's code are not checked against its claim.  Everything
else — keys, types, ranges, names, pairs, sweeps — is checked as usual.  The second pass of
:func:`~dpaudit.suite.spec.parse_suite` reads in :data:`USER_CODE_ONLY` mode, so no
registered mechanism is built twice.
"""

from __future__ import annotations

import contextlib
import contextvars

#: what reading a suite checks: everything; all but user code (the syntax pass); user code only
ALL, NO_USER_CODE, USER_CODE_ONLY = "all", "no-user-code", "user-code-only"

_MODE: contextvars.ContextVar[str] = contextvars.ContextVar("dpaudit_code_mode", default=ALL)


@contextlib.contextmanager
def reading(mode: str):
    """Within the block, read suites in ``mode`` (:data:`ALL`, :data:`NO_USER_CODE`,
    :data:`USER_CODE_ONLY`)."""
    token = _MODE.set(mode)
    try:
        yield
    finally:
        _MODE.reset(token)


def deferring_code():
    """Within the block, reading a suite imports and builds none of the user code it names
    (registered mechanisms, dpaudit's own or installed plug-ins, are still built)."""
    return reading(NO_USER_CODE)


def mode() -> str:
    return _MODE.get()


def code_deferred() -> bool:
    """Whether suites are being read without their user code (:func:`deferring_code`)."""
    return _MODE.get() == NO_USER_CODE


def checks(target) -> bool:
    """Whether reading now checks ``target`` by building it: user code (a ``module:Attr`` or
    ``file.py:Attr`` reference) unless deferred, a registered mechanism unless only user code
    is checked (the syntax pass did)."""
    user = ":" in str(getattr(target, "reference", ""))
    current = _MODE.get()
    return current == ALL or (current == NO_USER_CODE and not user) or \
        (current == USER_CODE_ONLY and user)


__all__ = ["ALL", "NO_USER_CODE", "USER_CODE_ONLY", "checks", "code_deferred",
           "deferring_code", "mode", "reading"]
