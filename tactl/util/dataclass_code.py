"""The methods ``dataclasses`` generates for tactl's ~100 dataclasses are compiled once per
Python, not at every start.

Why: on Python 3.11, ``@dataclass`` writes each generated method (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, a frozen class's ``__setattr__``/``__delattr__``) as
source text and compiles it with ``exec`` at import, five or six compilations per class. For the
IR and driver classes a ``tactl check`` imports that is ~0.3 ms a class, a third of importing
tactl's own modules (docs/bench.md, "Start-up"). The compiled code of a text does not depend on
anything but the text and the interpreter, so it is kept on disk like a module's bytecode: the
first process compiles and stores it, later ones ``exec`` the stored code object with the same
globals and locals ``dataclasses`` passes (the function, its name, defaults, annotations and
``__qualname__`` come out identical).

The hook replaces ``dataclasses._create_fn``, the one place that compiles, by a copy of 3.11's
with the lookup added; on another interpreter (3.12 words the text differently, 3.13 builds all
methods of a class in one ``exec``), or with a cache that cannot be read or written, everything
stays as it was. ``TACTL_DATACLASS_CODE=off`` turns it off.
tests/driver/test_dataclass_code.py compares the methods made both ways.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
import sys
from pathlib import Path

_MAX_ENTRIES = 4000  # beyond this (many versions of the sources seen), start afresh
_compiled: dict[str, object] = {}
_new = False
_installed = False


def cache_file() -> Path:
    """``$XDG_CACHE_HOME/tactl`` (``~/.cache/tactl``), one file per interpreter (the marshal
    format and the compiler's output are the interpreter's own)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-{marshal.version}"
    return Path(base) / "tactl" / f"dataclass-code-{tag}.marshal"


def install() -> None:
    """From now on a dataclass's methods are made from stored code where there is some; new code
    is stored at exit. Does nothing a second time, on an interpreter other than 3.11, or with
    ``TACTL_DATACLASS_CODE=off``."""
    global _installed
    if (_installed or sys.version_info[:2] != (3, 11) or not hasattr(dataclasses, "_create_fn")
            or os.environ.get("TACTL_DATACLASS_CODE") == "off"):
        return
    _installed = True
    _load()
    dataclasses._create_fn = _create_fn
    atexit.register(save)


def _create_fn(name, args, body, *, globals=None, locals=None, return_type=dataclasses.MISSING):
    """``dataclasses._create_fn`` of Python 3.11 with the compilation looked up first."""
    global _new
    if locals is None:
        locals = {}
    return_annotation = ""
    if return_type is not dataclasses.MISSING:
        locals["_return_type"] = return_type
        return_annotation = "->_return_type"
    args = ",".join(args)
    body = "\n".join(f"  {b}" for b in body)
    txt = f" def {name}({args}){return_annotation}:\n{body}"
    local_vars = ", ".join(locals.keys())
    txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
    code = _compiled.get(txt)
    if code is None:
        code = compile(txt, "<string>", "exec")
        if str((globals or {}).get("__name__", "")).startswith("tactl."):  # not other programs'
            _compiled[txt] = code
            _new = True
    ns: dict = {}
    exec(code, globals, ns)
    return ns["__create_fn__"](**locals)


def _load() -> None:
    try:
        stored = marshal.loads(cache_file().read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return
    if isinstance(stored, dict) and len(stored) <= _MAX_ENTRIES:
        _compiled.update(stored)


def save() -> None:
    """Store the code compiled since the start (if any), atomically: a concurrent process reads
    the old file or the new one, never a part."""
    global _new
    if not _new:
        return
    _new = False
    path = cache_file()
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(marshal.dumps(_compiled))
        os.replace(temporary, path)
    except (OSError, ValueError):
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass
