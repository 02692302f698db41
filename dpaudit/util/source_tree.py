"""``dpaudit.proofs`` in a source checkout that is not installed.

The repository keeps the sympy derivations in its top-level ``proofs/`` folder and
``pyproject.toml`` installs that folder as the subpackage ``dpaudit.proofs`` (its
``package-dir`` mapping): a wheel holds ``dpaudit/proofs/``, and an editable install's finder
maps the name.  A checkout that is only put on ``sys.path`` (``PYTHONPATH=<checkout>``, or a
test run from the repository root) has neither, so :func:`map_source_proofs` adds the same
one mapping: a finder that answers for exactly ``dpaudit.proofs`` with the checkout's
``proofs/`` folder (its modules then resolve through the package's ``__path__``).  It never
makes a top-level ``proofs`` importable, and it does nothing for an installed wheel (where
``dpaudit/proofs/`` exists).  This module imports nothing from dpaudit.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from pathlib import Path

#: the subpackage the checkout's ``proofs/`` folder is installed as
PACKAGE = "dpaudit.proofs"


class SourceProofsFinder(importlib.abc.MetaPathFinder):
    """Finds :data:`PACKAGE` in ``directory`` (a checkout's ``proofs/`` folder), nothing else."""

    def __init__(self, directory: Path):
        self.directory = directory

    def find_spec(self, fullname, path=None, target=None):
        if fullname != PACKAGE:
            return None
        return importlib.util.spec_from_file_location(
            fullname, self.directory / "__init__.py",
            submodule_search_locations=[str(self.directory)])


def map_source_proofs(package_directory: Path | None = None) -> SourceProofsFinder | None:
    """Map :data:`PACKAGE` to ``<checkout>/proofs`` when ``package_directory`` (dpaudit's own
    directory, by default the parent of this module's ``util/``) lies in a source checkout; returns the
    finder, or None when there is nothing to map (an installed wheel, or no ``proofs/``
    beside ``pyproject.toml``).

    The finder goes first on ``sys.meta_path``, so a checkout uses its own derivations even
    when another copy of dpaudit is installed in the same environment.  Calling it again adds
    no second finder.
    """
    if package_directory is None:
        package_directory = Path(__file__).resolve().parents[1]
    checkout = package_directory.parent
    proofs = checkout / "proofs"
    if ((package_directory / "proofs").is_dir() or not (proofs / "__init__.py").is_file()
            or not (checkout / "pyproject.toml").is_file()):
        return None
    for finder in sys.meta_path:
        if isinstance(finder, SourceProofsFinder) and finder.directory == proofs:
            return finder
    finder = SourceProofsFinder(proofs)
    sys.meta_path.insert(0, finder)
    return finder


__all__ = ["PACKAGE", "SourceProofsFinder", "map_source_proofs"]
