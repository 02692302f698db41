"""A folder named ``dpaudit`` that hides the installed package from ``import dpaudit``.

The trap.  An editable install (``pip install -e .`` in a clone: README command 1) does not
put the clone on ``sys.path``: setuptools maps the name ``dpaudit`` with a finder appended to
``sys.meta_path`` (the clone's ``proofs/`` folder is installed as ``dpaudit.proofs``, a layout
a plain path entry cannot express).  Python asks the path-based finder first, and it turns a
folder named ``dpaudit`` *without* an ``__init__.py`` on ``sys.path`` into an empty namespace
package (PEP 420).  ``python``, ``python -c``, ``python -m pytest`` and Jupyter put the current
directory first on ``sys.path``, so run from the folder that *holds* a clone named
``dpaudit/`` (the README's layout: the clone beside your project), ``import dpaudit`` is that
empty folder: its submodules still load through the editable finder, but the package's own
names do not::

    ImportError: cannot import name 'laplace_on_grid' from 'dpaudit' (unknown location)

A wheel install is not affected (the regular package in site-packages wins over a namespace
portion), and neither is the ``dpaudit`` command (its ``sys.path`` starts at its own bin
folder).

Contract:

* :func:`shadowing_folders` — the folders a namespace ``dpaudit`` module was made of (empty
  when the package was imported normally): the moment the trap has sprung;
* :func:`folder_that_would_shadow` — the ``dpaudit`` folder in ``directory`` that Python run
  there would import instead of the installed package, or None: said *before* it bites;
* :func:`shadowing_message` — the one line that names the folder and what to do.

dpaudit says it where its code runs: the pytest plugin refuses to start (``python -m
pytest`` in that folder), a user file whose import fails that way gets the line appended, and
``dpaudit init`` notes it.  A plain ``python script.py`` there never runs dpaudit's code
before the failing import: docs/getting-started.md explains the message.  This module imports
nothing from dpaudit.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

#: the package whose name a folder can shadow
PACKAGE = "dpaudit"


def shadowing_folders(module=None) -> tuple[Path, ...]:
    """The folders of ``module`` (default: ``sys.modules["dpaudit"]``) when it is a namespace
    package — the package's ``__init__`` never ran, so its names are missing — else ``()``."""
    if module is None:
        module = sys.modules.get(PACKAGE)
    if module is None or getattr(module, "__file__", None) is not None:
        return ()
    locations = getattr(module, "__path__", None)
    if locations is None:
        return ()
    return tuple(Path(p) for p in locations)


def folder_that_would_shadow(directory: str | os.PathLike) -> Path | None:
    """``directory/dpaudit`` when Python started in ``directory`` would import that folder as
    ``dpaudit``: it is a folder without ``__init__.py``, and no regular ``dpaudit`` package
    lies on the rest of ``sys.path`` (the installed one is reached through a meta-path finder,
    as an editable install's is).  None otherwise."""
    directory = Path(directory).resolve()
    folder = directory / PACKAGE
    if not folder.is_dir() or (folder / "__init__.py").is_file():
        return None
    others = [p for p in sys.path if p and Path(p).resolve() != directory]
    spec = importlib.machinery.PathFinder.find_spec(PACKAGE, others)
    if spec is not None and spec.origin not in (None, "namespace"):
        return None  # a regular package further down the path wins over the folder
    return folder


def shadowing_message(folder: str | os.PathLike) -> str:
    """One line: which folder hides the package, what that does and what to do."""
    folder = Path(folder)
    return (f"the folder {folder} hides the installed dpaudit package: Python run from "
            f"{folder.parent} imports that folder (it has no __init__.py; a clone of dpaudit "
            f"is one) as an empty 'dpaudit', so `from dpaudit import ...` fails with "
            f"'(unknown location)'. Run Python, pytest and your scripts from your project's "
            f"folder (cd into it), or rename or move the folder")


__all__ = ["PACKAGE", "folder_that_would_shadow", "shadowing_folders", "shadowing_message"]
