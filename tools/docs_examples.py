"""Regenerate (or, with ``--check``, compare) every example of real output in the documentation,
and the CLI reference page generated from the Typer app.

Why: an example that was true when it was pasted goes stale as soon as an output changes, and a
stale example teaches the wrong thing. So the documentation never holds pasted output; it holds
commands, and this script runs them. Run it as ``make docs-examples``; ``make test`` runs
``tests/packaging/test_docs.py``, which calls ``--check`` and fails when a page is stale.

The pages are README.md and every ``docs/**/*.md``. Three markers are read, the first two followed by a
fenced block:

- ``<!-- file: NAME -->``: the block's text is written to NAME in the scratch folder (a relative
  path, no ``..``), so that a later command can read it: a tutorial creates every file it uses;
- ``<!-- run: CMD -->``: CMD is run by ``bash`` in the scratch folder, and the block becomes
  ``$ CMD`` followed by what it printed, standard output and standard error as they interleave
  (as in a log). ``<!-- run needs=spin,nusmv: CMD -->`` names external programs it needs
  besides the ones recognised from the command itself (``--engine spin``, ``--engine nusmv``,
  ``--certify``, ``dot ... -o X.svg``, ``verify``'s pictures).

- ``<!-- copy: ~/.cache/tactl/benchmarks/ftb-promela/fmcad13/bcast-byz.pml -->`` (no block
  after it): a public benchmark file that ``make ftb-promela`` (or another fetch target) puts
  outside the repository is copied into the scratch folder under its own name; where it is
  absent, every later ``run`` block of the page that names the file is skipped.

Each page runs in a fresh scratch folder that starts with a copy of the repository's
``corpus/`` and ``tests/data/`` (at the same paths), its blocks in page order. ``tactl`` is the
checkout's: a ``tactl`` on the PATH that runs ``python -m tactl.cli`` with this interpreter.
Every command runs with ``PYTHONHASHSEED=0``, so that no set order can make two runs differ.

What varies from run to run is normalised before two outputs are compared: times (``0.03 s``,
``12 ms``), memory (``74.1 MB``), the number of SMT queries (``6 queries``; the count behind a
violation was seen to differ between two runs of one command on a loaded machine),
hexadecimal digests (cache entries), the scratch folder's path
and the home directory (written as ``.`` and ``~``), and the runs of spaces that column
alignment makes of them. The progress lines of ``check`` and ``verify`` (``tactl: [1/3] ...``,
``tactl: diameter search: ...``) are left out: they report timing while the command runs. A
block whose output is unchanged up to that normalisation is left as it is (no churn of times).

A block that needs a program this machine lacks (SPIN, a C compiler, NuSMV, Graphviz's ``dot``,
the cvc5 Python package) is not run: it is kept as it is and listed as skipped, and
``--check`` does not fail on it. A command that cannot run (``bash`` exit 126/127), takes longer
than ``--timeout`` or ends in a tactl internal error fails the script, as does a ``run`` marker
without a fenced block after it.

Exit status: 0 all pages current (or rewritten), 1 ``--check`` found stale pages, 2 a block
could not be run.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from docs_cli import CLI_PAGE, render_cli_reference  # noqa: E402  (tools/ is not a package)

#: The folders a page's scratch folder starts with (copied at the same relative paths).
SEED_FOLDERS = ("corpus", "tests/data")

_RUN = re.compile(r"^\s*<!--\s*run(?:\s+needs=(?P<needs>[\w,.+-]+))?\s*:\s*(?P<cmd>.*?)\s*-->\s*$")
_FILE = re.compile(r"^\s*<!--\s*file\s*:\s*(?P<name>\S+)\s*-->\s*$")
_COPY = re.compile(r"^\s*<!--\s*copy\s*:\s*(?P<source>\S+)\s*-->\s*$")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})(?P<info>.*)$")
_PROGRESS = re.compile(r"^tactl: (\[\d+/\d+\] |diameter search: )")


class DocsError(Exception):
    """A page or a block that cannot be processed: the message names page and line."""


@dataclass
class Block:
    """A marker and the fenced block after it: lines [start, end) of the page are the fence."""

    kind: str  # "run", "file" or "copy" (a copy has no fenced block)
    arg: str  # the command, or the file name
    needs: tuple[str, ...]
    marker_line: int  # 1-based, for messages
    start: int  # index of the opening fence line
    end: int  # index one past the closing fence line
    opening: str
    closing: str
    body: list[str]  # without the fence's indentation (a block inside a list item is indented)
    indent: str = ""

    def text(self) -> str:
        return "".join(line + "\n" for line in self.body)


@dataclass
class PageResult:
    page: Path
    new_text: str
    stale: list[str] = field(default_factory=list)  # one message per stale block
    skipped: list[str] = field(default_factory=list)
    ran: int = 0


def pages() -> list[Path]:
    """README.md, then every Markdown page under docs/ in path order (the generated CLI page too:
    it has no markers, and is regenerated separately)."""
    found = [REPO / "README.md"] if (REPO / "README.md").is_file() else []
    return found + sorted((REPO / "docs").rglob("*.md"))


def find_blocks(lines: list[str], page: str) -> list[Block]:
    """Every marker with its fenced block. A marker must be followed, after blank lines only, by
    a fence; the block ends at the first fence line of the same kind and at least the same length."""
    blocks = []
    i = 0
    while i < len(lines):
        run, file, copy = _RUN.match(lines[i]), _FILE.match(lines[i]), _COPY.match(lines[i])
        if copy:
            blocks.append(Block("copy", copy.group("source"), (), i + 1, i, i + 1, "", "", []))
            i += 1
            continue
        if not (run or file):
            i += 1
            continue
        marker = i
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        opening = _FENCE.match(lines[j]) if j < len(lines) else None
        if opening is None:
            raise DocsError(f"{page}:{marker + 1}: a '{'run' if run else 'file'}' marker must be "
                            "followed by a fenced block (```)")
        ticks, indent = opening.group("ticks"), opening.group("indent")
        k = j + 1
        while k < len(lines) and not (lines[k].strip().startswith(ticks)
                                      and not lines[k].strip().strip(ticks[0])):
            k += 1
        if k == len(lines):
            raise DocsError(f"{page}:{j + 1}: the fenced block is not closed")
        needs = tuple(n for n in (run.group("needs") or "").split(",") if n) if run else ()
        blocks.append(Block("run" if run else "file", run.group("cmd") if run else file.group("name"),
                            needs, marker + 1, j, k + 1, lines[j], lines[k],
                            [line[len(indent):] if line.startswith(indent) else line.lstrip()
                             for line in lines[j + 1:k]], indent))
        i = k + 1
    return blocks


# --- what a command needs ------------------------------------------------------------------------

def _have(program: str) -> bool:
    """Whether an external program the command needs is here (tactl's own lookup where it has one)."""
    # lazy: the script's own start stays free of tactl until a block needs the lookup
    from tactl.engines import checkers

    if program == "spin":
        return checkers.spin() is not None
    if program in ("cc", "gcc"):
        return checkers.c_compiler() is not None
    if program.lower() == "nusmv":
        return checkers.nusmv() is not None
    if program == "cvc5":
        import importlib.util  # lazy: only for --certify blocks

        return importlib.util.find_spec("cvc5") is not None or shutil.which("cvc5") is not None
    return shutil.which(program) is not None


def needed(command: str, declared: tuple[str, ...]) -> list[str]:
    """The external programs a command needs: the declared ones and those its options imply."""
    needs = list(declared)
    if re.search(r"--engine[ =]spin\b", command) or (re.search(r"--engine[ =]source\b", command)
                                                     and ".pml" in command):
        needs += ["spin", "cc"]
    if re.search(r"--engine[ =]nusmv\b", command):
        needs.append("nusmv")
    if "--certify" in command:
        needs.append("cvc5")
    if re.search(r"\btactl (?:.* )?dot\b.*\.(svg|png|pdf)\b", command) or re.search(r"\btactl (?:.* )?verify\b", command):
        needs.append("dot")
    return list(dict.fromkeys(needs))


# --- normalisation -------------------------------------------------------------------------------

_TIME = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:s|ms)\b")
_MEMORY = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:MB|KB|GB|MiB|GiB)\b")
_QUERIES = re.compile(r"\b\d+ quer(?:y|ies)\b")
_HEX = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{8,64}\b")
_SPACES = re.compile(r"[ \t]+")


def canonical(text: str) -> str:
    """The text with everything that varies from run to run replaced (see the module docstring)."""
    lines = []
    for line in text.splitlines():
        line = _TIME.sub("T s", line)
        line = _MEMORY.sub("M MB", line)
        line = _QUERIES.sub("N queries", line)
        line = _HEX.sub("<hex>", line)
        lines.append(_SPACES.sub(" ", line).strip())
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def clean_output(raw: str, scratch: Path) -> str:
    """What a block shows of a command's output: paths made relative, progress lines left out,
    trailing spaces and blank lines dropped."""
    text = raw.replace(str(scratch) + "/", "").replace(str(scratch), ".")
    home = str(Path.home())
    if home not in ("", "/"):
        text = text.replace(home, "~")
    lines = [line.rstrip() for line in text.splitlines() if not _PROGRESS.match(line)]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


# --- running a page ------------------------------------------------------------------------------

def _tactl_shim(bin_dir: Path) -> None:
    """A ``tactl`` on the PATH that is this checkout's, whatever the PATH held before."""
    shim = bin_dir / "tactl"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tactl.cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)


def _scratch(root: Path) -> Path:
    folder = root / "work"
    for seed in SEED_FOLDERS:
        if (REPO / seed).is_dir():
            shutil.copytree(REPO / seed, folder / seed,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    folder.mkdir(exist_ok=True)
    return folder


def _environment(bin_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr interleave as they are written
    # one hash seed for every run: where an order (of a set, hence of z3's constraints) could
    # reach an output, two runs of the page still print the same
    env["PYTHONHASHSEED"] = "0"
    env.pop("TACTL_CACHE_DIR", None)  # verify's default cache, .tactl-cache/ of the scratch folder
    env["COLUMNS"] = "100"  # --help wraps the same way on every terminal
    env.pop("TACTL_NO_REDUCTION", None)
    env.pop("TACTL_NO_MINIMAL", None)
    return env


def run_page(page: Path, timeout: float, only_files: bool = False) -> PageResult:
    """Run a page's blocks in order in a fresh scratch folder; the page's new text and which
    blocks were stale or skipped."""
    name = page.relative_to(REPO).as_posix() if page.is_relative_to(REPO) else str(page)
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks = find_blocks(lines, name)
    result = PageResult(page, page.read_text(encoding="utf-8"))
    if not any(b.kind == "run" for b in blocks) or only_files:
        return result
    out = list(lines)
    with tempfile.TemporaryDirectory(prefix="tactl-docs-") as tmp:
        root = Path(tmp)
        (root / "bin").mkdir()
        _tactl_shim(root / "bin")
        scratch = _scratch(root)
        env = _environment(root / "bin")
        # replaced back to front so that earlier indices stay valid
        replacements: list[tuple[Block, list[str]]] = []
        absent: dict[str, str] = {}  # file name -> the copy source that is not on this machine
        for block in blocks:
            where = f"{name}:{block.marker_line}"
            if block.kind == "copy":
                source = Path(os.path.expanduser(block.arg))
                if source.is_file():
                    shutil.copyfile(source, scratch / source.name)
                else:
                    absent[source.name] = block.arg
                continue
            if block.kind == "file":
                target = Path(block.arg)
                if target.is_absolute() or ".." in target.parts:
                    raise DocsError(f"{where}: a file marker names a path inside the scratch folder "
                                    f"(relative, no '..'): {block.arg}")
                (scratch / target).parent.mkdir(parents=True, exist_ok=True)
                (scratch / target).write_text(block.text(), encoding="utf-8")
                continue
            missing = [p for p in needed(block.arg, block.needs) if not _have(p)]
            missing += [src for base, src in absent.items() if re.search(rf"(?<![\w.-]){re.escape(base)}\b", block.arg)]
            if missing:
                result.skipped.append(f"{where}: {block.arg} (needs {', '.join(missing)})")
                continue
            try:
                done = subprocess.run(["bash", "-c", block.arg], cwd=scratch, env=env,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, timeout=timeout)
            except subprocess.TimeoutExpired:
                raise DocsError(f"{where}: '{block.arg}' took longer than {timeout:g} s") from None
            output = clean_output(done.stdout.decode("utf-8", "replace"), scratch)
            if done.returncode in (126, 127) or "tactl: internal error" in output:
                raise DocsError(f"{where}: '{block.arg}' could not run (exit {done.returncode}):\n"
                                + output[-2000:])
            result.ran += 1
            old = block.text()
            fresh = f"$ {block.arg}\n{output}"
            if canonical(old) == canonical(fresh):
                continue
            diff = "".join(difflib.unified_diff(old.splitlines(True), fresh.splitlines(True),
                                                "in the page", "now", n=1))
            result.stale.append(f"{where}: {block.arg}\n{diff[:3000]}")
            replacements.append((block, fresh.splitlines()))
        for block, body in reversed(replacements):
            opening = block.opening if block.opening.strip("`~ ") else block.opening + "console"
            body = [block.indent + line if line else line for line in body]
            out[block.start:block.end] = [opening, *body, block.closing]
    result.new_text = "\n".join(out) + "\n"
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a page's examples or the CLI reference are stale")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per command (default 120)")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="pages run at once (default 1; make docs-examples uses 2)")
    parser.add_argument("--no-cli", action="store_true",
                        help=f"leave {CLI_PAGE} alone (only the pages' examples)")
    parser.add_argument("pages", nargs="*", type=Path,
                        help="only these pages (default: README.md and docs/**/*.md)")
    args = parser.parse_args(argv)
    chosen = [p.resolve() for p in args.pages] or pages()
    started = time.monotonic()
    stale, skipped, ran = [], [], 0
    try:
        cli_path = REPO / CLI_PAGE
        cli_text = "" if args.no_cli else render_cli_reference()
        if not args.no_cli and (not cli_path.is_file() or cli_path.read_text(encoding="utf-8") != cli_text):
            stale.append(f"{CLI_PAGE}: the CLI reference differs from what tactl's --help says")
            if not args.check:
                cli_path.parent.mkdir(parents=True, exist_ok=True)
                cli_path.write_text(cli_text, encoding="utf-8")
        # pages are independent (each has its own scratch folder): -j runs several at once, and
        # the results are taken in page order so that messages read the same either way
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda page: run_page(page, args.timeout), chosen))
        for page, result in zip(chosen, results):
            ran += result.ran
            skipped += result.skipped
            stale += result.stale
            if result.stale and not args.check:
                page.write_text(result.new_text, encoding="utf-8")
    except DocsError as e:
        print(f"docs_examples: {e}", file=sys.stderr)
        return 2
    for line in skipped:
        print(f"skipped: {line}", file=sys.stderr)
    took = time.monotonic() - started
    if stale and args.check:
        print("\n\n".join(stale), file=sys.stderr)
        print(f"\n{len(stale)} stale example(s) in the documentation: run make docs-examples "
              "(tools/docs_examples.py) and commit the pages it rewrites", file=sys.stderr)
        return 1
    verb = "checked" if args.check else "regenerated"
    print(f"docs_examples: {verb} {ran} command(s) on {len(chosen)} page(s) in {took:.1f} s"
          f"{f'; rewrote {len(stale)} block(s)' if stale and not args.check else ''}"
          f"{f'; skipped {len(skipped)}' if skipped else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
