"""The Python package's modules import one another without cycles: the
top-level imports between ``kiln`` modules form a graph with no cycle, and
no function imports a ``kiln`` module to get around one (the interpreter
reaches the language through ``kiln.dispatch``; the code generator knows a
nested @kiln.jit function by ``__kiln_jit__``)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kiln"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def kiln_imports(node: ast.AST, module: str,
                 known: frozenset[str] = frozenset()) -> set[str]:
    """The kiln modules an import statement names: ``from kiln import x``
    names ``kiln.x`` where that is one of the ``known`` modules, else
    ``kiln``. A module's own packages, which Python imports before it, do
    not count."""
    names = set()
    if isinstance(node, ast.Import):
        names = {alias.name for alias in node.names}
    elif isinstance(node, ast.ImportFrom) and node.module:
        for alias in node.names:
            name = f"{node.module}.{alias.name}"
            names.add(name if name in known or not known else node.module)
    return {n for n in names if n.split(".")[0] == "kiln" and n != module
            and not module.startswith(n + ".")}


def modules() -> dict[str, ast.Module]:
    return {module_name(path): ast.parse(path.read_text())
            for path in PACKAGE.rglob("*.py")}


def test_no_function_imports_a_kiln_module():
    found = []
    for module, tree in modules().items():
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef,
                                         ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if kiln_imports(node, module):
                    found.append(f"{module}.{function.name}: "
                                 f"{ast.unparse(node)}")
    assert not found, found


def test_top_level_imports_have_no_cycle():
    trees = modules()
    known = frozenset(trees)
    graph = {}
    for module, tree in trees.items():
        targets = set()
        for node in tree.body:
            for name in kiln_imports(node, module, known):
                while name and name not in trees:
                    name = name.rpartition(".")[0]
                if name and name != module:
                    targets.add(name)
        graph[module] = targets
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                raise AssertionError(" -> ".join(cycle))
            if target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
