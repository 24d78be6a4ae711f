"""The host's shape, for the issue 26 note: Table's size and the import circles in host/.

``python benchmarks/host_shape.py`` prints the line count of ``Table``, its method count,
the parameters of its ``__init__``, the private reaches into ``Table`` (a private member of
the class, a ``_name`` it defines or sets on ``self``, named on anything but ``self``
outside host/table.py: in host/'s other modules, tests/ and benchmarks/), and every import
circle among host/'s modules (runtime imports and ``TYPE_CHECKING`` ones counted apart: only
the first can fail at import time). Static (ast), so it runs nothing of the host.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = ROOT / "host"
PREFIX = "mundus_net.host."


def _type_checking_block(node: ast.AST) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING")


def imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """host modules imported by this module: (at run time, under TYPE_CHECKING only)."""
    runtime: set[str] = set()
    typing_only: set[str] = set()

    def visit(node: ast.AST, typing: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = typing or _type_checking_block(child)
            if isinstance(child, ast.ImportFrom) and child.module:
                names = [child.module, *(f"{child.module}.{a.name}" for a in child.names)]
                for name in names:
                    if name.startswith(PREFIX) and (HOST / f"{name[len(PREFIX):]}.py").exists():
                        (typing_only if inner else runtime).add(name[len(PREFIX):])
            visit(child, inner)

    visit(tree, False)
    return runtime, typing_only


def circles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Every simple cycle, each once (rotated to start at its smallest name)."""
    found: set[tuple[str, ...]] = set()

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph.get(path[-1], ())):
            if nxt == path[0]:
                i = path.index(min(path))
                found.add(tuple(path[i:] + path[:i]))
            elif nxt not in path and nxt > path[0]:
                walk([*path, nxt])

    for start in sorted(graph):
        walk([start])
    return sorted(found)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_members(table: ast.ClassDef) -> set[str]:
    """Table's private names: its ``_methods`` and the ``self._fields`` it sets or reads."""
    names: set[str] = set()
    for node in ast.walk(table):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(node.name):
            names.add(node.name)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "self" and _private(node.attr)):
            names.add(node.attr)
    return names


def private_reaches(members: set[str]) -> dict[str, list[str]]:
    """Outside host/table.py: file -> the Table private names it names on something not
    ``self`` (a name another class happens to share would count too: none does now)."""
    found: dict[str, list[str]] = {}
    for folder in ("host", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == HOST / "table.py":
                continue
            hits = [node.attr for node in ast.walk(ast.parse(path.read_text()))
                    if isinstance(node, ast.Attribute) and node.attr in members
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")]
            if hits:
                found[str(path.relative_to(ROOT))] = hits
    return found


def main() -> None:
    runtime: dict[str, set[str]] = {}
    every: dict[str, set[str]] = {}
    for path in sorted(HOST.glob("*.py")):
        tree = ast.parse(path.read_text())
        run, typ = imports(tree)
        runtime[path.stem] = run - {path.stem}
        every[path.stem] = (run | typ) - {path.stem}
        if path.stem == "table":
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and node.name == "Table":
                    assert node.end_lineno is not None
                    methods = [n for n in node.body
                               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                    init = next(n for n in methods if n.name == "__init__")
                    a = init.args
                    # *args and **keywords count as one parameter each (issue 26's **by_name)
                    params = (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) - 1
                              + (a.vararg is not None) + (a.kwarg is not None))
                    init_lines = (init.end_lineno or 0) - init.lineno + 1
                    print(f"table.py lines: {len(path.read_text().splitlines())}")
                    print(f"Table lines: {node.end_lineno - node.lineno + 1}")
                    print(f"Table methods: {len(methods)}")
                    print(f"Table.__init__ parameters: {params}, lines: {init_lines}")
                    reaches = private_reaches(private_members(node))
                    print(f"private reaches into Table: {sum(map(len, reaches.values()))} "
                          f"{ {p: sorted(set(n)) for p, n in reaches.items()} }")
    print(f"import circles in host/ (run time): {circles(runtime)}")
    print(f"import circles in host/ (with TYPE_CHECKING): {circles(every)}")


if __name__ == "__main__":
    main()
