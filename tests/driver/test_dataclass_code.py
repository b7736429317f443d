"""The stored code of dataclass methods (tactl/util/dataclass_code.py): a class made from stored
code behaves as one made by compiling, the store round-trips through its file, and a damaged file
or a fresh process without one changes nothing but speed."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import types

import pytest

from tactl.util import dataclass_code

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the hook is 3.11's only")


_POINT = """
import dataclasses

@dataclasses.dataclass(frozen=True)
class Point:
    \"\"\"A frozen class: init, repr, eq, hash, setattr and delattr are generated.\"\"\"
    x: int
    y: int = 2
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)
"""


def _make(module: str = "tactl.made_here"):
    """The class Point, made as if defined in ``module`` (only tactl's modules' code is stored)."""
    made = types.ModuleType(module)
    sys.modules[module] = made
    try:
        exec(_POINT, made.__dict__)
    finally:
        del sys.modules[module]
    return made.Point


def test_other_programs_classes_are_not_stored(monkeypatch):
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    assert _make("other")(1).y == 2
    assert dataclass_code._compiled == {}


def test_the_hook_is_installed_when_tactl_is_imported():
    assert dataclasses._create_fn is dataclass_code._create_fn


def test_a_class_made_from_stored_code_behaves_as_a_compiled_one(monkeypatch):
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    compiled = _make()  # compiles, and stores the code
    assert dataclass_code._compiled
    stored = _make()  # every method from the stored code
    for cls in (compiled, stored):
        p = cls(1)
        assert (repr(p), p, hash(p)) == ("Point(x=1, y=2, tags=())", cls(1, 2, ()),
                                          hash(cls(1)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 3
        assert cls.__init__.__qualname__.endswith("Point.__init__")
        assert cls.__init__.__defaults__ == (2, dataclasses._HAS_DEFAULT_FACTORY)


def test_the_stored_code_is_what_compiling_the_text_gives(monkeypatch):
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    _make()
    for text, code in dataclass_code._compiled.items():
        assert code == compile(text, "<string>", "exec")


def test_the_store_round_trips_through_its_file(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    monkeypatch.setattr(dataclass_code, "_new", False)
    _make()
    made = dict(dataclass_code._compiled)
    dataclass_code.save()
    assert dataclass_code.cache_file().is_file()
    assert not list(dataclass_code.cache_file().parent.glob("*.tmp"))
    dataclass_code._compiled.clear()
    dataclass_code._load()
    assert dataclass_code._compiled == made


def test_a_damaged_file_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    dataclass_code.cache_file().parent.mkdir(parents=True)
    dataclass_code.cache_file().write_bytes(b"\x00not marshal")
    dataclass_code._load()
    assert dataclass_code._compiled == {}
    assert _make()(1).y == 2


def test_a_second_process_compiles_nothing(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    script = ("import tactl.driver.commands, tactl.engines.check; from tactl.util import dataclass_code;"
              "print(dataclass_code._new, len(dataclass_code._compiled) > 100)")
    outputs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              check=True).stdout.split() for _ in range(2)]
    assert outputs == [["True", "True"], ["False", "True"]]
