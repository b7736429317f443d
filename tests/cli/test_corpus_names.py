"""Every command that reads an input takes a corpus algorithm by name, from any directory: the
driver's one resolution of inputs (tactl/driver/inputs.py). A name that is neither a file nor a
corpus algorithm is a usage error with the closest names."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS
from tactl.driver.inputs import UnknownInput, corpus_algorithms, resolve_input, resolve_inputs


@pytest.fixture
def elsewhere(tmp_path, monkeypatch) -> Path:
    """A working directory outside the checkout, as a user of the installed tool has."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_name_is_the_algorithm_of_its_folder(elsewhere):
    assert resolve_input("bracha") == CORPUS / "bracha" / "bracha.alg"
    # a folder of several algorithms: the one named like the folder; the others by their names
    assert resolve_input("benor") == CORPUS / "benor" / "benor.alg"
    assert resolve_input("benor_crash") == CORPUS / "benor" / "benor_crash.alg"
    # the paths the documentation uses work from any directory
    assert resolve_input("corpus/strb/strb.ta") == CORPUS / "strb" / "strb.ta"


def test_a_file_in_the_working_directory_wins_over_the_corpus(elsewhere):
    (elsewhere / "bracha").write_text("mine\n", encoding="utf-8")
    assert resolve_input("bracha") == Path("bracha")


def test_a_missing_file_with_an_automaton_extension_is_left_to_its_reader(elsewhere):
    assert resolve_input("nothere.ta") == Path("nothere.ta")
    assert resolve_input("elsewhere/strb.ta") == Path("elsewhere/strb.ta")


def test_a_missing_file_named_like_a_corpus_file_points_at_it(elsewhere):
    with pytest.raises(UnknownInput, match="the corpus has one of this name: corpus/strb/strb.ta$"):
        resolve_input("strb.ta")
    assert resolve_input("corpus/strb/strb.ta") == CORPUS / "strb" / "strb.ta"


def test_an_unknown_name_is_refused_with_the_closest_ones(elsewhere):
    with pytest.raises(UnknownInput, match="did you mean 'bracha'"):
        resolve_input("brcha")
    with pytest.raises(UnknownInput, match="did you mean 'bracha'"):
        resolve_inputs(["brcha"])


def test_corpus_means_every_algorithm(elsewhere):
    every = corpus_algorithms("corpus")
    assert len(every) >= 25 and all(p.suffix in (".alg", ".rta", ".ta") for p in every)
    assert resolve_inputs(["corpus"]) == every


@pytest.mark.parametrize("command", [("check", "-p", "unforgeability"), ("show",), ("dot", "-o", "-"), ("parse",),
                                     ("translate",), ("fmt",),
                                     ("run", "--param", "n=4", "--param", "t=1", "--param", "f=1"),
                                     ("emit", "--to", "smtlib", "-p", "unforgeability")])
def test_every_reading_command_takes_a_corpus_name(cli, elsewhere, command):
    name, *options = command
    target = ("-o", str(elsewhere / "out")) if name == "emit" else ()
    r = cli(name, "strb", *options, *target)
    assert r.code == 0, r.err
    assert "unrecognised file type" not in r.err


def test_check_names_the_corpus_file_it_read(cli, elsewhere):
    r = cli("check", "bracha", "-p", "unforgeability", "-q")
    assert r.code == 0
    assert r.out.startswith(f"{CORPUS / 'bracha' / 'bracha.alg'}: Bracha")


def test_an_unknown_name_is_a_usage_error(cli, elsewhere):
    r = cli("check", "brcha")
    assert r.code == 2
    assert r.err.startswith("brcha: no such file, and no algorithm of the corpus")
    assert "did you mean 'bracha'?" in r.err
    r = cli("verify", "brcha", "--no-cache")
    assert r.code == 2 and "did you mean 'bracha'?" in r.err
