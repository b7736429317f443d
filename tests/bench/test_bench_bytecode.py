"""Every table times tactl processes as an installed tactl runs: with bytecode. On machines with
PYTHONDONTWRITEBYTECODE set, an editable checkout installed by ``pip install -e`` alone has none,
and each timed ``tactl`` process then compiled every module again (about 0.07 s of CPU)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tactl.bench import measure, tables


def test_the_sources_are_compiled_before_any_table_runs(monkeypatch):
    events: list[str] = []
    monkeypatch.setattr(tables, "compile_sources", lambda: events.append("compiled"))
    fake = tables.Table("fake", lambda args, workdir: events.append("table") or True)
    monkeypatch.setattr(tables, "TABLES", [fake])
    assert tables.main(["--only", "fake"]) == 0
    assert events == ["compiled", "table"]


def test_compile_sources_writes_the_bytecode_python_would_read():
    import tactl.bench.measure as module

    source = Path(module.__file__)
    cached = Path(importlib.util.cache_from_source(str(source)))
    measure.compile_sources()
    assert cached.is_file() and cached.stat().st_mtime >= source.stat().st_mtime
