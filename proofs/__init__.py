"""Symbolic derivations of the mechanisms' claims, and their certificates.

The repository keeps them in its top-level ``proofs/`` folder; they are installed as this
package, ``dpaudit.proofs`` (pyproject ``package-dir``), never as a top-level ``proofs``.
One derivation module per mechanism family (the ``proof`` column of
:data:`dpaudit.mechanisms.families.BUILTIN_FAMILIES`); each exposes
``derive() -> dpaudit.proofs.framework.Derivation``.  ``dpaudit prove`` runs them and writes
``proofs/certificates/<family>.json``, which :mod:`dpaudit.claims.certificates` reads (it
locates this package's directory without importing it): the mechanisms' noise formulas come
only from there.

This ``__init__`` stays light (no sympy work at import).
"""

from __future__ import annotations

import importlib
import json

from dpaudit.claims.certificates import certificate_directory
from dpaudit.mechanisms.families import proof_modules

#: family name -> derivation module, from the one families table
FAMILIES = proof_modules()


def derive(family: str):
    """Run the derivation of ``family``; returns its
    :class:`~dpaudit.proofs.framework.Derivation`."""
    if family not in FAMILIES:
        raise KeyError(f"unknown proof family {family!r}; known: {', '.join(FAMILIES)}")
    return importlib.import_module(FAMILIES[family]).derive()


def build(family: str):
    """(derivation, certificate document) for ``family``."""
    from dpaudit.proofs.framework import certificate

    d = derive(family)
    return d, certificate(d)


def stale_differences(family: str, document: dict, directory=None) -> list[str]:
    """Differences between the committed certificate of ``family`` and ``document`` (the
    freshly derived one); [] when it is up to date."""
    from dpaudit.proofs.framework import differences

    path = (directory or certificate_directory()) / f"{family}.json"
    try:
        committed = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"{path}: no committed certificate"]
    except json.JSONDecodeError as exc:
        return [f"{path}: not valid JSON ({exc})"]
    return differences(committed, document)


def write(family: str, document: dict, directory=None):
    """Write the certificate; returns (path, changed)."""
    from pathlib import Path

    from dpaudit.proofs.framework import dumps

    path = Path(directory or certificate_directory()) / f"{family}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = dumps(document)
    changed = not path.exists() or path.read_text(encoding="utf-8") != text
    if changed:
        path.write_text(text, encoding="utf-8")
    return path, changed
