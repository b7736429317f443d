"""Random semantic edits of the public Parametric Promela files, for differential fuzzing.

Why: tactl reads ByMC's ``.pml`` files itself (macros, guards, assignments, the ``assume``
resilience): an edit that changes the meaning of a file must change the translated automaton the
same way SPIN's reading of the edited file changes. ``make fuzz`` checks every edited file with
the parametric engine at one valuation and with the reference (``--engine source``, SPIN on the
file itself, when the installed tactl has it) per ``ltl`` property (``tactl.bench.fuzz``).

The files are used by path (``../shared/benchmarks/bymc-promela/``), never copied; without them
no edit is generated. Each edit is one textual change at one position, tagged with its kind:

| tag | edit |
|---|---|
| ``pml_constant`` | an integer literal of a guard or assignment inside the process, plus or minus 1 |
| ``pml_comparison`` | a comparison operator swapped (``>=`` / ``>``, ``<`` / ``<=``, ``==`` / ``!=``) |
| ``pml_define`` | the value of a ``#define NAME k`` changed to another small number |
| ``pml_define_expr`` | ``#define NAME k`` rewritten as the unparenthesised ``k + 1 - 1``: cpp substitutes the text, so the meaning changes next to ``*``, ``-`` (trust round 4, A1) |
| ``pml_parameter`` | one parameter name in a guard replaced by another (``T`` by ``F``) |
| ``pml_assignment`` | the right side of an assignment of a location constant replaced by another one |

Deterministic: edit ``index`` of ``seed`` is drawn from its own ``random.Random``.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from pathlib import Path

from tactl.bench.fuzz_alg import Program

PML_CONSTRUCTS: tuple[str, ...] = ("pml_constant", "pml_comparison", "pml_define",
                                   "pml_define_expr", "pml_parameter", "pml_assignment")


def benchmark_dir() -> Path:
    """Where the public ``.pml`` files are (``../shared/benchmarks/bymc-promela`` of the checkout)."""
    return Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks" / "bymc-promela"


def seed_files(root: Path | None = None) -> list[Path]:
    """The ``.pml`` files tactl reads without refusing (the ones it refuses test nothing here)."""
    root = benchmark_dir() if root is None else root
    if not root.is_dir():
        return []
    refused = re.compile(r"^\s*(mtype|chan|const|typedef)\b", re.M)
    return sorted(p for p in root.glob("*/*.pml")
                  if not refused.search(text := p.read_text()) and valuation(text) is not None)


_SYMBOLIC = re.compile(r"^\s*symbolic\s+int\s+(\w+)\s*;", re.M)
_ASSUME = re.compile(r"^assume\s*\((.*)\)\s*;?\s*$", re.M)
_DEFINE = re.compile(r"^#define\s+(\w+)\s+(-?\d+)\b", re.M)


def _python(expr: str) -> str:
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("/", "//")
    return re.sub(r"!(?!=)", " not ", expr)


def valuation(text: str) -> tuple[tuple[str, int], ...] | None:
    """The smallest valuation of the ``symbolic`` parameters that meets the global ``assume``s.

    Smallest first parameter (the system size), then as few zero parameters as possible (a
    valuation where faulty processes exist says more than one without them), then the smallest. None when no small one exists (an edit of
    an ``assume`` may leave none) or an assumption is not a plain arithmetic comparison.
    """
    names = _SYMBOLIC.findall(text)
    if not names:
        return None
    macros = dict(_DEFINE.findall(text))
    conds = []
    for expr in _ASSUME.findall(text):
        expr = re.sub(r"\b\w+\b", lambda m: macros.get(m.group(0), m.group(0)), expr)
        conds.append(compile(_python(expr), "<assume>", "eval"))
    if len(names) > 6:  # 7 * 4^6 candidates already; larger files are not edited
        return None
    best = None
    for first in range(1, 8):
        for rest in itertools.product(range(0, 4), repeat=len(names) - 1):
            values = (first, *rest)
            env = dict(zip(names, values))
            try:
                if not all(eval(c, {"__builtins__": {}}, dict(env)) for c in conds):  # noqa: S307
                    continue
            except Exception:  # an assumption this small evaluator does not read
                return None
            key = (sum(1 for v in rest if v == 0), sum(rest), values)
            if best is None or key < best[0]:
                best = (key, env)
        if best is not None:
            break
    return None if best is None else tuple(best[1].items())


def _proc_span(text: str) -> tuple[int, int]:
    """The character range of the process bodies (from the first ``proctype`` to the first ``ltl``)."""
    start = text.find("proctype")
    end = text.find("\nltl ")
    return (max(start, 0), end if end > start else len(text))


def _edits(text: str) -> dict[str, list[tuple[int, int, str]]]:
    """Every candidate edit per tag, as (start, end, replacement)."""
    lo, hi = _proc_span(text)
    out: dict[str, list[tuple[int, int, str]]] = {t: [] for t in PML_CONSTRUCTS}
    body_lines = [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]*", text[lo:hi])]
    for off, line in body_lines:
        stripped = line.strip()
        if stripped.startswith(("printf", "/*", "*", "//")) or not stripped:
            continue
        base = lo + off
        for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", line):
            k = int(m.group(1))
            for r in {k + 1, max(0, k - 1)} - {k}:
                out["pml_constant"].append((base + m.start(1), base + m.end(1), str(r)))
        for m in re.finditer(r">=|<=|==|!=|(?<![-<>])>(?!=)|(?<![<-])<(?![=-])", line):
            swap = {">=": ">", ">": ">=", "<=": "<", "<": "<=", "==": "!=", "!=": "=="}[m.group(0)]
            out["pml_comparison"].append((base + m.start(), base + m.end(), swap))
        if re.search(r"(>=|<=|<|>|==)", line):
            for m in re.finditer(r"\b(N|T|F|Fp|Fs|Tc|Fc|Fnc|To|Fo)\b", line):
                for other in ("T", "F", "N"):
                    if other != m.group(1) and re.search(rf"\b{other}\b", text[:lo]):
                        out["pml_parameter"].append((base + m.start(), base + m.end(), other))
    defines = [(m, int(m.group(2))) for m in _DEFINE.finditer(text)]
    locs = [m.group(1) for m, _ in defines if not m.group(1).endswith("_SZ")
            and m.group(1) not in ("FALSE", "TRUE")]
    for m, k in defines:
        for r in {k + 1, max(0, k - 1)} - {k}:
            out["pml_define"].append((m.start(2), m.end(2), str(r)))
        out["pml_define_expr"].append((m.start(2), m.end(2), f"{k} + 1 - 1"))
    for off, line in body_lines:
        for m in re.finditer(r"\b(next_pc|pc)\s*=\s*(\w+)\s*;", line):
            for other in locs:
                if other != m.group(2):
                    out["pml_assignment"].append((lo + off + m.start(2), lo + off + m.end(2), other))
    return out


@dataclass(frozen=True)
class Mutant:
    """Where an edit came from, for the report."""

    source: Path
    tag: str
    line: int
    before: str
    after: str


def generate(seed: int, index: int, files: list[Path]) -> tuple[Program, Mutant] | None:
    """Edit ``index`` of ``seed``: a file in turn, a tag at random among those it offers."""
    if not files:
        return None
    rng = random.Random(f"tactl-fuzz-pml:{seed}:{index}")
    path = files[index % len(files)]
    text = path.read_text()
    edits = {t: e for t, e in _edits(text).items() if e}
    for _ in range(8):
        tag = rng.choice(sorted(edits))
        start, end, repl = rng.choice(edits[tag])
        new = text[:start] + repl + text[end:]
        params = valuation(new)
        if params is None:
            continue
        line_no = text.count("\n", 0, start) + 1
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        before = text[line_start:line_end].strip()
        after = new[line_start:new.find("\n", line_start)].strip()
        note = f"{tag} at {path}:{line_no}: {before!r} -> {after!r}"
        prog = Program(seed, index, f"pml-{path.stem}", new, frozenset({tag}), params, ".pml", note)
        return prog, Mutant(path, tag, line_no, before, after)
    return None
