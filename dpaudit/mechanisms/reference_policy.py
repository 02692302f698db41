"""The trust model of references to user code: a suite names code *of its project*, nothing else.

A suite file is code: the samplers and mechanisms it names run with the datasets it writes.  A
TOML-only change must therefore not be able to run something the project does not contain —
``sampler = "shutil:rmtree"`` with ``d0 = "/victim"`` deleted a directory and
``sampler = "pty:spawn"`` ran a shell command (issue 39, item 3).  Every reference a suite
file makes — whichever route reads the suite: ``dpaudit run``, the pytest plugin, the Python
API's ``run_suites`` — obeys three rules, checked by
:func:`dpaudit.mechanisms.references.load_reference` when it is given the suite's directory
(a reference the caller's own code or command line gives, ``audit_mechanism("x.py:C")`` or
``dpaudit check x.py:C``, is the caller's to trust):

1. **Files inside the project.**  ``path/file.py:Attr`` must resolve — symbolic links followed,
   ``..`` and absolute paths allowed only while they stay inside — to a file under the
   *project*: :func:`trusted_root` of the suite's directory (the nearest ancestor with
   ``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``pytest.ini``, ``tox.ini`` or ``.git``;
   without one, the current directory when the suite lies inside it, else the suite's own
   directory).
2. **Modules inside the project.**  ``package.module:Attr`` must be found inside the project
   (its top-level package is located *before* anything is imported, with
   :func:`importlib.util.find_spec`), or be dpaudit's own.  The standard library and installed
   packages are refused: ``shutil:rmtree``, ``os:system``, ``numpy:save``.
3. **Defined in the project.**  The object itself — a function, a class, or the class of a
   callable instance — must be defined in a module of the project (or of dpaudit, e.g. a
   :func:`dpaudit.per_call_sampler` wrapper), so a project file that does
   ``from shutil import rmtree`` does not make ``rmtree`` nameable.  To audit library code,
   wrap it in a function or Mechanism of your own (that is what the project then vouches for).

Each refusal is a :class:`~dpaudit.mechanisms.references.CodeReferenceError` naming the
reference, where it leads and the project.  What stays the user's trust: *the project's own
code* runs when a suite names it (importing a module runs it, as ``conftest.py`` does), so a
pull request that changes code or suites must be reviewed before CI runs it with secrets — see
``docs/ci.md``.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

#: the top-level package whose code is trusted wherever it is installed
DPAUDIT_PACKAGE = "dpaudit"
#: files or directories that mark a project's root (pytest's rootdir markers, plus .git)
ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", ".git")


class UntrustedReferenceError(ValueError):
    """A reference that leads outside the project (the references module re-raises it as a
    CodeReferenceError with the reference in front)."""


def project_root(start: str | Path) -> Path | None:
    """The nearest ancestor of ``start`` (itself included, a file's directory for a file)
    that holds one of :data:`ROOT_MARKERS`; None when no ancestor does."""
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        if any((directory / marker).exists() for marker in ROOT_MARKERS):
            return directory
    return None


def trusted_root(base_dir: str | Path | None) -> Path:
    """The project a reference relative to ``base_dir`` (default the current directory) may
    name code of (rule 1 of the module docstring)."""
    cwd = Path.cwd().resolve()
    base = Path(base_dir).resolve() if base_dir else cwd
    root = project_root(base)
    if root is not None:
        return root
    return cwd if _inside(base, cwd) else base


def _installed_locations() -> list[Path]:
    """Where Python and installed packages live (standard library, site-packages: also a
    virtual environment created inside the project, such as ``.venv``)."""
    import site
    import sysconfig

    paths = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib",
                                                     "platlib")}
    paths.update(getattr(site, "getsitepackages", lambda: [])())
    paths.add(getattr(site, "getusersitepackages", lambda: None)())
    paths.update(p for p in sys.path if p and Path(p).name in ("site-packages",
                                                               "dist-packages"))
    return [Path(p).resolve() for p in paths if p]


def in_project(path: Path, root: Path) -> bool:
    """Whether ``path`` lies under ``root`` and not in an installed location (a virtual
    environment inside the project holds installed packages, not the project's code)."""
    return _inside(path, root) and not any(_inside(path, p) for p in _installed_locations())


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def check_file(path: Path, root: Path) -> None:
    """Rule 1: ``path`` (resolved, links followed) lies under ``root``."""
    if not in_project(path, root):
        raise UntrustedReferenceError(
            f"{path.resolve()} is outside the project {root} or among its installed packages "
            f"(a suite may name only files of its project: the nearest folder with pyproject.toml, setup.cfg, setup.py, "
            f"pytest.ini, tox.ini or .git)")


def check_module(top: str, spec, root: Path) -> None:
    """Rule 2: the top-level package ``top`` of a dotted reference is dpaudit, or ``spec`` (its
    :func:`importlib.util.find_spec`, found with the import's directories first on the path and
    nothing imported; None when not found, which the import then reports) lies inside
    ``root``."""
    if top == DPAUDIT_PACKAGE:
        return
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        raise UntrustedReferenceError(
            f"module {top!r} is part of Python's standard library, not code of the project "
            f"{root}; a suite may name only its project's code (wrap what you need in a "
            f"function of your own)")
    if spec is None:
        return
    where = _spec_location(spec)
    if where is None or not in_project(where, root):
        raise UntrustedReferenceError(
            f"module {top!r} is {'at ' + str(where) if where else 'not a file'}: an installed "
            f"package or a file outside the project {root}, not the project's code; a suite may "
            f"name "
            f"only its project's code: wrap what you need in a function or Mechanism of your "
            f"own, or use its registered name (`dpaudit list`)")


def _spec_location(spec) -> Path | None:
    if spec.origin and spec.has_location:
        return Path(spec.origin)
    locations = list(spec.submodule_search_locations or [])
    return Path(locations[0]) if locations else None


def check_defined_in_project(obj, root: Path) -> None:
    """Rule 3: ``obj`` (or, for an instance that is not a class or function, its class) is
    defined in a module whose file is under ``root``, or in dpaudit."""
    if not callable(obj):
        return  # data is not run: the caller says it is no sampler or mechanism
    owner = obj if (inspect.isclass(obj) or inspect.isroutine(obj)) else type(obj)
    module_name = getattr(owner, "__module__", None) or ""
    if module_name.split(".")[0] == DPAUDIT_PACKAGE:
        return
    module = sys.modules.get(module_name)
    origin = getattr(module, "__file__", None)
    if origin and in_project(Path(origin), root):
        return
    name = getattr(owner, "__qualname__", None) or getattr(owner, "__name__", repr(owner))
    where = f"{origin}" if origin else "built into Python"
    raise UntrustedReferenceError(
        f"it names {module_name}.{name} ({where}), which is not defined in the project {root}; "
        f"a sampler or mechanism a suite names must be code of its project: wrap what you "
        f"need in a function or Mechanism of your own")


__all__ = ["DPAUDIT_PACKAGE", "ROOT_MARKERS", "UntrustedReferenceError", "check_defined_in_project",
           "check_file", "check_module", "in_project", "project_root", "trusted_root"]
