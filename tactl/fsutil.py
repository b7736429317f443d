"""File output that never leaves a half-written file and never clobbers the user's input."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``.

    Readers see the old content or the new, never a mix; an existing file keeps its permissions.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(Diagnostic(Severity.ERROR, f"cannot write: directory '{directory}' does not exist"),
                         str(target))
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
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
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(Diagnostic(Severity.ERROR, f"cannot write: {e.strerror}"), str(target)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def same_file(a: str | Path, b: str | Path) -> bool:
    """True if both paths name one existing file (through links, ``..`` or case-folding mounts)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()
