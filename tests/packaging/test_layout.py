"""The layout of tactl: imports go one way, no two modules import each other (even
through a chain, even from inside a function), and an import inside a function is there only to
load something costly late, and says so with a ``# lazy: why`` comment (on its line or the line
above; one comment may head a block of imports written together).

The layers, lowest first; a module imports from its own layer and the layers below it only:

    ir       the typed IRs, their readers, printers and validators (imports nothing else of tactl)
    util     helpers that know no automata: the deadline, careful file output, the version,
             progress, did-you-mean
    passes   one module per pass (and the templates they render)
    engines  the checker and its engines, simulators and schedules; ``tactl.source``, the
             reference interpreter of .alg programs (which must not import what reads automata:
             see test_the_interpreter_reads_no_automaton)
    synth    ``tactl synthesize``'s loop: candidate spaces, regions of counterexamples, the
             search over the checker (it calls the engines; the driver calls it)
    driver   the passes declared and chained, the cache, inputs, translation, verify, executors
    report   show's summary, verify's table, JSON and HTML page
    cli      the commands (and the package ``tactl`` itself, which re-exports the version), and the
             language server ``tactl.lsp`` that ``tactl lsp`` starts (it reads through the driver)
    bench    ``make bench`` and what only it and the tests use

The modules are read from the source folders pyproject maps into the package and parsed with
``ast``: nothing is imported, and imports inside functions count as well as those at the top.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conftest import REPO
from tactl.ir.ta.validate import _shortest_cycle, strongly_connected

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ir", ("tactl.ir",)),
    ("util", ("tactl.util",)),
    ("passes", ("tactl.passes", "tactl.templates")),
    ("engines", ("tactl.engines", "tactl.source")),
    ("synth", ("tactl.synth",)),
    ("driver", ("tactl.driver",)),
    ("report", ("tactl.report",)),
    ("cli", ("tactl.cli", "tactl.lsp", "tactl")),
    ("bench", ("tactl.bench",)),
)
LAZY_MARK = "# lazy:"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # what it imports: a project module (or package, for names it exports), or another
    line: int
    local: bool  # inside a function: runs when the function does
    lazy: bool  # marked ``# lazy: why`` (only asked of a local import)


# ------------------------------------------------------------------------------------ the checker


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of the layer whose longest prefix names ``module``."""
    best, found = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), index
    if found is None:
        raise KeyError(f"{module} is in no layer of tests/packaging/test_layout.py")
    return found


def package_folder(package: str, folders: dict[str, str], repo: Path = REPO) -> Path:
    """Where setuptools finds ``package``: under the folder pyproject maps its longest mapped
    prefix to (``tactl.ir.alg`` is ``ir/alg`` because ``tactl.ir`` is ``ir``), else the dotted
    path itself."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in folders:
            return repo / folders[prefix] / Path(*parts[cut:])
    return repo / Path(*parts)


def project_modules(repo: Path = REPO) -> dict[str, Path]:
    """Every module of the packages pyproject lists, by dotted name, with its source file."""
    config = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    modules: dict[str, Path] = {}
    for package in config["packages"]:
        for path in sorted(package_folder(package, config["package-dir"], repo).glob("*.py")):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


def imports_in(module: str, text: str, is_package: bool, known: set[str]) -> list[Import]:
    """Every import statement of ``text`` (the source of ``module``), at the top, in functions,
    in classes and under conditions alike. ``from P import m`` imports the module ``P.m`` when
    it is one of ``known``, else names of ``P``."""
    lines = text.splitlines()
    found: list[Import] = []

    def origin(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[:len(parts) - (node.level - 1)]
        return ".".join(parts + ([node.module] if node.module else []))

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        base = origin(node)
        modules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
        return modules + ([base] if len(modules) < len(node.names) else [])

    def marked(node: ast.stmt, previous: ast.stmt | None, previous_lazy: bool) -> bool:
        own = lines[node.lineno - 1:node.end_lineno]
        above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
        if any(LAZY_MARK in line for line in own) or above.startswith(LAZY_MARK):
            return True
        return (previous_lazy and isinstance(previous, (ast.Import, ast.ImportFrom))
                and previous.end_lineno == node.lineno - 1)

    def visit(body: list[ast.stmt], local: bool) -> None:
        previous, previous_lazy = None, False
        for node in body:
            lazy = False
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                lazy = local and marked(node, previous, previous_lazy)
                found.extend(Import(module, t, node.lineno, local, lazy) for t in targets(node))
            inner = local or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for name in ("body", "orelse", "finalbody"):
                block = getattr(node, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    visit(block, inner)
            for part in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
                visit(part.body, inner)
            previous, previous_lazy = node, lazy

    visit(ast.parse(text).body, False)
    return found


@functools.cache
def project_imports(repo: Path = REPO) -> tuple[Import, ...]:
    """Every import of the project's modules (read once per test session: the sources do not
    change while the tests run)."""
    modules = project_modules(repo)
    return tuple(imp for name, path in modules.items()
                 for imp in imports_in(name, path.read_text(encoding="utf-8"), path.stem == "__init__",
                                       set(modules)))


def graph(imports: Sequence[Import], known: set[str]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (anywhere in it)."""
    edges: dict[str, set[str]] = {m: set() for m in known}
    for imp in imports:
        if imp.target in known and imp.target != imp.source:
            edges[imp.source].add(imp.target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """A shortest cycle through the first module of each strongly connected component of more
    than one module (the validator's search for macro cycles, on the import graph): empty when
    the imports form no circle."""
    refs = {m: tuple(sorted(edges[m])) for m in sorted(edges)}
    return sorted(_shortest_cycle(min(c), refs, set(c)) for c in strongly_connected(refs) if len(c) > 1)


def upward(imports: Sequence[Import], known: set[str]) -> list[str]:
    """The imports of a module from a layer above its own."""
    out = []
    for imp in imports:
        if imp.target in known and layer_of(imp.target) > layer_of(imp.source):
            out.append(f"{imp.source}:{imp.line} imports {imp.target} "
                       f"({LAYERS[layer_of(imp.source)][0]} -> {LAYERS[layer_of(imp.target)][0]})")
    return out


def unexplained(imports: Sequence[Import]) -> list[str]:
    """Imports inside functions without their ``# lazy:`` comment."""
    seen: set[tuple[str, int]] = set()
    out = []
    for imp in imports:
        if imp.local and not imp.lazy and (imp.source, imp.line) not in seen:
            seen.add((imp.source, imp.line))
            out.append(f"{imp.source}:{imp.line} imports {imp.target} inside a function")
    return out


# ----------------------------------------------------------------------------- the project itself


def test_every_module_is_in_a_layer():
    for name in project_modules():
        layer_of(name)  # raises for a package no layer names


def test_every_package_pyproject_lists_has_its_folder():
    """A package whose folder is not found would be left out of every check here, silently."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    missing = [p for p in config["packages"] if not package_folder(p, config["package-dir"]).is_dir()]
    assert missing == []


def test_no_import_cycle():
    modules = project_modules()
    found = cycles(graph(project_imports(), set(modules)))
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_imports_go_down_the_layers():
    modules = project_modules()
    found = upward(project_imports(), set(modules))
    assert found == [], "imports against the layers (" + " <- ".join(n for n, _ in LAYERS) + "):\n" \
        + "\n".join(found)


def test_the_ir_imports_nothing_else_of_tactl():
    found = [f"{i.source}:{i.line} imports {i.target}" for i in project_imports()
             if i.source.startswith("tactl.ir") and i.target.split(".")[0] == "tactl"
             and not (i.target == "tactl.ir" or i.target.startswith("tactl.ir."))]
    assert found == []


def test_the_passes_import_only_the_ir_the_util_and_each_other():
    """Not the engines, the driver or the CLI, nor ``tactl.__version__`` through the package."""
    found = [f"{i.source}:{i.line} imports {i.target}" for i in project_imports()
             if i.source.startswith("tactl.passes") and i.target.split(".")[0] == "tactl"
             and layer_of(i.target) > layer_of("tactl.passes")]
    assert found == []


# The reference interpreter is a second, independent reading of pseudocode: a mistake
# of the translation must not be shared by it, so nothing that builds or reads automata may be in
# what it imports, directly or through a chain.
INTERPRETER = "tactl.source"
NOT_FOR_THE_INTERPRETER = ("tactl.passes", "tactl.templates", "tactl.ir.rta", "tactl.ir.ta",
                           "tactl.ir.eltl.formula", "tactl.ir.eltl.safety", "tactl.engines", "tactl.driver")


def closure(edges: dict[str, set[str]], start: set[str]) -> set[str]:
    """Every module reachable from ``start`` along the import edges (``start`` included)."""
    seen, todo = set(), list(start)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo.extend(edges.get(m, ()))
    return seen


def forbidden_for_interpreter(module: str) -> bool:
    return any(module == f or module.startswith(f + ".")
               for f in NOT_FOR_THE_INTERPRETER)


def test_the_interpreter_reads_no_automaton():
    modules = project_modules()
    edges = graph(project_imports(), set(modules))
    own = {m for m in modules if m == INTERPRETER or m.startswith(INTERPRETER + ".")}
    assert own, "the interpreter package is missing"
    reached = closure(edges, own)
    found = sorted(m for m in reached if forbidden_for_interpreter(m))
    assert found == [], ("the reference interpreter imports (transitively) modules that read "
                         "automata: " + ", ".join(found))


def test_the_interpreter_check_finds_a_chain():
    edges = {"tactl.source.a": {"tactl.ir.alg.syntax"}, "tactl.ir.alg.syntax": {"tactl.ir.alg.hypothesis"},
             "tactl.ir.alg.hypothesis": {"tactl.ir.ta.model"}, "tactl.ir.ta.model": set()}
    reached = closure(edges, {"tactl.source.a"})
    assert sorted(m for m in reached if forbidden_for_interpreter(m)) == ["tactl.ir.ta.model"]
    assert not forbidden_for_interpreter("tactl.ir.alg.reader")
    assert forbidden_for_interpreter("tactl.ir.ta.reader") and forbidden_for_interpreter("tactl.ir.rta.json_form")


def test_imports_inside_functions_are_commented_lazy_loads():
    found = unexplained(project_imports())
    assert found == [], (f"an import inside a function is a deliberate lazy load, with a "
                         f"'{LAZY_MARK} why' comment on its line or the line above; else it belongs "
                         "at the top of the module:\n" + "\n".join(found))


# ---------------------------------------------------------------- front ends, engines, encodings

# The front ends read what a user writes and turn it into a receive automaton; the engines decide
# threshold automata. Neither needs the other, and keeping them apart means a front end can be
# read, tested and replaced without the solvers, and an engine cannot depend on how its input was
# written.
FRONT_ENDS = ("tactl.ir.alg", "tactl.ir.promela", "tactl.passes.alg_to_rta", "tactl.passes.pml_to_rta",
              "tactl.passes.pml_to_spin")
ENGINES = ("tactl.engines",)
ENCODINGS = ("tactl.passes.ta_to_smt",)
# The hypothesis of a synchronous property is written in pseudocode and carried by the threshold
# automaton (ir/ta/model.py imports it), so every engine reaches it through the TA's own IR.
SHARED_WITH_THE_TA = ("tactl.ir.alg.hypothesis",)
# An engine whose input *is* the source: ``check --engine source`` on a .pml runs SPIN on the file
# itself, after the rewrite that makes it SPIN's input (passes/pml_to_spin/rewrite.py).
SOURCE_ENGINES = ("tactl.engines.spin_source",)


def under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def reached_from(edges: dict[str, set[str]], sources: set[str], forbidden: tuple[str, ...],
                 allowed: tuple[str, ...] = ()) -> list[str]:
    """``source -> module`` for every ``forbidden`` module that a module of ``sources`` imports,
    directly or through a chain, except the ``allowed`` ones."""
    return sorted(f"{m} -> {r}" for m in sources for r in closure(edges, {m})
                  if under(r, forbidden) and not under(r, allowed))


def test_front_ends_import_no_engine_and_no_encoding():
    modules = project_modules()
    edges = graph(project_imports(), set(modules))
    fronts = {m for m in modules if under(m, FRONT_ENDS)}
    assert fronts, "no front-end module found: FRONT_ENDS names packages that are gone"
    found = reached_from(edges, fronts, ENGINES + ENCODINGS)
    assert found == [], "front ends that reach an engine or an encoding:\n" + "\n".join(found)


def test_engines_import_no_front_end():
    modules = project_modules()
    edges = graph(project_imports(), set(modules))
    engines = {m for m in modules if under(m, ENGINES) and not under(m, SOURCE_ENGINES)}
    assert engines, "no engine module found: ENGINES names packages that are gone"
    found = reached_from(edges, engines, FRONT_ENDS, SHARED_WITH_THE_TA)
    assert found == [], "engines that reach a front end:\n" + "\n".join(found)


def test_the_front_end_checks_find_a_chain():
    edges = {"tactl.engines.e": {"tactl.ir.ta.model"}, "tactl.ir.ta.model": {"tactl.ir.alg.reader"},
             "tactl.ir.alg.reader": set(), "tactl.passes.alg_to_rta.x": {"tactl.passes.ta_to_smt.y"},
             "tactl.passes.ta_to_smt.y": set()}
    assert reached_from(edges, {"tactl.engines.e"}, FRONT_ENDS) == ["tactl.engines.e -> tactl.ir.alg.reader"]
    assert reached_from(edges, {"tactl.engines.e"}, FRONT_ENDS, ("tactl.ir.alg.reader",)) == []
    assert reached_from(edges, {"tactl.passes.alg_to_rta.x"}, ENGINES + ENCODINGS) == [
        "tactl.passes.alg_to_rta.x -> tactl.passes.ta_to_smt.y"]


# ------------------------------------------------------------------------------------ module size

MAX_LINES = 800
LONG_REASON = "Longer than 800 lines because"
# Modules above the limit whose split is under way: each entry goes when its module is split.
# Empty this list once those splits are merged; a module must not be added to it to pass.
BEING_SPLIT: set[str] = set()


def long_modules(modules: dict[str, Path]) -> dict[str, int]:
    """Modules above :data:`MAX_LINES` lines whose docstring gives no line starting with
    :data:`LONG_REASON`, with their length."""
    found = {}
    for name, path in sorted(modules.items()):
        text = path.read_text(encoding="utf-8")
        n = len(text.splitlines())
        doc = ast.get_docstring(ast.parse(text)) or ""
        if n > MAX_LINES and not any(line.strip().startswith(LONG_REASON) for line in doc.splitlines()):
            found[name] = n
    return found


def test_no_module_is_longer_than_800_lines_without_a_reason():
    modules = project_modules()
    found = [f"{m} ({modules[m].relative_to(REPO)}, {n} lines)"
             for m, n in long_modules(modules).items() if m not in BEING_SPLIT]
    assert found == [], (f"modules above {MAX_LINES} lines: split them, or say why in the module "
                         f"docstring on a line starting '{LONG_REASON}':\n" + "\n".join(found))


def test_the_split_list_names_only_long_modules():
    """An entry of :data:`BEING_SPLIT` whose module is gone or short again is stale: drop it."""
    modules = project_modules()
    assert sorted(BEING_SPLIT - set(long_modules(modules))) == []


def test_a_long_module_needs_its_reason(tmp_path):
    body = "x = 1\n" * MAX_LINES
    plain = tmp_path / "plain.py"
    plain.write_text('"""A module."""\n' + body)
    argued = tmp_path / "argued.py"
    argued.write_text('"""A module.\n\nLonger than 800 lines because its table is one piece."""\n' + body)
    short = tmp_path / "short.py"
    short.write_text('"""A module."""\n')
    assert long_modules({"plain": plain, "argued": argued, "short": short}) == {"plain": MAX_LINES + 1}


# ------------------------------------------------------------------------------ the checker's own


def _imports(sources: dict[str, str]) -> tuple[list[Import], set[str]]:
    known = set(sources)
    return [imp for name, text in sources.items()
            for imp in imports_in(name, text, False, known)], known


def test_a_cycle_hidden_in_a_function_is_found():
    imports, known = _imports({
        "tactl.engines.a": "from tactl.engines.b import x\n",
        "tactl.engines.b": "from tactl.engines.c import y\n",
        "tactl.engines.c": "def f():\n    from tactl.engines import a  # lazy: breaks a circle\n",
        "tactl.engines.d": "import tactl.engines.a\n",
    })
    assert cycles(graph(imports, known)) == [["tactl.engines.a", "tactl.engines.b", "tactl.engines.c",
                                              "tactl.engines.a"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"d"}}) == []
    assert cycles({"a": {"b"}, "b": {"a"}, "x": {"y"}, "y": {"x", "a"}}) == [["a", "b", "a"], ["x", "y", "x"]]


def test_an_import_against_the_layers_is_found():
    imports, known = _imports({
        "tactl.passes.p": "from tactl.engines.e import x\nfrom tactl.ir.t import y\n",
        "tactl.engines.e": "from tactl.passes import p\n",
        "tactl.ir.t": "from tactl.util import version\n",
        "tactl.util.version": "",
    })
    assert upward(imports, known) == [
        "tactl.passes.p:1 imports tactl.engines.e (passes -> engines)",
        "tactl.ir.t:1 imports tactl.util.version (ir -> util)",
    ]


def test_the_version_through_the_package_is_above_the_passes():
    imports, known = _imports({"tactl.passes.p": "from tactl import __version__\n", "tactl": ""})
    assert upward(imports, known) == ["tactl.passes.p:1 imports tactl (passes -> cli)"]


def test_an_import_inside_a_function_needs_its_reason():
    imports, _ = _imports({"tactl.driver.m": (
        "import json\n"
        "def f():\n"
        "    import z3  # lazy: z3 costs 25 ms\n"
        "    # lazy: the grammar loads on first use\n"
        "    from lark import Lark\n"
        "    from lark import Token\n"
        "\n"
        "    from tactl.ir import expr\n"
        "class C:\n"
        "    import os\n"
        "    def g(self):\n"
        "        try:\n"
        "            import re\n"
        "        except ImportError:\n"
        "            pass\n"
    )})
    assert unexplained(imports) == ["tactl.driver.m:8 imports tactl.ir inside a function",
                                    "tactl.driver.m:13 imports re inside a function"]
