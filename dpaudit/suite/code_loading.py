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
sampler and :func:`~dpaudit.suite.target_keys.check_mechanism` builds nothing (a registered
name is still checked against the registry), and a suite's Rényi orders are not checked
against the claim.  Everything else — keys, types, ranges, names, pairs, sweeps — is checked
as usual.
"""

from __future__ import annotations

import contextlib
import contextvars

_DEFERRED: contextvars.ContextVar[bool] = contextvars.ContextVar("dpaudit_code_deferred",
                                                                 default=False)


@contextlib.contextmanager
def deferring_code():
    """Within the block, reading a suite imports and builds none of the code it names."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


def code_deferred() -> bool:
    """Whether suites are being read without their code (:func:`deferring_code`)."""
    return _DEFERRED.get()


__all__ = ["code_deferred", "deferring_code"]
