"""The driver's content-addressed cache: one file per pass output, named by the hash of what
determines that output.

Why this shape:

* **Key** = sha256 of (pass name, pass version, the canonical serialised input IR, the options
  the pass declares as changing its output, tactl's version). The input is the *canonical* IR,
  not the file's bytes, so a comment edit upstream still hits once the IR is unchanged.
* **Value** = the serialised output IR (text) inside a small JSON envelope that also holds the
  key and the sha256 of the value. A read that finds a different key, a digest that does not
  match, or an envelope that does not parse is *corrupt*: reported, deleted, and rebuilt by the
  caller — never used.
* **Writes are atomic**: the envelope goes to a temporary file in the entry's own directory and
  is renamed over the final name (``os.replace``, atomic on POSIX). Two runs computing the same
  entry write the same bytes, so whichever rename wins, readers only ever see a whole entry. An
  interrupted run (Ctrl-C) removes its temporary file; one killed outright leaves a ``.tmp-``
  file that no reader looks at and ``tactl cache clear`` removes.
* A cache directory that cannot be created or written is not an error: the run goes on without
  a cache, with a warning (:meth:`Cache.open`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tactl import __version__

LAYOUT = "v1"  # bump when the envelope format changes: old entries are then simply not found
DEFAULT_DIRECTORY = ".tactl-cache"


def default_directory() -> Path:
    """``$TACTL_CACHE_DIR``, else ``.tactl-cache`` in the current directory."""
    return Path(os.environ.get("TACTL_CACHE_DIR") or DEFAULT_DIRECTORY)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(pass_name: str, pass_version: int, canonical_input: str, options: dict[str, object]) -> str:
    """The key of one pass output; ``options`` are only those the pass declares."""
    material = json.dumps({"pass": pass_name, "version": pass_version, "input": digest(canonical_input),
                           "options": options, "tactl": __version__}, sort_keys=True,
                          separators=(",", ":"), default=str)
    return digest(material)


@dataclass
class Lookup:
    """What a read found: ``value`` on a hit; ``corrupt`` says why an entry was thrown away."""

    value: str | None
    corrupt: str | None = None


@dataclass
class Cache:
    root: Path
    warnings: list[str] = field(default_factory=list)

    @staticmethod
    def open(root: Path) -> "Cache":
        """The cache in ``root``; :class:`CacheUnavailable` (with the reason) when it is unusable."""
        try:
            (root / LAYOUT).mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=root / LAYOUT, prefix=".tmp-probe-", delete=True)
            probe.close()
        except OSError as e:
            raise CacheUnavailable(f"cache directory {root} is not usable ({e.strerror or e}); "
                                   "running without a cache") from None
        return Cache(root)

    def _path(self, key: str) -> Path:
        return self.root / LAYOUT / key[:2] / f"{key}.json"

    def get(self, key: str) -> Lookup:
        path = self._path(key)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Lookup(None)
        except OSError as e:
            return Lookup(None, f"unreadable ({e.strerror})")
        problem = _envelope_problem(raw, key)
        if problem is None:
            return Lookup(json.loads(raw)["value"])
        self.discard(key, problem)
        return Lookup(None, problem)

    def discard(self, key: str, why: str) -> None:
        """Delete an entry that must not be used (corrupt, or no longer replaying)."""
        self.warnings.append(f"cache entry {key[:12]} was {why}: deleted, and rebuilt")
        try:
            self._path(key).unlink()
        except OSError:
            pass

    def put(self, key: str, value: str) -> None:
        path = self._path(key)
        envelope = json.dumps({"key": key, "digest": digest(value), "value": value})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError as e:
            self.warnings.append(f"could not write a cache entry ({e.strerror}); going on")
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(envelope)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:  # KeyboardInterrupt included: never leave a partial entry behind
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    # Lineage: for --explain only. Per (file, pass, subject), the input digest and options of the
    # last run, so that a miss can say *what* changed. Never used to decide anything.
    def _lineage_path(self, label: str) -> Path:
        return self.root / LAYOUT / "lineage" / f"{digest(label)[:32]}.json"

    def previous(self, label: str) -> dict[str, object] | None:
        try:
            doc = json.loads(self._lineage_path(label).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def remember(self, label: str, input_digest: str, options: dict[str, object]) -> None:
        path = self._lineage_path(label)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"input": input_digest, "options": options}, out, sort_keys=True, default=str)
            os.replace(tmp, path)
        except OSError:
            pass

    def stats(self) -> dict[str, object]:
        entries = [p for p in (self.root / LAYOUT).glob("*/*.json") if p.parent.name != "lineage"]
        finished = [p for p in entries if not p.name.startswith(".tmp-")]
        return {"directory": str(self.root), "entries": len(finished),
                "bytes": sum(p.stat().st_size for p in finished),
                "leftover_temporary_files": len(entries) - len(finished)}

    def clear(self) -> int:
        """Delete every entry (and leftover temporary files); the number of entries deleted."""
        count = self.stats()["entries"]
        shutil.rmtree(self.root / LAYOUT, ignore_errors=True)
        return int(count)  # type: ignore[call-overload]


class CacheUnavailable(Exception):
    pass


def _envelope_problem(raw: str, key: str) -> str | None:
    try:
        doc = json.loads(raw)
    except ValueError:
        return "corrupt (not a complete JSON envelope)"
    if not isinstance(doc, dict) or not isinstance(doc.get("value"), str):
        return "corrupt (no value)"
    if doc.get("key") != key:
        return "corrupt (stored under another key)"
    if doc.get("digest") != digest(doc["value"]):
        return "corrupt (its digest does not match its value)"
    return None
