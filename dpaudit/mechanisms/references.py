"""References to user code: ``"package.module:Attr"`` and ``"path/to/file.py:Attr"``.

One place parses and loads the strings that suites (``mechanism = "my_mech.py:ClippedMean"``,
``sampler = "samplers.py:noisy_count"``) and ``dpaudit check`` use to name code that is not in
the registry.

Contract:

* :func:`is_reference` — whether a string has the ``left:Attr`` form (a registered mechanism
  name never contains ``:``).
* :func:`load_reference` — imports the module (a dotted name importable from ``base_dir`` or
  the current directory, or a ``.py`` file, relative to ``base_dir`` when relative) and returns
  the attribute (``Attr`` may be dotted: ``Outer.Inner``).  A file is imported once per
  absolute path, under a module name derived from that path, so loading it again (e.g. in a
  worker process) gives the same objects.
* A file's module is not importable by name in another process, so it is registered with
  cloudpickle to be pickled by value: its classes and functions (and instances of them) can
  be sent to worker processes.
* Every failure raises :class:`CodeReferenceError` (a :class:`ValueError`) with a one-line
  message naming the reference and the problem: malformed string, missing file, module that
  cannot be imported (or raised while importing, with the file and line), missing attribute.

Importing a module runs its code, as a ``conftest.py`` does: only name code you trust.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import traceback
from pathlib import Path


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


def load_reference(text: str, base_dir: str | Path | None = None):
    """Import what ``text`` names and return the object.

    Args:
      text: ``"package.module:Attr"`` or ``"path/to/file.py:Attr"``.
      base_dir: directory that relative file paths (and top-level modules) resolve against,
        e.g. the suite file's directory; default the current directory.

    Returns:
      The attribute (a class, a function, any object).

    Raises:
      CodeReferenceError: the reference is malformed, the file or module is missing or
        raised while importing, or the attribute does not exist.
    """
    left, attr = split_reference(text)
    module = _import_file(left, text, base_dir) if is_file_reference(left) else \
        _import_module(left, text, base_dir)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise CodeReferenceError(f"{text!r}: module {left!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _import_file(left: str, text: str, base_dir) -> object:
    path = Path(left)
    if not path.is_absolute():
        path = Path(base_dir or Path.cwd()) / path
    path = path.resolve()
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
    # the file's own directory first, so that it can import its sibling modules
    added = str(path.parent) not in sys.path
    if added:
        sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise CodeReferenceError(f"{text!r}: importing {path} raised "
                                 f"{_where(exc)}") from None
    import cloudpickle
    cloudpickle.register_pickle_by_value(module)
    return module


def _import_module(left: str, text: str, base_dir) -> object:
    for directory in (str(Path(base_dir).resolve()) if base_dir else None, str(Path.cwd())):
        if directory and directory not in sys.path:
            sys.path.append(directory)
    try:
        return importlib.import_module(left)
    except ModuleNotFoundError as exc:
        raise CodeReferenceError(f"{text!r}: cannot import module {left!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module raised while importing
        raise CodeReferenceError(f"{text!r}: importing module {left!r} raised "
                                 f"{_where(exc)}") from None


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    at = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{at}"


__all__ = ["CodeReferenceError", "is_file_reference", "is_reference", "load_reference",
           "split_reference"]
