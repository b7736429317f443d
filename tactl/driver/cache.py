"""The driver's content-addressed cache: one file per pass output, named by the hash of what
determines that output.

Why this shape:

* **Key** = sha256 of (pass name, pass version, the canonical serialised input IR, the options
  the pass declares as changing its output, tactl's version, the digest of tactl's own code:
  ``tactl.util.code_digest``, so that changed code never meets its predecessor's entries). The
  input is the *canonical* IR, not the file's bytes, so a comment edit upstream still hits once
  the IR is unchanged.
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
  a cache, with a warning (:meth:`Cache.open`); so is a write that fails later (a full disk, a
  directory where an entry should go): one warning, and the run goes on without writing.
* An entry is read only if it is a regular file (opened without blocking and without following
  a link, then checked): a FIFO, a directory or a link at an entry path is *unusable*, reported
  and rebuilt, never a hang.
* ``tactl cache clear`` deletes only what the cache writes — files named like entries, lineage
  notes and temporary files, in the directories of the layout — and never follows a symbolic
  link: a ``v1`` that is a link is not a cache (:class:`NotACache`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tactl.util.code_digest import code_digest
from tactl.util.version import __version__

LAYOUT = "v1"  # bump when the envelope format changes: old entries are then simply not found
DEFAULT_DIRECTORY = ".tactl-cache"
LINEAGE = "lineage"
# Write failures that no other entry would escape: after one, the run stops writing (one warning).
_CACHE_WIDE = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG}
TEMPORARY = ".tmp-"  # every temporary file the cache makes starts so
# What the cache writes, by directory: entries in v1/<2 hex>/, lineage notes in v1/lineage/.
_SHARD = re.compile(r"[0-9a-f]{2}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_NOTE = re.compile(r"[0-9a-f]{32}\.json")
_TEMPORARY = re.compile(re.escape(TEMPORARY) + r"[A-Za-z0-9_]+(\.json)?")


def default_directory() -> Path:
    """``$TACTL_CACHE_DIR``, else ``.tactl-cache`` in the current directory."""
    return Path(os.environ.get("TACTL_CACHE_DIR") or DEFAULT_DIRECTORY)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(pass_name: str, pass_version: int, canonical_input: str, options: dict[str, object]) -> str:
    """The key of one pass output; ``options`` are only those the pass declares."""
    material = json.dumps({"pass": pass_name, "version": pass_version, "input": digest(canonical_input),
                           "options": options, "tactl": __version__, "code": code_digest()}, sort_keys=True,
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

    writable: bool = True  # False after a write failed: one warning, then no more writes

    @staticmethod
    def open(root: Path) -> "Cache":
        """The cache in ``root``; :class:`CacheUnavailable` (with the reason) when it is unusable."""
        try:
            layout_directory(root)
            (root / LAYOUT).mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=root / LAYOUT, prefix=TEMPORARY + "probe", delete=True)
            probe.close()
        except NotACache as e:
            raise CacheUnavailable(f"{e}; running without a cache") from None
        except OSError as e:
            raise CacheUnavailable(f"cache directory {root} is not usable ({e.strerror or e}); "
                                   "running without a cache") from None
        return Cache(root)

    def _path(self, key: str) -> Path:
        return self.root / LAYOUT / key[:2] / f"{key}.json"

    def get(self, key: str) -> Lookup:
        try:
            raw = _read_regular(self._path(key))
        except FileNotFoundError:
            return Lookup(None)
        except NotRegular as e:
            self.discard(key, f"unusable ({e.strerror})")
            return Lookup(None, f"unusable ({e.strerror})")
        except OSError as e:
            return Lookup(None, f"unreadable ({e.strerror})")
        except UnicodeDecodeError:
            raw = ""
        problem = _envelope_problem(raw, key)
        if problem is None:
            return Lookup(json.loads(raw)["value"])
        self.discard(key, problem)
        return Lookup(None, problem)

    def discard(self, key: str, why: str) -> None:
        """Delete an entry that must not be used (corrupt, or no longer replaying)."""
        path = self._path(key)
        if path.is_dir() and not path.is_symlink():  # not ours to delete: the rebuilt entry is not stored
            self.warnings.append(f"cache entry {key[:12]} was {why}: {path} is a directory; rebuilt, "
                                 "not stored")
            return
        self.warnings.append(f"cache entry {key[:12]} was {why}: deleted, and rebuilt")
        try:
            path.unlink()
        except OSError:
            pass

    def put(self, key: str, value: str) -> None:
        if not self.writable:
            return
        path = self._path(key)
        envelope = json.dumps({"key": key, "digest": digest(value), "value": value})
        try:
            _write_atomically(path, envelope, durable=True)
        except OSError as e:  # a full disk, a directory at the entry path...: the run goes on
            whole_cache = e.errno in _CACHE_WIDE
            self.writable = not whole_cache
            self.warnings.append(f"could not write cache entry {key[:12]} to {path} ({e.strerror or e}); "
                                 + ("going on without writing to the cache" if whole_cache else "going on"))

    # Lineage: for --explain only. Per (file, pass, subject), the input digest and options of the
    # last run, so that a miss can say *what* changed. Never used to decide anything.
    def _lineage_path(self, label: str) -> Path:
        return self.root / LAYOUT / LINEAGE / f"{digest(label)[:32]}.json"

    def previous(self, label: str) -> dict[str, object] | None:
        try:
            doc = json.loads(_read_regular(self._lineage_path(label)))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def remember(self, label: str, input_digest: str, options: dict[str, object]) -> None:
        if not self.writable:
            return
        try:
            _write_atomically(self._lineage_path(label),
                              json.dumps({"input": input_digest, "options": options}, sort_keys=True,
                                         default=str), durable=False)
        except OSError:
            pass  # only --explain's "what changed" is lost

    def stats(self) -> dict[str, object]:
        """What the cache holds (raises :class:`NotACache` for a ``v1`` that is a link)."""
        files = _cache_files(self.root)
        entries = [(p, st) for p, kind, st in files if kind == "entry"]
        return {"directory": str(self.root), "entries": len(entries),
                "bytes": sum(st.st_size for _, st in entries),
                "leftover_temporary_files": sum(kind == "temporary" for _, kind, _ in files),
                "other_files": _others(self.root)}

    def clear(self) -> tuple[int, int]:
        """Delete what the cache wrote: entries, lineage notes, temporary files, then the layout's
        directories left empty. Returns (entries deleted, files kept because the cache did not
        write them); raises :class:`NotACache` for a ``v1`` that is a link."""
        deleted = 0
        for path, kind, _ in _cache_files(self.root):
            try:
                path.unlink()
            except FileNotFoundError:
                continue  # another run deleted it first
            deleted += kind == "entry"
        layout = self.root / LAYOUT
        for directory in sorted(_layout_directories(layout), reverse=True):
            try:
                directory.rmdir()
            except OSError:
                pass  # not empty: it holds files the cache did not write
        return deleted, _others(self.root)


class CacheUnavailable(Exception):
    pass


class NotACache(Exception):
    """A cache directory whose layout is not the cache's own (``v1`` is a link, or a file)."""


class NotRegular(OSError):
    """An entry path that holds something else than a regular file."""


def layout_directory(root: Path) -> Path | None:
    """``root/v1`` if it is a real directory, None if absent; :class:`NotACache` otherwise (a
    link is never followed: it may lead out of ``root``)."""
    layout = root / LAYOUT
    try:
        mode = os.lstat(layout).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(mode):
        raise NotACache(f"{layout} is a symbolic link, not a tactl cache directory (tactl never "
                        "follows it)")
    if not stat.S_ISDIR(mode):
        raise NotACache(f"{layout} is not a directory, so {root} is not a tactl cache")
    return layout


def _real_directories(directory: Path) -> list[Path]:
    """The subdirectories of ``directory`` that are directories, not links to one."""
    try:
        return sorted(Path(e.path) for e in os.scandir(directory) if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _layout_directories(layout: Path) -> list[Path]:
    """v1 and its shard and lineage directories (the directories the cache creates)."""
    return [layout] + [d for d in _real_directories(layout) if _SHARD.fullmatch(d.name) or d.name == LINEAGE]


def _cache_files(root: Path) -> list[tuple[Path, str, os.stat_result]]:
    """(path, "entry" | "note" | "temporary", stat) of every regular file the cache wrote."""
    layout = layout_directory(root)
    if layout is None:
        return []
    out = []
    for directory in _layout_directories(layout):
        name_ok = _NOTE.fullmatch if directory.name == LINEAGE else _ENTRY.fullmatch
        try:
            found = list(os.scandir(directory))
        except OSError:
            continue
        for e in found:
            if not e.is_file(follow_symlinks=False):
                continue
            if _TEMPORARY.fullmatch(e.name):
                kind = "temporary"
            elif directory == layout:
                continue  # the layout directory itself holds only temporary probes
            elif name_ok(e.name) and (directory.name == LINEAGE or e.name.startswith(directory.name)):
                kind = "note" if directory.name == LINEAGE else "entry"
            else:
                continue
            out.append((Path(e.path), kind, e.stat(follow_symlinks=False)))
    return out


def _others(root: Path) -> int:
    """Files under ``root/v1`` that the cache did not write (kept by ``clear``)."""
    layout = layout_directory(root)
    if layout is None:
        return 0
    ours = {p for p, _, _ in _cache_files(root)}
    count = 0
    for directory, subdirectories, names in os.walk(layout):  # os.walk never follows links
        count += sum(1 for n in names if Path(directory) / n not in ours)
        count += sum(1 for d in subdirectories if os.path.islink(os.path.join(directory, d)))
    return count


def _read_regular(path: Path) -> str:
    """The text of ``path`` if it is a regular file; never blocks on a FIFO or follows a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise NotRegular(errno.ELOOP, "a symbolic link, not a regular file") from None
        if e.errno in (errno.EISDIR, errno.ENXIO):
            raise NotRegular(e.errno, "not a regular file") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegular(errno.EINVAL, "a directory" if stat.S_ISDIR(mode) else
                         "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file")
    with os.fdopen(fd, "rb") as f:
        return f.read().decode("utf-8")


def _write_atomically(path: Path, text: str, durable: bool) -> None:
    """``text`` into ``path``, whole or not at all: a temporary file in the same directory, then
    renamed over ``path``. An interrupt (Ctrl-C) or a failure removes the temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMPORARY, suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            if durable:
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:  # KeyboardInterrupt included: never leave a partial entry behind
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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
