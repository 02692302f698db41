"""References to user code: ``"package.module:Attr"`` and ``"path/to/file.py:Attr"``.

One place parses and loads the strings that suites (``mechanism = "my_mech.py:ClippedMean"``,
``sampler = "samplers.py:noisy_count"``), ``dpaudit check``, the pytest plugin's suites and
the Python API use to name code that is not in the registry.

Contract:

* :func:`is_reference` — whether a string has the ``left:Attr`` form (a registered mechanism
  name never contains ``:``).
* :func:`load_reference` — imports the module (a dotted name, or a ``.py`` file relative to
  ``base_dir`` when relative) and returns the attribute (``Attr`` may be dotted:
  ``Outer.Inner``).  A file is imported once per absolute path, under a module name derived
  from that path, so loading it again (e.g. in a worker process) gives the same objects.
* **Imported as pytest would.**  While the module is imported, :func:`import_directories`
  are put first on ``sys.path``: for a file, its own directory (its sibling modules) and the
  *project root*; for a dotted module, ``base_dir`` (the suite's directory, else the current
  directory), the project root and the current directory.  The project root
  (:func:`project_root`) is the nearest ancestor of the file (of ``base_dir`` for a dotted
  module) holding one of :data:`ROOT_MARKERS` (``pyproject.toml``, ``setup.cfg``,
  ``setup.py``, ``pytest.ini``, ``tox.ini``, ``.git``) — pytest's *rootdir* — or, when there
  is none, the current directory.  So ``dpaudit_targets/sum_mech.py`` can
  ``from privstats import …`` (a package at the root), whichever route loads it and in
  whatever order the audits come.  ``sys.path`` is restored afterwards: loading a reference
  never leaves a directory on it.  Modules the import brought in are cached in
  ``sys.modules`` as usual; a *lazy* import of a project module (inside a function that runs
  later) does not see the root — import at module level.
* A file's module is not importable by name in another process, and neither is a module that
  was found only through those directories, so both are registered with cloudpickle to be
  pickled by value: their classes and functions (and instances of them) can be sent to
  worker processes (a local pool, a Dask cluster) whatever the workers' ``sys.path``.
* Every failure raises :class:`CodeReferenceError` (a :class:`ValueError`) with a one-line
  message naming the reference and the problem: malformed string, missing file, module that
  cannot be imported (or raised while importing, with the file and line), missing attribute
  (with the closest names, "did you mean").

* **Only the project's code** (:mod:`dpaudit.mechanisms.reference_policy`): a reference
  relative to a suite file (``base_dir`` given: every suite, in every route) that leads to a
  file or module outside the project, a module of the standard library or of an installed
  package, or an object not defined in the project (``from shutil import rmtree`` in a
  project file) is refused before anything runs.  A reference without ``base_dir`` — the
  Python API's ``"file.py:Class"``, ``dpaudit check``'s argument — is named by the caller's
  own code or command line, and is loaded as given.

Importing a module runs its code, as a ``conftest.py`` does: only name code you trust.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import sys
import threading
import traceback
from pathlib import Path

from dpaudit.mechanisms.reference_policy import (ROOT_MARKERS, UntrustedReferenceError,
                                                  check_defined_in_project, check_file,
                                                  check_module, project_root, trusted_root)
from dpaudit.util.hints import did_you_mean
from dpaudit.util.user_code import user_code

# sys.path is process-wide: one import with a temporary path at a time
_PATH_LOCK = threading.RLock()


class CodeReferenceError(ValueError):
    """A reference that cannot be parsed or loaded; the message names it and the problem."""


def is_reference(text: str) -> bool:
    """Whether ``text`` looks like ``module:Attr`` or ``file.py:Attr`` (not a registry name)."""
    return isinstance(text, str) and ":" in text


def split_reference(text: str) -> tuple[str, str]:
    """``"left:Attr"`` → ``("left", "Attr")``.

    Raises:
      CodeReferenceError: not of the form ``module:Attr`` or ``path/file.py:Attr``.
    """
    if not isinstance(text, str) or not text.strip():
        raise CodeReferenceError(f"expected module:Attr or path/file.py:Attr, got {text!r}")
    left, _, attr = text.strip().rpartition(":")
    if not left or not attr or not all(p.isidentifier() for p in attr.split(".")):
        raise CodeReferenceError(f"bad reference {text!r}: expected module:Attr or "
                                 f"path/file.py:Attr, e.g. my_mech.py:ClippedMean")
    return left, attr


def is_file_reference(left: str) -> bool:
    return left.endswith(".py") or "/" in left or "\\" in left


def import_directories(left: str, base_dir: str | Path | None = None) -> tuple[str, ...]:
    """The directories put first on ``sys.path`` while the module of ``left`` is imported (see
    the module docstring), first to last, without repeats.

    Args:
      left: the module part of a reference: a ``.py`` path or a dotted module name.
      base_dir: what a relative path (and a top-level module) resolves against; default the
        current directory.
    """
    cwd = Path.cwd().resolve()
    base = Path(base_dir).resolve() if base_dir else cwd
    if is_file_reference(left):
        path = Path(left) if Path(left).is_absolute() else base / left
        here = path.resolve().parent
        dirs = [here, project_root(here) or cwd]
    else:
        dirs = [base, project_root(base) or cwd, cwd]
    return tuple(dict.fromkeys(str(d) for d in dirs))


def load_reference(text: str, base_dir: str | Path | None = None):
    """Import what ``text`` names and return the object.

    Args:
      text: ``"package.module:Attr"`` or ``"path/to/file.py:Attr"``.
      base_dir: directory that relative file paths (and top-level modules) resolve against,
        e.g. the suite file's directory; default the current directory.  Given (a suite's
        reference), the reference must name code of the project
        (:mod:`~dpaudit.mechanisms.reference_policy`).

    Returns:
      The attribute (a class, a function, any object).

    Raises:
      CodeReferenceError: the reference is malformed, the file or module is missing or
        raised while importing, or the attribute does not exist.
    """
    left, attr = split_reference(text)
    # no base_dir: the caller's own code or command line names it (its trust); else a suite
    root = trusted_root(base_dir) if base_dir else None
    try:
        if root is not None and is_file_reference(left):
            check_file(_file_path(left, base_dir), root)
        elif root is not None:
            top = left.split(".")[0]
            check_module(top, _find_top_level(top, base_dir), root)
    except UntrustedReferenceError as exc:
        raise CodeReferenceError(f"{text!r}: {exc}") from None
    module = _import_file(left, text, base_dir) if is_file_reference(left) else \
        _import_module(left, text, base_dir)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise CodeReferenceError(f"{text!r}: module {left!r} has no attribute {attr!r}"
                                     f"{_did_you_mean(part, obj)}")
        obj = getattr(obj, part)
    try:
        if root is not None:
            check_defined_in_project(obj, root)
    except UntrustedReferenceError as exc:
        raise CodeReferenceError(f"{text!r}: {exc}") from None
    return obj


def _file_path(left: str, base_dir) -> Path:
    path = Path(left)
    return path if path.is_absolute() else Path(base_dir or Path.cwd()) / path


def _find_top_level(top: str, base_dir):
    """The spec of the top-level module ``top`` as the import would find it (nothing is
    imported), or None."""
    with temporary_path(import_directories(top, base_dir)):
        try:
            return importlib.util.find_spec(top)
        except (ImportError, ValueError):
            return None


def locate_module(left: str, base_dir: str | Path | None = None) -> str | None:
    """The file of the dotted module ``left`` as :func:`load_reference` would find it (with
    :func:`import_directories` on the path; the module is not imported), or None."""
    with temporary_path(import_directories(left, base_dir)):
        try:
            spec = importlib.util.find_spec(left)
        except (ImportError, ValueError):
            return None
    return getattr(spec, "origin", None)


def _did_you_mean(name: str, owner) -> str:
    return did_you_mean(name, [n for n in dir(owner) if not n.startswith("_")], n=3)


@contextlib.contextmanager
def temporary_path(directories):
    """Put ``directories`` first on ``sys.path`` (those not already on it) for the block, then
    take them off again; register with cloudpickle, to be pickled by value, every top-level
    module the block imported from one of them (a worker cannot import it by name)."""
    with _PATH_LOCK:
        added = [d for d in directories if d not in sys.path]
        before = set(sys.modules)
        sys.path[0:0] = added
        try:
            yield
        finally:
            for d in added:
                with contextlib.suppress(ValueError):
                    sys.path.remove(d)
            if added:
                _pickle_by_value_from(set(sys.modules) - before, added)


def _pickle_by_value_from(names, directories) -> None:
    import cloudpickle

    resolved = {str(Path(d).resolve()) for d in directories}
    for name in sorted(n for n in names if "." not in n):
        module = sys.modules.get(name)
        entry = _path_entry(module)
        if entry is not None and entry in resolved:
            with contextlib.suppress(ValueError):
                cloudpickle.register_pickle_by_value(module)


def _path_entry(module) -> str | None:
    """The ``sys.path`` entry a top-level ``module`` was found on, or None."""
    spec = getattr(module, "__spec__", None)
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    if spec.origin and spec.has_location:
        where = Path(spec.origin).resolve().parent
        return str(where.parent if locations else where)
    if locations:  # a namespace package: its directory is on the entry
        return str(Path(locations[0]).resolve().parent)
    return None


def _import_file(left: str, text: str, base_dir) -> object:
    path = _file_path(left, base_dir).resolve()
    if not path.is_file():
        raise CodeReferenceError(f"{text!r}: no such file: {path}")
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"_dpaudit_user_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CodeReferenceError(f"{text!r}: cannot import {path} (not a Python file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with temporary_path(import_directories(str(path))), user_code(f"importing {path}"):
            spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise CodeReferenceError(f"{text!r}: importing {path} raised "
                                 f"{_where(exc)}{_root_hint(exc, path)}") from None
    import cloudpickle
    cloudpickle.register_pickle_by_value(module)
    return module


def _import_module(left: str, text: str, base_dir) -> object:
    directories = import_directories(left, base_dir)
    try:
        with temporary_path(directories), user_code(f"importing module {left}"):
            return importlib.import_module(left)
    except ModuleNotFoundError as exc:
        raise CodeReferenceError(f"{text!r}: cannot import module {left!r}: {exc} (searched "
                                 f"{', '.join(directories)} and sys.path)") from None
    except Exception as exc:  # noqa: BLE001 - the user's module raised while importing
        raise CodeReferenceError(f"{text!r}: importing module {left!r} raised "
                                 f"{_where(exc)}") from None


def _root_hint(exc: BaseException, path: Path) -> str:
    """For a module the file could not import: where it was looked for."""
    if not isinstance(exc, ModuleNotFoundError):
        return ""
    dirs = import_directories(str(path))
    return (f"; looked in {', '.join(dirs)} (the file's directory and the project root: the "
            f"nearest folder with {', '.join(ROOT_MARKERS[:-1])} or .git, else the current "
            f"directory) and sys.path")


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    at = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{at}"


__all__ = ["ROOT_MARKERS", "CodeReferenceError", "import_directories", "is_file_reference",
           "is_reference", "load_reference", "locate_module", "project_root",
           "split_reference", "temporary_path"]
