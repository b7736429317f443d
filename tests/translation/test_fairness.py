"""The justice derived from the fault model (passes/rta_to_ta/fairness.py): its formula per fault model,
the specifications put under it, the user's own placement of ``fair``, name clashes, the z3
certificates (passes/rta_to_ta/certify.py, ``certify_justice``) and the translate output.

Justice formulas are compared semantically — z3 equivalence under the resilience condition with
every counter and parameter natural — never as strings.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from conftest import CORPUS
from tactl.ir.expr import Always, Eventually, Expr, Implies, Name, substitute, summation, to_text
from tactl.ir.eltl.ltl import PropertyKind, classify
from tactl.ir.rta.model import Timing, justice_name, mentions
from tactl.ir.rta.json_form import rta_from_json, rta_to_json
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta, read_rta_file
from tactl.ir.errors import InputError
from tactl.ir.ta.json_form import ta_from_json, ta_to_json
from tactl.ir.ta.printer import print_ta
from tactl.ir.ta.reader import parse_ta, read_ta
from tactl.passes.rta_to_ta.certify import certify_justice
from tactl.passes.rta_to_ta.eliminate import translate
from tactl.passes.rta_to_ta.env import environment
from tactl.passes.rta_to_ta.fairness import Fairness, RuleJustice
from tactl.driver.translation import Certified, certificate_problem, refused_properties, run_translate, without_refused

MODELS = sorted(CORPUS.glob("*/*.rta"))


def formula(text: str) -> Expr:
    """A formula in .ta syntax (names need not be declared)."""
    return parse_ta(f"skel X {{ specifications (1) {{ p: {text}; }} }}").properties[0].formula


def equivalent(a: Expr, b: Expr, assumptions, names) -> bool:
    """``a`` and ``b`` agree whenever the assumptions hold and all ``names`` are natural."""
    import z3

    from tactl.ir.linear import int_symbols, to_z3

    sym = int_symbols()
    solver = z3.Solver()
    solver.add(*(to_z3(e, sym) for e in assumptions))
    solver.add(*(sym(x) >= 0 for x in names))
    return solver.check(to_z3(a, sym) != to_z3(b, sym)) == z3.unsat


def same_justice(tr, expected: str) -> bool:
    ta = tr.ta
    names = (*ta.parameters, *ta.shared, *(loc.name for loc in ta.locations))
    return equivalent(tr.justice.formula, formula(expected), ta.assumptions, names)


def strb():
    return read_rta_file(CORPUS / "strb" / "strb.rta").rta


# ---------------------------------------------------------------------------------- STRB

def test_strb_justice_is_the_receive_guard_at_full_delivery_not_the_send_guard():
    tr = translate(strb())
    assert tr.justice.name == "fair"
    assert same_justice(tr, "(ns_ECHO < t + 1 || V0 == 0) && (ns_ECHO < n - t || V0 == 0) "
                            "&& (ns_ECHO < n - t || V1 == 0) && (ns_ECHO < n - t || SE == 0) && V1 == 0")
    # the eliminated send guards would give a different (weaker) justice: -f is not guaranteed
    assert not same_justice(tr, "(ns_ECHO < t + 1 - f || V0 == 0) && (ns_ECHO < n - t - f || V0 == 0) "
                                "&& (ns_ECHO < n - t - f || SE == 0) && V1 == 0")
    premises = {r.rule_id: r.premise for r in tr.justice.rules}
    assert equivalent(premises[1], formula("ns_ECHO >= t + 1"), tr.ta.assumptions, ("ns_ECHO", "n", "t", "f"))


def test_strb_liveness_specs_are_wrapped_and_safety_left_alone():
    rta, tr = strb(), translate(strb())
    written = {p.name: p.formula for p in rta.properties}
    generated = {p.name: p.formula for p in tr.ta.properties}
    j = tr.justice.formula
    assert generated["unforgeability"] == written["unforgeability"]
    for name in ("correctness", "relay"):
        assert generated[name] == Implies(Eventually(Always(j)), written[name])
    assert tr.justice.properties == ("correctness", "relay")


def test_a_user_written_self_loop_is_never_fair_and_stutter_loops_are_added():
    tr = translate(strb())
    assert {r.rule_id for r in tr.justice.rules} == {0, 1, 2, 3, 4}
    loops = {r.source for r in tr.ta.rules if r.is_self_loop}
    assert loops == {loc.name for loc in tr.ta.locations} == set(tr.justice.stutter)
    assert all(r.guard == formula("true") and not r.updates for r in tr.ta.rules if r.is_self_loop)


def test_no_stutter_loops_when_no_specification_assumes_the_justice():
    rta = strb()
    safety_only = replace(rta, properties=rta.properties[:1])
    tr = translate(safety_only)
    assert not tr.justice.used and tr.justice.formula == translate(rta).justice.formula
    assert not any(r.is_self_loop for r in tr.ta.rules)


# ------------------------------------------------------------------------ six fault models

TINY = """rta Tiny {{
  parameters {params};
  assumptions {{ {rc} }}
  faults {faults};
  timing async;
  messages M;
  locations V0, V1, AC;
  initial V0, V1;
  rules {{
    0: V1 -> AC send M;
    1: V0 -> AC when (received(M) >= t + 1) send M;
  }}
  specifications {{ relay: [](AC != 0 -> <>(V0 == 0 && V1 == 0)); }}
}}
"""

# (faults, parameters, RC, the guaranteed count of M per domain.md §4b over the TA's variables)
FAULT_MODELS = {
    "byzantine": ("byzantine(f)", "n, t, f", "n > 3 * t; t >= f; f >= 0;", "ns_M"),
    # the fs <= f symmetric-faulty senders send to all (ByMC's bcast-symm: nrcvd < nsnt + Fs)
    "symmetric": ("symmetric(f)", "n, t, f", "n > 2 * t; t >= f; f >= 0;", "ns_M + fs"),
    "crash": ("crash(f)", "n, t, f", "n > t; t >= f; f >= 0;", "ns_M"),  # not + nsf_M
    "clean_crash": ("clean_crash(f)", "n, t, f", "n > t; t >= f; f >= 0;", "ns_M"),
    # g of the clean crashes lose a pending broadcast: they crash before it (passes/rta_to_ta/env.py)
    "clean_crash2": ("clean_crash(f, g)", "n, t, f, g", "n > t; t >= f; f >= g; g >= 0;", "ns_M"),
    "omission": ("omission(f)", "n, t, f", "n > 2 * t; t >= f; f >= 0;", "ns_M - f"),
    "hybrid": ("hybrid(f, g)", "n, t, f, g", "n > 3 * t; t >= f + g; f >= 0; g >= 0;", "ns_M"),
}


def tiny(model: str) -> str:
    faults, params, rc, _ = FAULT_MODELS[model]
    return TINY.format(params=params, rc=rc, faults=faults)


@pytest.mark.parametrize("model", sorted(FAULT_MODELS))
def test_justice_per_fault_model(model):
    rta = read_rta(tiny(model)).rta
    tr = translate(rta)
    count = FAULT_MODELS[model][3]
    assert to_text(environment(rta).guaranteed_count("M")) == count
    assert same_justice(tr, f"V1 == 0 && ({count} < t + 1 || V0 == 0)")
    # full delivery is stated over the TA's real counters; crashed mid-send messages never count
    assert not any(n.name.startswith("nsf_") for n in _names(tr.justice.formula))
    assert all(c.ok for c in certify_justice(rta, tr)), certify_justice(rta, tr)


def _names(e: Expr):
    from tactl.ir.expr import names

    return list(names(e))


def test_omission_guarantees_less_than_byzantine():
    """Byzantine and omission justice differ: omission may lose f of the ns_M messages."""
    byz, omi = translate(read_rta(tiny("byzantine")).rta), translate(read_rta(tiny("omission")).rta)
    ta = omi.ta
    names = (*ta.parameters, *ta.shared, *(loc.name for loc in ta.locations))
    assert not equivalent(byz.justice.formula, omi.justice.formula, ta.assumptions, names)


def test_synchronous_automata_get_no_justice():
    floodmin = read_rta_file(CORPUS / "floodmin" / "floodmin.rta").rta
    tr = translate(floodmin)
    assert floodmin.timing is Timing.SYNC and tr.justice is None
    # the hypothesis ('assuming clean round') stays in the receive automaton: the .ta has the formulas
    assert tr.ta.properties == tuple(replace(p, hypothesis=None) for p in floodmin.properties)
    with pytest.raises(InputError, match="synchronous automaton has none"):
        read_rta(tiny("crash").replace("timing async", "timing sync")
                 .replace("relay: ", "relay: <>[](fair) -> "))


# -------------------------------------------------------------------- which rules are fair

def test_a_parameter_condition_stays_and_a_self_loop_makes_a_spontaneous_exit_optional():
    text = tiny("byzantine").replace("0: V1 -> AC send M;", "0: V1 -> AC when (f == 0) send M;\n"
                                     "    2: V0 -> V0;\n    3: V0 -> AC;")
    tr = translate(read_rta(text).rta)
    fairness = {r.rule_id: r.fairness for r in tr.justice.rules}
    assert 2 not in fairness  # a self-loop leaves nothing
    assert fairness == {0: Fairness.FAIR, 1: Fairness.FAIR, 3: Fairness.OPTIONAL}
    assert same_justice(tr, "(f != 0 || V1 == 0) && (ns_M < t + 1 || V0 == 0)")


def test_nbacr_failure_detector_is_optional_and_the_justice_is_isola18s():
    tr = translate(read_rta_file(CORPUS / "nbacr" / "nbacr.rta").rta)
    assert tr.justice.rule(2).fairness is Fairness.OPTIONAL  # SE -> SEFD, SE has a self-loop
    assert same_justice(tr, "VNO == 0 && VYES == 0 && SEFD == 0 && (ns_NO < 1 || SE == 0) "
                            "&& (ns_YES < n || ns_NO >= 1 || SE == 0)")


# ------------------------------------------------------------------ the user's own ``fair``

PLACED = tiny("byzantine").replace(
    "specifications { relay: [](AC != 0 -> <>(V0 == 0 && V1 == 0)); }",
    "specifications {\n    placed: (V1 == 0 && <>[](fair)) -> <>(AC != 0);\n"
    "    relay: [](AC != 0 -> <>(V0 == 0 && V1 == 0));\n  }")


def test_a_specification_naming_fair_is_kept_as_written():
    rta = read_rta(PLACED).rta
    tr = translate(rta)
    written = {p.name: p.formula for p in rta.properties}
    generated = {p.name: p.formula for p in tr.ta.properties}
    assert generated["placed"] == substitute(written["placed"], {"fair": tr.justice.formula})
    assert not isinstance(generated["placed"].left, Eventually)  # not wrapped a second time
    assert generated["relay"] == Implies(Eventually(Always(tr.justice.formula)), written["relay"])
    assert tr.justice.properties == ("placed", "relay")


def test_fair_in_an_rta_round_trips_through_text_and_json():
    rta = read_rta(PLACED).rta
    assert mentions(rta.properties[0].formula, "fair")
    assert read_rta(print_rta(rta)).rta == rta
    assert rta_from_json(json.loads(json.dumps(rta_to_json(rta)))) == rta


@pytest.mark.parametrize("text, message", [
    (PLACED.replace("(V1 == 0 && <>[](fair))", "(fair + 1 > 0)"), "names the justice"),
    (PLACED.replace("<>[](fair)", "<>[](fair_)"), "unknown condition 'fair_'"),
    (PLACED.replace("when (received(M) >= t + 1)", "when (fair && received(M) >= t + 1)"),
     "only specifications can assume"),
])
def test_misplaced_justice_names_are_refused_with_a_position(text, message):
    with pytest.raises(InputError, match=message) as info:
        read_rta(text, "p.rta")
    assert info.value.diagnostics[0].span is not None


def test_a_declared_fair_renames_the_justice_consistently():
    clash = PLACED.replace("locations V0, V1, AC;", "locations V0, V1, AC, fair;")
    with pytest.raises(InputError, match="called 'fair_' in this automaton"):
        read_rta(clash)  # `fair` is now the location: as a bare condition it is refused
    rta = read_rta(clash.replace("<>[](fair)", "<>[](fair_) && fair == 0")).rta
    assert justice_name(rta) == "fair_"
    tr = translate(rta)
    placed = {p.name: p.formula for p in tr.ta.properties}["placed"]
    assert tr.justice.name == "fair_"
    assert placed == substitute({p.name: p.formula for p in rta.properties}["placed"],
                                {"fair_": tr.justice.formula})
    assert Name("fair") in _names(placed)  # the location counter is still there


# ---------------------------------------------------------------------------- certificates

def test_a_guaranteed_count_the_fault_model_does_not_grant_fails_the_certificate():
    """Unit level: Byzantine ``ns_M + f`` ("the faulty senders' messages arrive too")."""
    rta = read_rta(tiny("byzantine")).rta
    wrong = summation(Name("ns_M"), [("+", Name("f"))])
    env = replace(environment(rta), guaranteed=(("M", wrong),))
    tr = translate(rta, env)
    certs = {c.rule_id: c for c in certify_justice(rta, tr)}
    assert certs[1].admissible is False and certs[1].exact is True
    assert certs[0].ok  # reads no message
    problem = certificate_problem(Certified(tr, [], list(certs.values())))
    assert problem is not None and problem.exit_code == 4 and "justice certificate" in problem.message


def test_the_send_guard_as_justice_premise_fails_exact_and_justified():
    rta = strb()
    tr = translate(rta)
    send_guard = formula("ns_ECHO >= t + 1 - f")
    rules = tuple(RuleJustice(r.rule_id, r.source, r.fairness, send_guard, r.atom) if r.rule_id == 1 else r
                  for r in tr.justice.rules)
    broken = replace(tr, justice=replace(tr.justice, rules=rules))
    certs = {c.rule_id: c for c in certify_justice(rta, broken)}
    assert certs[1].exact is False and certs[1].justified is False
    assert all(certs[i].ok for i in (0, 2, 3, 4))


UNCOVERED = tiny("byzantine").replace("when (received(M) >= t + 1)",
                                      "when (received(M) >= t + 1 && received(M) < t + 2)")


def test_guards_that_faulty_messages_can_falsify_are_not_justified():
    """``received(M) == t + 1`` with ns_M = t + 1: a Byzantine M more and V0 is stuck forever, so
    assuming V0 empties would be unsound; the specifications that assume the justice are refused,
    and only those (the safety properties are still translated and checked)."""
    rta = read_rta(UNCOVERED).rta
    result = run_translate(rta, "u.rta")
    certs = {c.rule_id: c for c in result.justice_certificates}
    assert certs[1].exact and certs[1].admissible and certs[1].justified is False
    assert certificate_problem(result) is None
    refused = refused_properties(result)
    assert set(refused) == set(result.translation.justice.properties) and "relay" in refused
    verdict, why = refused["relay"]
    assert verdict == "unsupported" and "not justified" in why and "V0" in why
    ta, dropped = without_refused(result)
    assert dropped == refused and "relay" not in [p.name for p in ta.properties]
    safety_only = replace(rta, properties=(parse_ta(
        "skel X { specifications (1) { s: [](AC == 0); } }").properties[0],))
    assert refused_properties(run_translate(safety_only, "u.rta")) == {}


# ----------------------------------------------------------------------------------- corpus

@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_corpus_liveness_properties_are_under_the_derived_justice(path):
    rta = read_rta_file(path).rta
    tr = translate(rta)
    if rta.timing is Timing.SYNC:
        assert tr.justice is None and tr.ta.properties == tuple(replace(p, hypothesis=None) for p in rta.properties)
        return
    live = [p.name for p in rta.properties if classify(p.formula) is PropertyKind.LIVENESS]
    assert live, "every asynchronous corpus model states its liveness properties"
    generated = {p.name: p.formula for p in tr.ta.properties}
    wrapper = Eventually(Always(tr.justice.formula))
    for p in rta.properties:
        expected = Implies(wrapper, p.formula) if p.name in live else p.formula
        assert generated[p.name] == expected, p.name
    assert tr.justice.properties == tuple(live)
    assert all(c.ok for c in certify_justice(rta, tr)), path
    assert read_ta(print_ta(tr.ta)).ta == tr.ta  # the .ta output re-reads (no boolean define)
    assert ta_from_json(json.loads(json.dumps(ta_to_json(tr.ta)))) == tr.ta


def test_translate_prints_the_justice_and_writes_it_into_the_ta(cli, tmp_path):
    out = tmp_path / "strb.ta"
    r = cli("translate", CORPUS / "strb" / "strb.rta", "-o", out)
    assert r.code == 0, r.err
    assert "justice (derived from the fault model, byzantine async" in r.out
    assert "received(ECHO) >= ns_ECHO" in r.out
    line = next(x for x in r.out.splitlines() if x.strip().startswith("fair == "))
    j = formula(line.split("==", 1)[1])
    tr = translate(strb())
    assert same_justice(tr, to_text(j))
    assert "1: V0 -> SE  ns_ECHO >= t + 1  ns_ECHO < t + 1 || V0 == 0" in r.out
    assert "assumed by: correctness, relay" in r.out
    written = read_ta(out.read_text()).ta
    assert written == tr.ta
    assert f"correctness: <>[]({to_text(tr.justice.formula)}) -> (V0 == 0 -> <>(AC != 0));" in out.read_text()
    as_json = tmp_path / "strb.json"
    assert cli("translate", CORPUS / "strb" / "strb.rta", "-o", as_json).code == 0
    assert ta_from_json(json.loads(as_json.read_text())) == tr.ta
