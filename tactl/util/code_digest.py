"""One digest of tactl's own code, for the cache key.

A cached pass output is valid only for the code that computed it. Pass versions say so by hand
(``Pass.version``) and the release version (``__version__``) at each release, but between
releases — an editable install, a checkout moving from commit to commit — a changed front end
would find its predecessor's output under the same key and use it: the cache would answer with
the old model (as it did for a Promela file whose translation changed). The
digest of every source file of the package (Python, grammars, templates) makes any code change a
different key. It costs a cold cache after each change of tactl itself, never a stale answer.
"""

from __future__ import annotations

import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path

# the package and the folders pyproject maps into it (an editable install keeps them apart)
PACKAGES = ("tactl", "tactl.ir", "tactl.passes", "tactl.templates")
SUFFIXES = (".py", ".lark", ".j2")


def _folders() -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for location in (spec.submodule_search_locations or []) if spec else []:
            found.append((name, Path(location)))
    return found


@lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 over (package-relative name, content) of every code file of the package, in a fixed
    order: the same code gives the same digest wherever it is checked out."""
    files: dict[str, Path] = {}
    for name, folder in _folders():
        for path in folder.rglob("*"):
            if path.suffix in SUFFIXES and "__pycache__" not in path.parts and path.is_file():
                files[f"{name}/{path.relative_to(folder).as_posix()}"] = path
    h = hashlib.sha256()
    for key in sorted(files):
        h.update(key.encode() + b"\0" + files[key].read_bytes() + b"\0")
    return h.hexdigest()
