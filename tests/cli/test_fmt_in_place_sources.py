"""``fmt --in-place`` rewrites only files in a language tactl prints (.ta, .eta, .rta, .json):
a source language it only reads — pseudocode, Parametric Promela, TLA+ — would be replaced by
the automaton it describes, so the command refuses (exit 2) and leaves the file byte for byte."""

from __future__ import annotations

import shutil

import pytest

from conftest import CORPUS, REPO

SOURCES = [
    (CORPUS / "strb" / "strb.alg", "pseudocode", "-o X.rta"),
    (REPO / "tests" / "data" / "promela" / "echo.pml", "Promela model", "-o X.rta"),
    (REPO / "tests" / "data" / "tla" / "rb.tla", "module", "-o X.ta"),
]


@pytest.mark.parametrize("source, language, where", SOURCES, ids=lambda v: getattr(v, "suffix", None) or None)
def test_in_place_never_replaces_a_source_language(cli, tmp_path, source, language, where):
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    before = path.read_bytes()
    for extra in ((), ("--drop-comments",)):
        r = cli("fmt", "--in-place", *extra, path)
        assert r.code == 2, r.out
        assert f"would replace the {language}" in r.err and where in r.err
        assert path.read_bytes() == before
