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


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty store in a cache folder of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for name in ("_stored", "_used"):
        monkeypatch.setattr(dataclass_code, name, {})
    monkeypatch.setattr(dataclass_code, "_new", set())
    monkeypatch.setattr(dataclass_code, "_folder", None)
    return dataclass_code


def test_other_programs_classes_are_not_stored(fresh):
    assert _make("other")(1).y == 2
    assert fresh._used == {} and fresh._new == set()


def test_the_hook_is_installed_when_tactl_is_imported():
    assert dataclasses._create_fn is dataclass_code._create_fn


def test_a_class_made_from_stored_code_behaves_as_a_compiled_one(fresh):
    compiled = _make()  # compiles
    fresh.save()
    fresh._stored.clear()
    stored = _make()  # every method from the stored code
    assert fresh._new == set() and len(fresh._used["tactl.made_here"]) == 6
    for cls in (compiled, stored):
        p = cls(1)
        assert (repr(p), p, hash(p)) == ("Point(x=1, y=2, tags=())", cls(1, 2, ()),
                                          hash(cls(1)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 3
        assert cls.__init__.__qualname__ == "Point.__init__"
        assert cls.__init__.__defaults__ == (2, dataclasses._HAS_DEFAULT_FACTORY)


def test_the_stored_code_is_what_compiling_the_text_gives(fresh):
    _make()
    for text, code in fresh._used["tactl.made_here"].items():
        assert code == compile(text, "<string>", "exec")


def test_the_store_round_trips_through_its_module_file(fresh):
    _make()
    made = dict(fresh._used["tactl.made_here"])
    fresh.save()
    assert [p.name for p in fresh.cache_folder().iterdir()] == ["tactl.made_here.marshal"]
    assert fresh._load("tactl.made_here") == made


def test_a_damaged_file_is_ignored(fresh):
    fresh.cache_folder().mkdir(parents=True)
    (fresh.cache_folder() / "tactl.made_here.marshal").write_bytes(b"\x00not marshal")
    assert _make()(1).y == 2
    assert fresh._new == {"tactl.made_here"}  # compiled, and stored afresh at exit


def test_a_second_process_compiles_nothing(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    script = ("import tactl.driver.commands, tactl.engines.check; from tactl.util import dataclass_code;"
              "print(sorted(dataclass_code._new) == sorted(dataclass_code._used), len(dataclass_code._used) > 10)")
    outputs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              check=True).stdout.split() for _ in range(2)]
    assert outputs == [["True", "True"], ["False", "True"]]
