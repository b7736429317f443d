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

_stored: dict[str, dict[str, object]] = {}  # module -> text -> code, as read from its file
_used: dict[str, dict[str, object]] = {}  # module -> text -> code, made in this process
_new: set[str] = set()  # modules with code compiled in this process
_installed = False
_folder: str | None = None  # cache_folder(), once a module's code is looked up


def cache_folder() -> Path:
    """``$XDG_CACHE_HOME/tactl/dataclass-code`` (``~/.cache/…``), a folder per interpreter (the
    marshal format and the compiler's output are the interpreter's own), a file per module: a
    process reads only the modules it imports."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-{marshal.version}"
    return Path(base) / "tactl" / "dataclass-code" / tag


def install() -> None:
    """From now on a dataclass's methods are made from stored code where there is some; new code
    is stored at exit. Does nothing a second time, on an interpreter other than 3.11, or with
    ``TACTL_DATACLASS_CODE=off``."""
    global _installed
    if (_installed or sys.version_info[:2] != (3, 11) or not hasattr(dataclasses, "_create_fn")
            or os.environ.get("TACTL_DATACLASS_CODE") == "off"):
        return
    _installed = True
    dataclasses._create_fn = _create_fn
    atexit.register(save)


def _create_fn(name, args, body, *, globals=None, locals=None, return_type=dataclasses.MISSING):
    """``dataclasses._create_fn`` of Python 3.11 with the compilation looked up first."""
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
    ns: dict = {}
    exec(_code(txt, str((globals or {}).get("__name__", ""))), globals, ns)
    return ns["__create_fn__"](**locals)


def _code(txt: str, module: str):
    """The compiled ``txt`` of a class of ``module``: stored, else compiled (and stored at exit
    when the module is tactl's: other programs' classes are left alone)."""
    if not module.startswith("tactl."):
        return compile(txt, "<string>", "exec")
    stored = _stored.get(module)
    if stored is None:
        stored = _stored[module] = _load(module)
    code = stored.get(txt)
    if code is None:
        code = compile(txt, "<string>", "exec")
        _new.add(module)
    _used.setdefault(module, {})[txt] = code
    return code


def _load(module: str) -> dict[str, object]:
    global _folder
    if _folder is None:
        _folder = str(cache_folder())
    try:
        with open(os.path.join(_folder, f"{module}.marshal"), "rb") as file:
            stored = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return stored if isinstance(stored, dict) else {}


def save() -> None:
    """Store the code of every module that compiled some in this process: all its classes' code
    (a module's classes are all made when it is imported, so what it used is what it needs, and a
    changed module's old code goes). Atomically: a concurrent process reads the old file or the
    new one, never a part."""
    folder = cache_folder()
    for module in sorted(_new):
        path = folder / f"{module}.marshal"
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(marshal.dumps(_used[module]))
            os.replace(temporary, path)
        except (OSError, ValueError):
            try:
                temporary.unlink(missing_ok=True)
            except OSError:
                pass
    _new.clear()
