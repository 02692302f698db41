"""Certified formulas: the mechanisms' noise calibrations, read from ``proofs/certificates``.

Contract.  ``load_formula(family, name)`` returns the :class:`SymbolicFormula` that the
derivation ``proofs/<family>.py`` recorded as ``name`` in
``proofs/certificates/<family>.json`` (its sympy ``srepr``, sympified; over plain symbols, the
ones the mechanism modules use).  The mechanism modules take every calibration from here —
``LAPLACE_SCALE = load_formula("classic", "laplace_scale")`` — so a formula typed by hand
cannot drift from its proof.

Before any formula of a family is used its certificate is verified, once per process:

* the file exists, parses, and has the certificate format this loader reads;
* ``content_sha256`` matches its content (a hand edit of a formula is refused);
* every checked step of the derivation passed;
* the SHA-256 recorded for ``proofs/<family>.py`` and ``proofs/framework.py`` match the
  installed sources, i.e. the certificate was produced by the derivation as it is now.

Any failure raises :class:`CertificateError` naming the family and the file, and the fix
(``dpaudit prove FAMILY``, which re-runs the derivation and rewrites the certificate).
"""

from __future__ import annotations

import functools
import json

import sympy as sp

from dpaudit.claims.symbolic import SymbolicFormula


class CertificateError(RuntimeError):
    """A certificate is missing, malformed, edited by hand, failed, or stale."""


def _default_directory():
    from proofs import certificate_directory

    return certificate_directory()


@functools.lru_cache(maxsize=None)
def load_certificate(family: str, directory=None) -> dict:
    """The verified certificate document of ``family`` (see the module docstring).

    ``directory`` defaults to the installed ``proofs/certificates``; the derivation sources
    checked against the recorded hashes are always the installed ``proofs`` modules."""
    from importlib import resources

    from proofs.framework import FORMAT, content_sha256, source_sha256

    base = _default_directory() if directory is None else directory
    path = base / f"{family}.json"
    fix = f"run `dpaudit prove {family}` to re-derive it"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CertificateError(f"no certificate for proof family {family!r}: {path} is missing; "
                               f"{fix}") from None
    except (OSError, ValueError) as exc:
        raise CertificateError(f"certificate {path} (family {family!r}) is unreadable: {exc}; "
                               f"{fix}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("family") != family:
        raise CertificateError(f"certificate {path} is not a format-{FORMAT} certificate of "
                               f"family {family!r}; {fix}")
    if doc.get("content_sha256") != content_sha256(doc):
        raise CertificateError(f"certificate {path} (family {family!r}) was edited by hand: its "
                               f"content no longer matches its content_sha256; {fix}")
    failed = [s["id"] for steps in doc.get("sections", {}).values() for s in steps
              if s.get("result") != "passed"]
    if failed or doc.get("summary", {}).get("failed", 1) != 0:
        raise CertificateError(f"certificate {path} (family {family!r}) records failed steps "
                               f"{failed}; fix the derivation proofs/{family}.py and {fix}")
    sources = resources.files("proofs")
    for key, name in (("source", f"{family}.py"), ("framework", "framework.py")):
        recorded = (doc.get(key) or {}).get("sha256")
        try:
            actual = source_sha256(sources / name)
        except FileNotFoundError:
            raise CertificateError(f"certificate {path} (family {family!r}): the derivation "
                                   f"source proofs/{name} is not installed, so the recorded "
                                   f"hash {recorded} cannot be checked") from None
        if recorded != actual:
            raise CertificateError(f"certificate {path} (family {family!r}) is stale: "
                                   f"proofs/{name} has SHA-256 {actual[:12]}…, the certificate "
                                   f"was derived from {str(recorded)[:12]}…; {fix}")
    return doc


@functools.lru_cache(maxsize=None)
def load_formula(family: str, name: str) -> SymbolicFormula:
    """The certified formula ``name`` of ``family`` as a :class:`SymbolicFormula`.

    Its ``name`` is the entry's symbol (``"b"``, ``"sigma"`` …) and its description says
    where it was proved."""
    doc = load_certificate(family)
    entry = doc["entries"].get(name)
    if entry is None:
        raise CertificateError(f"certificate proofs/certificates/{family}.json has no formula "
                               f"{name!r} (family {family!r} has: "
                               f"{', '.join(sorted(doc['entries']))})")
    expression = sp.sympify(entry["srepr"])
    return SymbolicFormula(entry["symbol"], expression,
                           f"{entry['description']} [certified: proofs/{family}.py, "
                           f"proofs/certificates/{family}.json#{name}]")


def certified_names(family: str) -> list[str]:
    """The formula names recorded in ``family``'s certificate."""
    return sorted(load_certificate(family)["entries"])
