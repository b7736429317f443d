"""File output that never leaves a half-written file, never clobbers the user's input, and never
replaces what is not a regular file.

One function decides how an output reaches its target (:func:`write_output`):

* ``-`` is standard output;
* a symbolic link is followed, and its *target* is rewritten (the link stays a link);
* a character device, FIFO or socket (``/dev/null``, ``/dev/stdout``, a pipe) and anything under
  ``/dev`` or ``/proc`` is written through, in place — renaming a temporary file over it, as root,
  would replace the device node by a regular file;
* a regular file, or a new one, is written atomically: a temporary file beside it, renamed over
  it, so readers see the old content or the new, never a mix.

Every failure (a missing or read-only directory, a name too long, a full disk) is an
:class:`InputError` ``cannot write: …`` — exit status 2, not an internal error.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity

STDOUT = "-"
_SPECIAL_TREES = ("/dev/", "/proc/")


def _cannot(path: str | Path, why: str) -> InputError:
    return InputError(Diagnostic(Severity.ERROR, f"cannot write: {why}"), str(path))


def is_stdout(path: str | Path) -> bool:
    return str(path) == STDOUT


def is_special(path: str | Path) -> bool:
    """True for ``-`` and for outputs that must be written in place (devices, FIFOs, /proc)."""
    if is_stdout(path):
        return True
    absolute = os.path.abspath(path)
    if absolute.startswith(_SPECIAL_TREES):
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_output(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` as the module docstring says."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if is_stdout(path):
        sys.stdout.flush()
        sys.stdout.buffer.write(payload)
        sys.stdout.buffer.flush()
        return
    try:
        if is_special(path):
            _write_through(path, payload)
            return
        real = Path(os.path.realpath(path))  # a symlink's target is what gets rewritten
        if real.is_dir():
            raise _cannot(path, "it is a directory")
        _write_atomic(path, real, payload)
    except OSError as e:  # e.g. a name too long for the file system, met while resolving it
        raise _cannot(path, e.strerror or str(e)) from None


def _write_through(path: str | Path, payload: bytes) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = 0
    flags = os.O_WRONLY | (os.O_NONBLOCK if stat.S_ISFIFO(mode) else 0)
    try:
        fd = os.open(path, flags | (os.O_TRUNC if stat.S_ISREG(mode) else 0))
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise _cannot(path, "no process is reading from this FIFO") from None
        raise _cannot(path, e.strerror or str(e)) from None
    try:
        if flags & os.O_NONBLOCK:
            os.set_blocking(fd, True)
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError as e:
        raise _cannot(path, e.strerror or str(e)) from None
    finally:
        os.close(fd)


def _write_atomic(shown: str | Path, target: Path, payload: bytes) -> None:
    directory = target.parent
    if not directory.is_dir():
        raise _cannot(shown, f"directory '{directory}' does not exist")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tactl.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise _cannot(shown, e.strerror or str(e)) from None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def check_output_directory(path: str | Path) -> None:
    """Refuse, before any work, an output directory that cannot be one (a file, a device, a
    name the file system refuses)."""
    if is_special(path):
        raise _cannot(path, "it is not a directory; -o names a directory")
    try:
        if os.path.lexists(path) and not os.path.isdir(path):
            raise _cannot(path, "it exists and is not a directory")
        os.stat(os.path.dirname(os.path.abspath(path)) or ".")
        if len(os.path.basename(os.path.normpath(path)).encode()) > 255:
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
    except OSError as e:
        raise _cannot(path, e.strerror or str(e)) from None


def output_file_problem(path: str | Path, inputs: tuple[str | Path, ...] = ()) -> str | None:
    """Why ``path`` cannot take an output file, asked before any work so that a typo costs
    nothing (None: it can): a directory, a directory that does not exist, one of ``inputs``."""
    if is_special(path):
        return None
    p = Path(path)
    if p.is_dir():
        return "cannot write: it is a directory"
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        return f"cannot write: the directory '{parent}' does not exist"
    if any(same_file(p, i) for i in inputs):
        return "refusing to overwrite the input file"
    return None


def make_directory(path: str | Path) -> None:
    """``mkdir -p`` with failures reported as ``cannot write: …``."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise _cannot(path, "it exists and is not a directory") from None
    except OSError as e:
        raise _cannot(path, e.strerror or str(e)) from None


def inside(directory: str | Path, name: str) -> Path:
    """``directory/name``, refusing a name that would leave ``directory``."""
    candidate = Path(directory) / name
    if os.sep in name or (os.altsep and os.altsep in name) or name in ("", ".", "..") or \
            os.path.dirname(os.path.normpath(candidate)) != os.path.normpath(directory):
        raise _cannot(candidate, f"the file name {name!r} would leave the output directory")
    return candidate


def same_file(a: str | Path, b: str | Path) -> bool:
    """True if both paths name one existing file (through links, ``..`` or case-folding mounts)."""
    if is_stdout(a) or is_stdout(b):
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()
