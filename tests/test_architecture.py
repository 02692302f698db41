"""The shape of the package, pinned: layer contracts, no import cycles, no private names across
modules, no oversized modules, one families table behind the registry and ``dpaudit.proofs``,
and ``dpaudit.claims`` importing nothing from the derivations.

The import graph is read from the source with :mod:`ast` (every ``import`` and ``from …
import`` statement, including those inside functions, which is where cycles usually hide), so
the test sees what a reader sees, not what happens to be imported at run time.  An edge goes
from a module to the module it names; ``from package import name`` goes to
``package.name`` when that is a module, else to ``package``.  Parent packages are not added
as edges (importing ``a.b.c`` runs ``a/__init__`` first, but that is Python's ordering, not a
dependency the code states).

The same import statements pin the **layers** (:data:`CONTRACTS`).  The package is a pipeline
whose layers import only downwards (an arrow: "may import")::

    faces            dpaudit (the package's own names), dpaudit.cli, dpaudit.api,
      ↓              dpaudit.pytest_plugin: nothing below imports them
    backends         where tasks execute (local pool, Dask): they run audit's tasks
      ↓
    audit            plan (procedures) → task.run → run   report   renders results only,
      ↓                knows no backend, no renderer        ↓        knows no audit
    results, suite   the run's typed hierarchy; TOML → Suite (neither imports the other)
      ↓              check (``dpaudit check``) sits just below the faces: its black-box
                     step runs the pipeline's audit of one mechanism (as every route does),
                     so it may import suite, audit, results and backends, never report
    distinguish, mechanisms, replay, conformance
      ↓              the distinguishers, the mechanisms, the grey-box replay of their code
                     (replay runs mechanisms; they do not know it) and conformance
                     (accountants against exact curves, reading claims and exact): nothing
                     of the pipeline above
    evidence         typed evidence (the Evidence ABC, exact curves, the verdict vocabulary):
      ↓              what every kind of audit ends in; it reads statistics and utilities only
    claims, stats, neighbours
      ↓              claims nothing of proofs (the derivations check the claims, not the
    exact            other way round); exact curves import nothing of dpaudit's layers
      ↓
    util             utilities with no audit knowledge (atomic writes, pools, signals,
                     numbers, validation): they import nothing else of dpaudit

``spec`` (what an audit asks: the vocabulary a suite row, the CLI and the API build) sits
between the pipeline and the evidence: suite, results and audit read it; it reads none of them.

A reader finds the layering in the table; an import that crosses it fails
:func:`test_layer_contract` with the module and line of the offending statement, and a row
that is broken today is an ``xfail(strict=True)`` (:data:`KNOWN_BREACHES`), so it becomes a
required contract the moment the import is gone.
"""

from __future__ import annotations

import ast
import functools
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: repository folder -> the package it is installed as (pyproject's ``package-dir``)
FOLDERS = {"dpaudit": "dpaudit", "proofs": "dpaudit.proofs"}
PACKAGES = ("dpaudit",)
#: issue 12: "no module in dpaudit/ over about 450 lines"
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    is_package = MODULES[module].name == "__init__.py"
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@functools.cache
def _imports(module: str) -> tuple[tuple[str, list[str], int], ...]:
    """(imported module, imported names, line) of every import statement in ``module``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, [], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            found.append((_resolve(module, node), [a.name for a in node.names], node.lineno))
    return tuple(found)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for target, names, _ in _imports(module):
            for name in names or [None]:
                sub = f"{target}.{name}" if name else None
                if sub in MODULES:
                    graph[module].add(sub)
                elif target in MODULES:
                    graph[module].add(target)
        graph[module].discard(module)
    return graph


#: the faces: what users call.  No module below them imports one (``dpaudit`` alone is the
#: package's own __init__, which re-exports the API: ``from dpaudit import version`` names
#: the module dpaudit.version and is fine, ``from dpaudit import audit_mechanism`` is not)
FACES = ("dpaudit", "dpaudit.cli", "dpaudit.api", "dpaudit.pytest_plugin")
#: the pipeline from a suite file to rendered reports
PIPELINE = ("dpaudit.spec", "dpaudit.suite", "dpaudit.audit", "dpaudit.results",
            "dpaudit.backends", "dpaudit.report")

#: the layer above claims, stats and neighbours: the distinguishers, the mechanisms and the
#: grey-box replay (which runs mechanisms and samplers)
EVIDENCE = ("dpaudit.distinguish", "dpaudit.mechanisms", "dpaudit.replay")

#: layer → the layers it must not import (a layer is a module and everything below it).
#: Besides these rows, every module that is not a face must not import a face.
CONTRACTS: dict[str, tuple[str, ...]] = {
    "dpaudit.backends":    ("dpaudit.report", "dpaudit.cli"),
    "dpaudit.audit":       ("dpaudit.backends", "dpaudit.report", "dpaudit.cli", "dpaudit.api",
                            "dpaudit.pytest_plugin"),
    "dpaudit.report":      ("dpaudit.audit", "dpaudit.backends", "dpaudit.cli"),  # renders results
    "dpaudit.results":     ("dpaudit.audit", "dpaudit.backends", "dpaudit.report",
                            "dpaudit.cli", "dpaudit.suite"),
    "dpaudit.suite":       ("dpaudit.audit", "dpaudit.backends", "dpaudit.report",
                            "dpaudit.cli", "dpaudit.results"),
    "dpaudit.check":       ("dpaudit.report",),
    # what an audit asks: read by suite, results and audit, so it imports none of them
    "dpaudit.spec":        tuple(p for p in PIPELINE if p != "dpaudit.spec") + ("dpaudit.check",),
    "dpaudit.distinguish": PIPELINE + ("dpaudit.check",),
    "dpaudit.mechanisms":  PIPELINE + ("dpaudit.check", "dpaudit.replay"),
    # the grey-box replay runs mechanisms and samplers; nothing above them
    "dpaudit.replay":      PIPELINE + ("dpaudit.check", "dpaudit.distinguish",
                                       "dpaudit.conformance"),
    # accountants and calibration against the exact curves: claims and exact, nothing above
    "dpaudit.conformance": PIPELINE + ("dpaudit.check",) + EVIDENCE,
    # typed evidence: below the distinguishers and mechanisms that produce it, above the
    # statistics it is computed with
    "dpaudit.evidence":    PIPELINE + ("dpaudit.check", "dpaudit.conformance") + EVIDENCE + (
        "dpaudit.claims", "dpaudit.neighbours", "dpaudit.exact", "proofs", "dpaudit.proofs"),
    "dpaudit.claims":      PIPELINE + ("dpaudit.check", "dpaudit.evidence",
                                       "dpaudit.conformance") + EVIDENCE + (
        "proofs", "dpaudit.proofs"),
    "dpaudit.stats":       PIPELINE + ("dpaudit.check", "dpaudit.evidence",
                                       "dpaudit.conformance") + EVIDENCE + ("dpaudit.claims",),
    "dpaudit.neighbours":  PIPELINE + ("dpaudit.check", "dpaudit.evidence",
                                       "dpaudit.conformance") + EVIDENCE + ("dpaudit.claims",),
    "dpaudit.exact":       PIPELINE + ("dpaudit.check", "dpaudit.evidence",
                                       "dpaudit.conformance") + EVIDENCE + (
        "dpaudit.claims", "dpaudit.stats", "dpaudit.neighbours"),
    # the bottom: utilities with no audit knowledge import nothing else of dpaudit
    "dpaudit.util":        PIPELINE + ("dpaudit.check", "dpaudit.evidence",
                                       "dpaudit.conformance") + EVIDENCE + (
        "dpaudit.claims", "dpaudit.stats", "dpaudit.neighbours", "dpaudit.exact",
        "dpaudit.proofs", "dpaudit.version"),
}

#: rows known to be broken today, each an xfail(strict=True): it turns into a failure (remove
#: the entry) the day the import is gone, so the contract is then required
KNOWN_BREACHES: dict[tuple[str, str], str] = {}


def _within(module: str, layer: str) -> bool:
    """``module`` is ``layer`` or below it; the package ``dpaudit`` is only itself."""
    return module == layer or (layer != "dpaudit" and module.startswith(layer + "."))


def _named_modules(target: str, names: list[str], modules) -> list[str]:
    """What one import statement names: ``package.name`` where that is a module, else the
    target itself (kept even when it is no module of ours, so that a forbidden layer that
    does not exist, such as ``dpaudit.proofs``, is still caught)."""
    out = []
    for name in names or [None]:
        sub = f"{target}.{name}" if name else None
        out.append(sub if sub in modules else target)
    return out


def layer_violations(layer: str, forbidden: tuple[str, ...], imports=None,
                     modules=None) -> list[str]:
    """Every import, in a module of ``layer``, of a module within one of ``forbidden``, as
    "module:line imports target".  ``imports`` maps module → [(target, names, line)]; by
    default the real statements of every module (:func:`_imports`)."""
    modules = MODULES if modules is None else modules
    if imports is None:
        imports = {m: _imports(m) for m in modules if _within(m, layer)}
    found = []
    for module, statements in sorted(imports.items()):
        if not _within(module, layer):
            continue
        for target, names, line in statements:
            for named in _named_modules(target, names, modules):
                if any(_within(named, bad) for bad in forbidden):
                    found.append(f"{module}:{line} imports {named}")
    return sorted(set(found))


def face_violations(imports=None, modules=None) -> list[str]:
    """Every import of a face by a module that is not one."""
    modules = MODULES if modules is None else modules
    if imports is None:
        imports = {m: _imports(m) for m in modules}
    found = []
    for module in sorted(imports):
        if not any(_within(module, face) for face in FACES):
            found += layer_violations(module, FACES, {module: imports[module]}, modules)
    return found


def strongly_connected_components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively (no recursion limit on deep graphs)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_the_cycle_detector_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(map(tuple, strongly_connected_components(graph))) == [("a", "b", "c"),
                                                                        ("d",)]


def _contract_params():
    for layer, forbidden in CONTRACTS.items():
        for bad in forbidden:
            reason = KNOWN_BREACHES.get((layer, bad))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(layer, bad, id=f"{layer}-not-{bad}", marks=marks)


@pytest.mark.parametrize("layer, forbidden", list(_contract_params()))
def test_layer_contract(layer, forbidden):
    assert any(_within(m, layer) for m in MODULES), f"no module in layer {layer}"
    offences = layer_violations(layer, (forbidden,))
    assert not offences, f"{layer} must not import {forbidden}:\n" + "\n".join(offences)


def test_nothing_below_the_faces_imports_a_face():
    offences = face_violations()
    assert not offences, "modules below the faces import one:\n" + "\n".join(offences)


def test_the_contract_checker_catches_planted_violations():
    modules = {"dpaudit": None, "dpaudit.version": None, "dpaudit.audit.run": None,
               "dpaudit.backends.local": None, "dpaudit.report": None,
               "dpaudit.report.html": None, "dpaudit.results.records": None,
               "dpaudit.claims.certificates": None}
    planted = {
        "dpaudit.audit.run": [("dpaudit.backends.local", ["LocalBackend"], 3),
                              ("dpaudit.results.records", ["CertificateRecord"], 4),
                              ("numpy", [], 5)],
        "dpaudit.report.html": [("dpaudit", ["version"], 7),           # a module: fine
                                ("dpaudit", ["audit_mechanism"], 8),   # the package face
                                ("dpaudit.audit.run", [], 9)],         # import dpaudit.audit.run
        "dpaudit.claims.certificates": [("proofs.framework", ["FORMAT"], 11)],
    }
    assert layer_violations("dpaudit.audit", CONTRACTS["dpaudit.audit"], planted, modules) == \
        ["dpaudit.audit.run:3 imports dpaudit.backends.local"]
    assert layer_violations("dpaudit.report", CONTRACTS["dpaudit.report"], planted, modules) == \
        ["dpaudit.report.html:9 imports dpaudit.audit.run"]
    assert layer_violations("dpaudit.claims", ("proofs",), planted, modules) == \
        ["dpaudit.claims.certificates:11 imports proofs.framework"]
    assert face_violations(planted, modules) == ["dpaudit.report.html:8 imports dpaudit"]
    # the table's rows are checked on the real graph, so every row names real layers
    assert all(any(_within(m, layer) for m in MODULES) for layer in CONTRACTS)


def test_no_import_cycles_between_modules():
    cycles = [c for c in strongly_connected_components(import_graph()) if len(c) > 1]
    assert not cycles, "import cycles (each line one strongly connected set of modules):\n" + \
        "\n".join(" ↔ ".join(c) for c in cycles)


def test_no_private_name_is_imported_across_modules():
    offences = []
    for module in MODULES:
        for target, names, line in _imports(module):
            if not target.startswith(PACKAGES):
                continue
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    offences.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports "
                                    f"{name} from {target}")
    assert not offences, "\n".join(offences)


def test_no_module_in_dpaudit_is_oversized():
    sizes = {m: len(p.read_text(encoding="utf-8").splitlines())
             for m, p in MODULES.items() if not m.startswith("dpaudit.proofs")}
    over = {m: n for m, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"


def test_one_families_table_behind_registry_and_proofs():
    from dpaudit import proofs
    from dpaudit.mechanisms import families, registry

    table = families.BUILTIN_FAMILIES
    assert [f.name for f in registry.families()][: len(table)] == [f.name for f in table]
    assert proofs.FAMILIES == {f.name: f.proof for f in table if f.proof}
    for family in table:
        package = importlib.import_module(family.package)
        for cls in package.MECHANISMS:
            assert cls.family == family.name, (cls, family)
            assert registry.get_mechanism_class(cls.name) is cls


def _is_derivations(name: str) -> bool:
    return name in ("proofs", "dpaudit.proofs") or name.startswith(("proofs.", "dpaudit.proofs."))


def test_claims_import_nothing_from_the_derivations():
    graph = import_graph()
    # the graph sees the derivations under their installed name, and their downward import
    assert "dpaudit.claims.certificates" in graph["dpaudit.proofs.framework"]
    claims = [m for m in MODULES if m.startswith("dpaudit.claims")]
    assert "dpaudit.claims.certificates" in claims
    offences = []
    for module in claims:
        for target, names, line in _imports(module):
            named = [target] + [f"{target}.{n}" for n in names]
            if any(_is_derivations(n) for n in named):
                offences.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports {target}")
    assert not offences, "\n".join(offences)


@pytest.mark.slow
def test_reading_certificates_runs_no_derivation_code():
    """At run time too: loading every certified formula leaves dpaudit.proofs unimported."""
    code = ("import sys\n"
            "from dpaudit.claims.certificates import certified_names, load_formula\n"
            "from dpaudit.mechanisms.families import proof_modules\n"
            "for family in proof_modules():\n"
            "    for name in certified_names(family):\n"
            "        load_formula(family, name)\n"
            "loaded = [m for m in sys.modules if m == 'proofs' or 'proofs.' in m\n"
            "          or m.endswith('.proofs')]\n"
            "print(sorted(loaded))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "tests", text=True,
                         capture_output=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_proofs_install_as_dpaudit_proofs_and_never_as_a_top_level_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"dpaudit.proofs": "proofs"}
    assert setuptools["package-data"]["dpaudit.proofs"] == ["certificates/*.json"]
    assert "proofs" not in setuptools["package-data"]
    assert all(p == "dpaudit" or p.startswith("dpaudit.") for p in setuptools["packages"])
    assert {"dpaudit.proofs", "dpaudit.proofs.certificates"} <= set(setuptools["packages"])
    # every package directory of dpaudit/ and proofs/ is installed
    found = {".".join([package, *d.relative_to(ROOT / folder).parts])
             for folder, package in FOLDERS.items()
             for d in [ROOT / folder, *(ROOT / folder).rglob("*")]
             if d.is_dir() and "__pycache__" not in d.parts
             and any(f.name != "__pycache__" for f in d.iterdir())}
    assert found == set(setuptools["packages"])


def test_family_modules_do_not_import_the_registry():
    graph = import_graph()
    for family_module in (m for m in MODULES if m.startswith("dpaudit.mechanisms.")
                          and m.count(".") >= 3):
        assert "dpaudit.mechanisms.registry" not in graph[family_module], family_module


PLUGIN = '''
import numpy as np
from dpaudit.claims import PureDP
from dpaudit.mechanisms.base import NeighbourPair
from dpaudit.mechanisms.classic import LaplaceMechanism
from dpaudit.mechanisms.families import Family


class PluginLaplace(LaplaceMechanism):
    """A plug-in family's mechanism (a renamed Laplace)."""

    name = "plugin-laplace"
    family = "plugin_family"


MECHANISMS = (PluginLaplace,)
FAMILY = Family("plugin_family", "plugin_family_pkg", None, "a test plug-in")
'''


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """A real distribution on sys.path whose metadata declares a ``dpaudit.families`` entry
    point (what ``pip install`` of a plug-in leaves behind), and a fresh registry."""
    from dpaudit.mechanisms import registry

    (tmp_path / "plugin_family_pkg").mkdir()
    (tmp_path / "plugin_family_pkg" / "__init__.py").write_text(PLUGIN)
    info = tmp_path / "plugin_family_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-family-pkg\n"
                                   "Version: 1.0\n")
    (info / "entry_points.txt").write_text("[dpaudit.families]\n"
                                           "plugin = plugin_family_pkg:FAMILY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    saved = (dict(registry._REGISTRY), dict(registry._FAMILIES), registry._LOADED)
    registry._REGISTRY.clear()
    registry._FAMILIES.clear()
    registry._LOADED = False
    yield registry
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved[0])
    registry._FAMILIES.clear()
    registry._FAMILIES.update(saved[1])
    registry._LOADED = saved[2]
    sys.modules.pop("plugin_family_pkg", None)


def test_entry_point_registers_a_family_without_editing_dpaudit(installed_plugin):
    registry = installed_plugin
    assert "plugin_family" in [f.name for f in registry.families()]
    mech = registry.create_mechanism("plugin-laplace", epsilon=0.5)
    assert mech.claim().epsilon(0.0) == pytest.approx(0.5)
    assert "laplace" in registry.mechanism_names()  # the built-ins are still there
