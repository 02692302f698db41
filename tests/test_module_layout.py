"""The layout rules of dpaudit/audit and dpaudit/report: no import cycle between audit modules
(function-level imports included), no private name imported across modules, and no audit
module over the size rule."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dpaudit"
MAX_LINES = 450


def _imports(path: Path) -> list[ast.ImportFrom | ast.Import]:
    return [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, (ast.Import, ast.ImportFrom))]


def _audit_graph() -> dict[str, set[str]]:
    graph = {}
    for path in (PACKAGE / "audit").glob("*.py"):
        if path.stem == "__init__":
            continue
        deps = set()
        for node in _imports(path):
            if isinstance(node, ast.ImportFrom) and node.module == "dpaudit.audit":
                deps |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "dpaudit.audit."):
                deps.add(node.module.rsplit(".", 1)[1])
            elif isinstance(node, ast.Import):
                deps |= {a.name.rsplit(".", 1)[1] for a in node.names
                         if a.name.startswith("dpaudit.audit.")}
        graph[path.stem] = deps
    return graph


def test_audit_modules_import_each_other_without_a_cycle():
    graph = _audit_graph()
    done: set[str] = set()

    def visit(name, path):
        assert name not in path, f"import cycle: {' -> '.join(path + [name])}"
        if name in done:
            return
        for dep in graph.get(name, ()):
            visit(dep, path + [name])
        done.add(name)

    for name in graph:
        visit(name, [])


def test_no_private_name_is_imported_across_modules():
    paths = [*(PACKAGE / "audit").glob("*.py"), *(PACKAGE / "report").glob("*.py"),
             PACKAGE / "cli.py"]
    private = [(p.name, node.module, a.name) for p in paths for node in _imports(p)
               if isinstance(node, ast.ImportFrom)
               and (node.module or "").startswith(("dpaudit", "proofs"))
               for a in node.names if a.name.startswith("_") and a.name != "__version__"]
    assert private == []


def test_audit_and_report_modules_stay_small():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines())
             for d in ("audit", "report") for p in (PACKAGE / d).glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
