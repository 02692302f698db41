"""Certified formulas: the mechanisms' noise calibrations, read from ``proofs/certificates``.

Contract.  ``load_formula(family, name)`` returns the :class:`SymbolicFormula` that the
derivation ``proofs/<family>.py`` recorded as ``name`` in
``proofs/certificates/<family>.json`` (its sympy ``srepr``, sympified; over plain symbols, the
ones the mechanism modules use).  The repository's ``proofs/`` folder is installed as the
package :data:`DERIVATIONS_PACKAGE` (``dpaudit.proofs``).  The mechanism modules take every
calibration from here — ``LAPLACE_SCALE = load_formula("classic", "laplace_scale")`` — so a
formula typed by hand cannot drift from its proof.

Before any formula of a family is used its certificate is verified, once per process:

* the file exists, parses, and has the certificate format this loader reads;
* ``content_sha256`` matches its content (a hand edit of a formula is refused);
* every checked step of the derivation passed;
* the SHA-256 recorded for ``proofs/<family>.py`` and ``proofs/framework.py`` match the
  installed sources, i.e. the certificate was produced by the derivation as it is now.

Any failure raises :class:`CertificateError` naming the family and the file, and the fix
(``dpaudit prove FAMILY``, which re-runs the derivation and rewrites the certificate).

The certificate *format* is defined here, beside the one reader that trusts it: its version
:data:`FORMAT`, :func:`content_sha256` and :func:`source_sha256`.  The derivations
(``dpaudit.proofs.framework``) write certificates with these, importing them from this module;
this module never imports the derivations.  It finds their installed directory with
:func:`derivations_directory`, which locates the package without running it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from pathlib import Path

import sympy as sp

from dpaudit.claims.symbolic import SymbolicFormula

#: bump when the certificate layout changes (the loader refuses other versions)
FORMAT = 1
#: the package the repository's ``proofs/`` folder is installed as (pyproject ``package-dir``)
DERIVATIONS_PACKAGE = "dpaudit.proofs"


class CertificateError(RuntimeError):
    """A certificate is missing, malformed, edited by hand, failed, or stale."""


def source_sha256(path) -> str:
    """SHA-256 of a source file's text with line endings normalised to ``\\n``."""
    data = path.read_bytes() if hasattr(path, "read_bytes") else Path(path).read_bytes()
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()


def content_sha256(doc: dict) -> str:
    """SHA-256 of the canonical JSON of ``doc`` without its ``content_sha256`` field: a
    hand edit of a certificate (e.g. a changed formula) no longer matches it."""
    body = {k: v for k, v in doc.items() if k != "content_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False,
                                     separators=(",", ":")).encode()).hexdigest()


def derivations_directory() -> Path:
    """The directory of the installed :data:`DERIVATIONS_PACKAGE`: the derivation sources
    ``<family>.py`` and ``framework.py``, and ``certificates/``.

    Found with :func:`importlib.util.find_spec`, which imports ``dpaudit`` (already imported)
    but not the derivations package itself: reading certificates runs no derivation code.

    Raises:
      CertificateError: the package is not installed.
    """
    spec = importlib.util.find_spec(DERIVATIONS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise CertificateError(f"the derivations package {DERIVATIONS_PACKAGE} is not "
                               f"installed, so no certificate can be read; reinstall dpaudit")
    return Path(list(spec.submodule_search_locations)[0])


def certificate_directory() -> Path:
    """The installed certificates, ``<derivations_directory()>/certificates``."""
    return derivations_directory() / "certificates"


@functools.lru_cache(maxsize=None)
def load_certificate(family: str, directory=None) -> dict:
    """The verified certificate document of ``family`` (see the module docstring).

    ``directory`` defaults to :func:`certificate_directory`; the derivation sources checked
    against the recorded hashes are always the installed ones (:func:`derivations_directory`)."""
    base = certificate_directory() if directory is None else directory
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
    sources = derivations_directory()
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


__all__ = ["DERIVATIONS_PACKAGE", "FORMAT", "CertificateError", "certificate_directory",
           "certified_names", "content_sha256", "derivations_directory", "load_certificate",
           "load_formula", "source_sha256"]
