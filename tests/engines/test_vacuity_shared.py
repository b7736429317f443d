"""Vacuity questions shared between properties (tactl/engines/check.py, ``_with_vacuity``): two
properties with the same antecedents have the same witness formula, which is decided once per
check; the second property reuses the answer — same verdict, same vacuity, no further query."""

from __future__ import annotations

import json

from conftest import CORPUS

STRB = (CORPUS / "strb" / "strb.ta").read_text(encoding="utf-8")
# A second safety property with unforgeability's antecedent, and a second liveness property with
# correctness's justice and initial condition: their witness formulas are the first ones'.
SAME_ANTECEDENTS = STRB.replace("specifications (3) {", """specifications (5) {
    unforgeability_se: V1 == 0 -> [](SE == 0 || SE != 0);
    correctness_se: <>[](V1 == 0 && (echo < RELAY || V0 == 0) && (echo < ACCEPT || SE == 0))
                    -> (V0 == 0 -> <>(SE != 0));""")


def _properties(cli, path, *names):
    args = [a for n in names for a in ("-p", n)]
    r = cli("check", path, "--json", *args)
    assert r.code == 0, r.err
    return {p["name"]: p for p in json.loads(r.out)["properties"]}


def test_a_shared_witness_formula_is_decided_once(cli, tmp_path):
    path = tmp_path / "strb_same.ta"
    path.write_text(SAME_ANTECEDENTS, encoding="utf-8")
    together = _properties(cli, path, "unforgeability", "correctness", "unforgeability_se", "correctness_se")
    # properties are checked in the file's order: the added ones come first
    for second, first in (("unforgeability", "unforgeability_se"), ("correctness", "correctness_se")):
        alone = _properties(cli, path, second)[second]
        shared = together[second]
        assert shared["details"]["vacuity_shared_with"] == first
        assert "vacuity_s" not in shared["details"]
        # the answer is the one a check of the property alone gives, for fewer queries
        assert (shared["verdict"], shared["vacuity"]) == (alone["verdict"], alone["vacuity"])
        assert shared["vacuity"]["status"] == "not vacuous"
        assert shared["queries"] < alone["queries"]


def test_properties_with_different_antecedents_share_nothing(cli):
    props = _properties(cli, CORPUS / "strb" / "strb.ta")
    assert all("vacuity_shared_with" not in p.get("details", {}) for p in props.values())
    assert all(p["vacuity"]["status"] == "not vacuous" for p in props.values())


def test_an_initial_configuration_question_is_asked_of_z3_once(cli, monkeypatch):
    """strb's properties ask whether their initial condition can hold, and their vacuity
    witnesses ask it again: z3 answers each distinct question once."""
    from tactl.engines import check

    asked = []
    real = check._initial_configuration_exists

    def counting(ta, parameters, extra):
        asked.append(extra)
        return real(ta, parameters, extra)

    monkeypatch.setattr(check, "_INITIAL_ANSWERS", {})
    monkeypatch.setattr(check, "_initial_configuration_exists", counting)
    props = _properties(cli, CORPUS / "strb" / "strb.ta")
    assert [p["verdict"] for p in props.values()] == ["holds"] * 3
    assert len(asked) == len(set(asked)) >= 2
