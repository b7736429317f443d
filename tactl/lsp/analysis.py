"""What the commands say about a buffer before any engine runs: its problems and its IRs.

An editor's buffer is read by the very chain of passes ``tactl check`` runs on a file
(``tactl/driver/pipeline.py``: read or parse, then translate with its certificates, then lower),
from the buffer's text instead of the disk, so a diagnostic here is the ``file:line:col`` error
(or warning) that ``tactl parse``, ``translate`` or ``check`` prints for the same text. The
engines never run: the analysis is meant to be repeated at every keystroke.

Two stages, so that a slow translation never holds back a syntax error: :func:`read_document`
(the reader or the parse pass, up to the automaton as written) and :func:`translate_document`
(the receive automaton to the checkable threshold automaton, with the certificate rows a hover
shows). Both return an :class:`Analysis` and raise nothing a reader can raise.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any

from tactl.driver.pipeline import SUFFIX_KINDS, NoChain, Runner, Source, plan
from tactl.driver.translation import CertificateError
from tactl.ir.errors import Diagnostic, Severity, TactlError
from tactl.ir.rta.reader import RtaReadResult
from tactl.ir.source import normalize
from tactl.ir.ta.reader import ReadResult

# The editors' language ids (editors/vscode/package.json) and the pipeline's IR kinds they hold.
LANGUAGE_KINDS = {"tactl-alg": "alg-text", "tactl-rta": "rta-text", "tactl-ta": "ta-text",
                  "tactl-eta": "eta-text", "tactl-pml": "pml-text"}


@dataclass(frozen=True)
class Problem:
    """One diagnostic of the buffer: the reader's own :class:`Diagnostic` (message, severity,
    span) and the line the command prints for it (``path:line:col: message``, caret lines cut)."""

    diagnostic: Diagnostic
    rendered: str

    @property
    def is_error(self) -> bool:
        return self.diagnostic.severity is Severity.ERROR


@dataclass
class Analysis:
    """A buffer as the commands see it: ``written`` is the automaton as its author wrote it (a
    receive automaton for ``.alg``/``.rta``/``.pml``, a threshold automaton for ``.ta``/``.eta``),
    ``checkable`` the threshold automaton check would decide, with its certificate rows (None
    until :func:`translate_document` ran, or when a stage failed)."""

    path: str
    text: str
    kind: str | None
    problems: list[Problem] = field(default_factory=list)
    written: RtaReadResult | ReadResult | None = None
    checkable: ReadResult | None = None

    @property
    def failed(self) -> bool:
        return any(p.is_error for p in self.problems)


def kind_of(path: str, language_id: str | None = None) -> str | None:
    """The pipeline's IR kind of a buffer: by the file's extension, else by the editor's
    language id (an unsaved buffer), else None (not a file tactl reads)."""
    kind = SUFFIX_KINDS.get(PurePath(path).suffix.lower())
    return kind or LANGUAGE_KINDS.get(language_id or "")


def _problems(error: TactlError, path: str) -> list[Problem]:
    return [Problem(d, d.render(path, None)) for d in error.diagnostics]


def _warnings(loaded: Any, path: str) -> list[Problem]:
    return [Problem(w, w.render(path, None)) for w in getattr(loaded, "warnings", ())
            if isinstance(w, Diagnostic)]


def read_document(path: str, text: str, language_id: str | None = None) -> Analysis:
    """Stage one: the buffer read up to the automaton its author wrote (the reader of a ``.ta``
    or ``.rta``, the parse pass of an ``.alg`` or ``.pml``), with its errors or warnings."""
    text = normalize(text)
    analysis = Analysis(path, text, kind_of(path, language_id))
    if analysis.kind is None:
        return analysis
    source = Source(path, text)
    for target in ("rta", "ta"):
        try:
            plan(analysis.kind, target)
        except NoChain:
            continue
        try:
            analysis.written = Runner().chain(source, analysis.kind, target)
        except TactlError as e:
            analysis.problems = _problems(e, path)
        except RecursionError:  # a reader's guard against deep nesting failed: say so, in one line
            analysis.problems = [_unplaced("the input is nested too deeply to read", path)]
        else:
            analysis.problems = _warnings(analysis.written, path)
        break
    return analysis


def translate_document(analysis: Analysis) -> Analysis:
    """Stage two: a receive automaton translated (certificates included) and lowered, as
    ``tactl check`` does before deciding anything; a threshold automaton is only lowered. The
    problems of stage one stay; the translation's are added (a refused fault model at its
    ``faults`` line, a failed or undecided certificate without a position)."""
    written = analysis.written
    if written is None:
        return analysis
    kind = "rta" if isinstance(written, RtaReadResult) else "ta"
    try:
        checkable = Runner().chain(written, kind, "checkable-ta")
    except TactlError as e:
        return replace(analysis, problems=analysis.problems + _problems(e, analysis.path))
    except CertificateError as e:
        return replace(analysis, problems=analysis.problems + [_unplaced(e.message, analysis.path)])
    seen = {p.diagnostic for p in analysis.problems}
    added = [p for p in _warnings(checkable, analysis.path) if p.diagnostic not in seen]
    return replace(analysis, checkable=checkable, problems=analysis.problems + added)


def _unplaced(message: str, path: str) -> Problem:
    d = Diagnostic(Severity.ERROR, message)
    return Problem(d, d.render(path, None))


def internal_error(error: Exception, path: str) -> Problem:
    """A failure of tactl itself while reading the buffer, worded as ``tactl`` words it."""
    return _unplaced(f"tactl: internal error: {type(error).__name__}: {error} (a tactl bug: "
                     "please report it with the file)", path)


def analyse(path: str, text: str, language_id: str | None = None) -> Analysis:
    """Both stages (what the tests and a one-shot client want)."""
    return translate_document(read_document(path, text, language_id))
