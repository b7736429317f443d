"""No module of tactl reaches a ``_private`` name of another module.

A leading underscore says "only this module relies on it": a name another module needs is part of
its module's interface and is public under a name that says what it is, or lives in the module
that uses it. This test holds the project's modules to that, read with ``ast`` from the source
folders pyproject maps into the package (as tests/packaging/test_layout.py reads them: nothing is
imported). It finds ``from M import _name``, ``import M._module`` and ``M._name`` where ``M`` is
bound to a project module by an import. Dunder names (``__version__``) are public. The tests
themselves may still reach private names.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from test_layout import project_modules

PROJECT = "tactl"


@dataclass(frozen=True)
class Crossing:
    source: str  # the module that reaches in
    line: int
    target: str  # the module whose private name it reaches
    name: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line} uses {self.target}.{self.name}"


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def ours(module: str) -> bool:
    return module == PROJECT or module.startswith(PROJECT + ".")


def origin(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` reads from, relative levels resolved."""
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[:len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def crossings(module: str, text: str, is_package: bool, known: set[str]) -> list[Crossing]:
    """Every private name of another project module that ``text`` (the source of ``module``)
    imports or reads through a module it imported."""
    tree = ast.parse(text)
    found: list[Crossing] = []
    bound: dict[str, str] = {}  # a local name -> the project module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not ours(alias.name):
                    continue
                parts = alias.name.split(".")
                for i, part in enumerate(parts[1:], start=1):
                    if private(part):
                        found.append(Crossing(module, node.lineno, ".".join(parts[:i]), part))
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[parts[0]] = parts[0]
        elif isinstance(node, ast.ImportFrom):
            base = origin(module, is_package, node)
            if not ours(base):
                continue
            for alias in node.names:
                if private(alias.name):
                    found.append(Crossing(module, node.lineno, base, alias.name))
                elif f"{base}.{alias.name}" in known:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and private(node.attr)):
            continue
        parts = dotted(node.value)
        if parts is None or parts[0] not in bound:
            continue
        target = ".".join([bound[parts[0]], *parts[1:]])
        if target in known or target == PROJECT:
            found.append(Crossing(module, node.lineno, target, node.attr))
    return sorted(set(found), key=lambda c: (c.source, c.line, c.name))


def project_crossings() -> list[Crossing]:
    modules = project_modules()
    known = set(modules)
    return [c for name, path in sorted(modules.items())
            for c in crossings(name, path.read_text(encoding="utf-8"), path.stem == "__init__", known)]


def test_no_private_name_crosses_a_module_boundary():
    found = project_crossings()
    assert found == [], ("private names used outside their module: make each public under a name "
                         "that says what it is, or move it where it is used:\n"
                         + "\n".join(map(str, found)))


def test_the_scan_finds_each_way_in():
    known = {"tactl.engines.a", "tactl.engines.b", "tactl.engines"}
    text = ("from tactl.engines.a import _helper, public\n"
            "from .b import _other\n"
            "from tactl.engines import a\n"
            "import tactl.engines.b as bee\n"
            "import tactl.engines.b\n"
            "from os import _exit\n"
            "x = a._table, bee._cache, tactl.engines.b._three, a.__doc__, a.public._own\n")
    found = [str(c) for c in crossings("tactl.engines.c", text, False, known)]
    assert found == ["tactl.engines.c:1 uses tactl.engines.a._helper",
                     "tactl.engines.c:2 uses tactl.engines.b._other",
                     "tactl.engines.c:7 uses tactl.engines.b._cache",
                     "tactl.engines.c:7 uses tactl.engines.a._table",
                     "tactl.engines.c:7 uses tactl.engines.b._three"]
