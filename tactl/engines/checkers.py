"""Where the external model checkers are: SPIN (Debian's ``spin`` package, plus a C compiler for
its ``pan`` verifiers) and NuSMV (built from source by ``tools/build_nusmv.sh``, which
``make test`` runs, into a cache outside the checkout).

A missing checker is an input problem of the command that needs it — a clear message and exit
status 2 (:class:`CheckerMissing`) — never a crash, and never a verdict.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity


def cache_dir() -> Path:
    """Where built checkers live: ``$TACTL_TOOLS``, else ``$XDG_CACHE_HOME/tactl`` (``~/.cache``)."""
    if os.environ.get("TACTL_TOOLS"):
        return Path(os.environ["TACTL_TOOLS"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tactl"


def spin() -> Path | None:
    found = shutil.which(os.environ["TACTL_SPIN"]) if os.environ.get("TACTL_SPIN") else shutil.which("spin")
    return Path(found) if found else None


def c_compiler() -> Path | None:
    found = os.environ.get("CC") and shutil.which(os.environ["CC"]) or shutil.which("gcc") \
        or shutil.which("cc")
    return Path(found) if found else None


def nusmv() -> Path | None:
    if os.environ.get("TACTL_NUSMV"):
        given = Path(os.environ["TACTL_NUSMV"])
        return given if given.is_file() and os.access(given, os.X_OK) else None
    found = shutil.which("NuSMV")
    if found:
        return Path(found)
    built = cache_dir() / "nusmv" / "bin" / "NuSMV"
    return built if built.exists() else None


INSTALL_HINT = {
    "spin": "install it with 'apt-get install spin gcc' (Debian), or run 'make tools' as root",
    "nusmv": "build it with 'make tools' (tools/build_nusmv.sh builds NuSMV 2.5.4 from the pynusmv "
             "source distribution into ~/.cache/tactl/nusmv), or set TACTL_NUSMV to a NuSMV binary",
    "cc": "install a C compiler ('apt-get install gcc'): SPIN compiles its verifier 'pan' from C",
}


class CheckerMissing(InputError):
    """An external checker the command needs is not installed (exit status 2)."""

    def __init__(self, tool: str, path: str = "tactl") -> None:
        super().__init__(Diagnostic(Severity.ERROR, f"the model checker '{tool}' is not installed: "
                                    f"{INSTALL_HINT[tool]}"), path)


def require(tool: str) -> Path:
    """The checker's executable, or :class:`CheckerMissing`."""
    found = {"spin": spin, "nusmv": nusmv, "cc": c_compiler}[tool]()
    if found is None:
        raise CheckerMissing(tool)
    return found
