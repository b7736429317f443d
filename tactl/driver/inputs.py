"""Loading an automaton from whatever the user names: a file recognised by its extension, or
standard input (``-``) recognised by its first word.

Before either, :func:`resolve_input` (one input) and :func:`resolve_inputs` (verify's many) say
which file a name on the command line means: a file or ``-`` as given, else an algorithm of the
corpus the package ships (``bracha``, ``benor_crash``, ``corpus/strb/strb.alg``, and ``corpus``
for all of it), so an installed tool reaches its corpus from any directory; anything else is
refused with the closest names.

Two questions, one dispatch: :func:`read_automaton` returns what the input *is* (a threshold
automaton, or a receive automaton as written), :func:`load_automaton` what the checkers need (a
threshold automaton; a receive automaton is translated, with certificates). JSON documents say
which IR they hold in their ``"format"`` field. Both run the passes declared in
``tactl.driver.pipeline``, which also decides the kind of an input.
"""

from __future__ import annotations

import os
from pathlib import Path

from tactl.driver.pipeline import SUFFIX_KINDS, as_written, load, refusal
from tactl.ir.source import is_stdin
from tactl.ir.rta.result import RtaReadResult
from tactl.ir.ta.reader import ReadResult
from tactl.util.suggest import did_you_mean

AUTOMATON_SUFFIXES = (".alg", ".pml", ".rta", ".ta", ".eta", ".tla")  # preferred in this order when one stem has several
CORPUS = "corpus"  # the name that means the whole corpus (and the folder its paths start with)


class UnknownInput(ValueError):
    """A name that is neither a file nor an algorithm of the corpus: exit 2 with this message."""


def read_automaton(path: str | Path, defines: tuple[str, ...] = ()) -> ReadResult | RtaReadResult:
    """The automaton in ``path`` as written: a checked TA or a checked receive TA (pseudocode is
    parsed into its receive TA), through the declared passes (``tactl.driver.pipeline``);
    ``defines`` are a Promela file's ``-D`` names."""
    return as_written(str(path), options={"defines": defines})


def load_automaton(path: str | Path, lower_divisions: bool = True, defines: tuple[str, ...] = ()) -> ReadResult:
    """A checked threshold automaton from ``path``; a receive automaton is translated (with
    certificates) first. With ``lower_divisions`` (what ``check`` and ``emit`` need) every
    ``/`` is eliminated exactly (the lower pass, ``pipeline.lower_loaded``), so the engines see
    linear automata only; ``show`` and ``fmt`` want the automaton as written
    (``lower_divisions=False``)."""
    return load(str(path), "checkable-ta" if lower_divisions else "ta", options={"defines": defines})


def load_receive_automaton(path: str | Path, defines: tuple[str, ...] = ()) -> RtaReadResult:
    """A checked receive automaton from ``path`` (``.rta`` text or its ``tactl.rta`` JSON form)."""
    loaded = read_automaton(path, defines)
    if not isinstance(loaded, RtaReadResult):
        raise refusal(path, "is a threshold automaton; this command reads a receive threshold "
                            "automaton (.rta, or JSON with \"format\": \"tactl.rta\")")
    return loaded


# ------------------------------------------------------------------------- which file is meant


def corpus_directory() -> Path:
    """The project's corpus: inside the installed package (a wheel ships it as ``tactl/corpus``),
    beside the package in a checkout, else ./corpus."""
    package = Path(__file__).resolve().parents[1]  # tactl/, above tactl/driver/
    for candidate in (package / "corpus", package.parent / "corpus"):
        if candidate.is_dir():
            return candidate
    return Path.cwd() / "corpus"


# corpus/synthesis: algorithms of the corpus with thresholds left unknown, for ``tactl synthesize``
# (docs/synthesize.md); ``check`` answers unsupported on them, so ``tactl verify corpus`` leaves
# them out (``tactl verify synthesis`` names them)
SYNTHESIS_EXAMPLES = "synthesis"


def algorithms_in(directory: Path) -> list[Path]:
    """Every algorithm in ``directory``: one file per stem (``.alg`` before ``.pml`` before ``.rta`` before
    ``.ta`` before ``.eta`` before ``.tla``); a directory without any holds algorithms in its subdirectories
    (but for the corpus's synthesis examples: :data:`SYNTHESIS_EXAMPLES`)."""
    by_stem: dict[str, Path] = {}
    for suffix in AUTOMATON_SUFFIXES:
        for path in sorted(directory.glob(f"*{suffix}")):
            by_stem.setdefault(path.stem, path)
    if by_stem:
        return [by_stem[s] for s in sorted(by_stem)]
    examples = corpus_directory().resolve() / SYNTHESIS_EXAMPLES
    return [p for sub in sorted(d for d in directory.iterdir() if d.is_dir() and d.resolve() != examples)
            for p in algorithms_in(sub)]


def available_names(corpus: Path) -> list[str]:
    """The names the corpus answers to: each algorithm's stem and each folder's name."""
    return sorted({p.stem for p in _every_algorithm(corpus)} | {d.name for d in corpus.iterdir() if d.is_dir()}) \
        if corpus.is_dir() else []


def corpus_algorithms(name: str, corpus: Path | None = None) -> list[Path]:
    """The corpus files ``name`` means (none: it names nothing there): ``corpus`` is all of them,
    a folder's name its algorithms, a stem its file; ``corpus/strb/strb.alg`` is that file of the
    shipped corpus (the paths the documentation uses, from any directory)."""
    corpus = corpus or corpus_directory()
    if not corpus.is_dir() or not name:
        return []
    parts = Path(name).parts
    if name == CORPUS:
        return algorithms_in(corpus)
    if parts and parts[0] == CORPUS and len(parts) > 1:
        inside = corpus.joinpath(*parts[1:])
        return [inside] if inside.is_file() else algorithms_in(inside) if inside.is_dir() else []
    if len(parts) != 1:
        return []
    if (corpus / name).is_dir():
        return algorithms_in(corpus / name)
    return [p for p in _every_algorithm(corpus) if p.stem == name]


def _every_algorithm(corpus: Path) -> list[Path]:
    """The corpus's algorithms and its synthesis examples (which a folder's listing leaves out)."""
    examples = corpus / SYNTHESIS_EXAMPLES
    return [*algorithms_in(corpus), *(algorithms_in(examples) if examples.is_dir() else [])]


def shown_path(path: Path) -> Path:
    """``path`` relative to the working directory when it lies below it (the names reports print),
    else as it is."""
    try:
        relative = Path(os.path.relpath(path))
    except ValueError:  # another drive
        return path
    return path if relative.parts[:1] == ("..",) else relative


def resolve_input(argument: str | Path, corpus: Path | None = None) -> Path:
    """The one file a command reads for ``argument``: the file itself (or ``-``) when it exists,
    else the corpus algorithm of that name (a folder of several: the one named like the folder),
    else a path with an automaton's extension as given (its reader says it cannot be read);
    anything else is refused with the closest corpus names."""
    path = Path(argument)
    if is_stdin(argument) or path.exists():
        return path
    corpus = corpus or corpus_directory()
    found = corpus_algorithms(str(argument), corpus)
    if len(found) > 1:
        found = [p for p in found if p.stem == Path(argument).name] or found
    if len(found) == 1:
        return shown_path(found[0])
    if found:
        raise UnknownInput(f"'{argument}' names {len(found)} algorithms of the corpus "
                           f"({', '.join(p.stem for p in found)}); name one of them (tactl verify "
                           "reads them all)")
    if path.suffix.lower() in SUFFIX_KINDS or path.suffix.lower() == ".json":
        shipped = sorted(corpus.glob(f"*/{path.name}")) if corpus.is_dir() and path.name == str(argument) else []
        if shipped:  # strb.ta from elsewhere: the corpus file of that name, by the path that finds it
            where = Path(CORPUS, *shipped[0].relative_to(corpus).parts)
            raise UnknownInput(f"no such file here; the corpus has one of this name: {where.as_posix()}")
        return path
    names = available_names(corpus)
    raise UnknownInput(f"no such file, and no algorithm of the corpus ({shown_path(corpus)}) has "
                       f"this name" + (did_you_mean(str(argument), names)
                                       or f"; the corpus has: {', '.join(names)}" if names else ""))


def resolve_inputs(arguments: list[str], corpus: Path | None = None) -> list[Path]:
    """Every file ``verify`` reads for ``arguments``: files, directories (every algorithm in
    them), corpus names (``corpus`` for all); unknown names refused as :func:`resolve_input`
    refuses them."""
    corpus = corpus or corpus_directory()
    out: list[Path] = []
    for arg in arguments:
        path = Path(arg)
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            found = algorithms_in(path)
            if not found:
                raise UnknownInput(f"{arg}: no algorithm (.alg, .pml, .rta or .ta file) in this directory")
            out.extend(found)
        else:
            matches = corpus_algorithms(arg, corpus)
            if not matches:
                names = available_names(corpus)
                raise UnknownInput(f"unknown algorithm '{arg}': not a file, a directory, or a name in "
                                   f"{shown_path(corpus)} (or '{CORPUS}' for all of it)"
                                   + (f"; available: {', '.join(names)}" if names else "")
                                   + did_you_mean(arg, names))
            out.extend(matches)
    return list(dict.fromkeys(out))
