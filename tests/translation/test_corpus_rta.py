"""Our .rta models against our hand-written TAs: same guards where rules correspond, same
verdicts, and `tactl translate` / `tactl check X.rta` from the command line."""

from __future__ import annotations

import pytest

from conftest import CORPUS
from tactl.engines.check import CheckOptions, check_automaton
from tactl.ir.expr import substitute, Name
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.rta.reader import read_rta_file
from tactl.ir.ta.reader import read_ta_file
from tactl.passes.rta_to_ta.eliminate import translate

# hand-written shared variable -> generated one, per algorithm
RENAMING = {
    "strb": {"echo": "ns_ECHO"},
    "frb": {"sent": "ns_MSG", "sentf": "nsf_MSG", "crashed": "ncrashed"},
}


def pair(alg: str):
    generated = translate(read_rta_file(CORPUS / alg / f"{alg}.rta").rta).ta
    hand = read_ta_file(CORPUS / alg / f"{alg}.ta").ta
    return generated, hand


def signature(ta, rule, renaming=None):
    inc = ta.increments(rule) or {}
    if renaming:
        inc = {renaming.get(v, v): c for v, c in inc.items()}
    return rule.source, rule.target, tuple(sorted(inc.items()))


@pytest.mark.parametrize("alg", sorted(RENAMING))
def test_corresponding_rules_have_equivalent_guards(alg):
    import z3

    generated, hand = pair(alg)
    renaming = {k: Name(v) for k, v in RENAMING[alg].items()}
    sym = int_symbols()
    context = [to_z3(a, sym) for a in hand.assumptions]
    context += [sym(x) >= 0 for x in (*generated.parameters, *generated.shared)]
    by_signature = {}
    for r in generated.rules:
        by_signature.setdefault(signature(generated, r), []).append(r)
    matched = 0
    for r in hand.rules:
        candidates = by_signature.get(signature(hand, r, RENAMING[alg]), [])
        if not candidates or r.is_self_loop:
            continue
        hand_guard = to_z3(hand.expand(substitute(r.guard, renaming)), sym)
        ours = z3.Or([to_z3(c.guard, sym) for c in candidates])
        solver = z3.Solver()
        solver.add(*context)
        assert solver.check(hand_guard != ours) == z3.unsat, (alg, r.id)
        matched += 1
    assert matched >= 3


@pytest.mark.parametrize("alg", sorted(RENAMING))
def test_generated_and_hand_written_verdicts_agree(alg):
    generated, hand = pair(alg)
    ours = {r.name: r.verdict for r in check_automaton(generated, "gen", CheckOptions()).results}
    theirs = {r.name: r.verdict for r in check_automaton(hand, "hand", CheckOptions()).results}
    both = ours.keys() & theirs.keys()  # frb.rta also states `correctness`, the hand TA does not
    assert {"unforgeability", "relay"} <= both
    assert all(ours[name] == theirs[name] == "holds" for name in both), (ours, theirs)


def test_translate_prints_the_certificate_table(cli, tmp_path):
    out = tmp_path / "strb.ta"
    r = cli("translate", CORPUS / "strb" / "strb.rta", "-o", out)
    assert r.code == 0, r.err
    assert "1: V0 -> SE  received(ECHO) >= t + 1  ns_ECHO >= t - f + 1  ✓      ✓" in r.out
    assert "ns_ECHO >= n - t - f" in out.read_text()
    again = cli("check", out, "-p", "unforgeability")
    assert again.code == 0


def test_translate_to_stdout_and_without_certificates(cli):
    r = cli("translate", CORPUS / "frb" / "frb.rta", "--no-certify")
    assert r.code == 0 and r.out.startswith("skel FRB")
    assert "ns_MSG + nsf_MSG >= 1" in r.out and "-      -" in r.err


def test_check_accepts_an_rta_file(cli):
    r = cli("check", CORPUS / "strb" / "strb.rta")
    assert r.code == 0 and "unforgeability  reachability   HOLDS" in r.out


@pytest.mark.parametrize("args, message", [
    (("translate", CORPUS / "strb" / "strb.ta"), "translate reads a receive threshold automaton"),
    (("translate", CORPUS / "strb" / "strb.rta", "-o", CORPUS / "strb" / "strb.rta"),
     "translate writes a threshold automaton: -o X.ta (or X.json)"),
])
def test_translate_usage_errors(cli, args, message):
    r = cli(*args)
    assert r.code == 2 and message in r.err


def test_translate_bad_rta_is_a_positioned_error(cli, tmp_path):
    bad = tmp_path / "bad.rta"
    text = (CORPUS / "strb" / "strb.rta").read_text().replace("received(ECHO) >= t + 1", "received(ECHO) * t >= 1")
    bad.write_text(text)
    r = cli("translate", bad)
    assert r.code == 2 and f"{bad}:" in r.err and "non-linear" in r.err and "^" in r.err


def test_fmt_keeps_a_receive_automaton_a_receive_automaton(cli, tmp_path):
    from tactl.ir.rta.reader import read_rta_file

    copy = tmp_path / "strb.rta"
    copy.write_text((CORPUS / "strb" / "strb.rta").read_text())
    r = cli("fmt", copy)
    assert r.code == 0 and r.out.startswith("rta STRB {") and "received(ECHO)" in r.out
    refused = cli("fmt", copy, "--in-place")  # the file has comments
    assert refused.code == 2 and copy.read_text() == (CORPUS / "strb" / "strb.rta").read_text()
    assert cli("fmt", copy, "--in-place", "--drop-comments").code == 0
    assert read_rta_file(copy).rta == read_rta_file(CORPUS / "strb" / "strb.rta").rta


def test_an_imprecise_guard_is_refused_unless_allowed(cli, tmp_path):
    from conftest import DATA

    source = DATA / "rta" / "imprecise_parity.rta"
    out = tmp_path / "p.ta"
    r = cli("translate", source, "-o", out)
    assert r.code == 3 and "sound but not precise" in r.err and not out.exists()
    assert "✓      ✗" in r.out
    assert cli("check", source).code == 3
    allowed = cli("translate", source, "-o", out, "--allow-imprecise")
    assert allowed.code == 0 and out.exists() and "over-approximates" in allowed.err


def test_a_synchronous_automaton_is_checked_in_lock_step_and_not_interleaved(cli, tmp_path):
    floodmin = CORPUS / "floodmin" / "floodmin.rta"
    r = cli("check", floodmin)
    assert r.code == 0 and "lock-step safety" in r.out and "diameter 2" in r.out
    r = cli("check", floodmin, "--engine", "spin", "--param", "n=3", "--param", "t=1", "--param", "f=1")
    assert r.code == 3 and "UNSUPPORTED" in r.out and "interleaves" in r.out
    translated = cli("translate", floodmin, "-o", tmp_path / "f.ta")
    assert translated.code == 0 and "lock-step" in translated.err
    emitted = cli("emit", floodmin, "--to", "smtlib", "-o", tmp_path / "smt")  # the lock-step questions
    assert emitted.code == 0 and all(".lockstep" in p.name for p in (tmp_path / "smt").iterdir())


CRASH_SPEC = """rta C {
  parameters n, t, f;
  assumptions (3) { n > t; t >= f; f >= 0; }
  faults FAULTS;
  timing async;
  messages M;
  locations V0, V1, AC;
  initial V0, V1;
  rules (2) { 0: V1 -> AC send M; 1: V0 -> AC when (received(M) >= 1) send M; }
  specifications (1) { bounded: [](ncrashed <= f && CR <= f); }
}
"""


def test_specifications_may_name_what_a_crash_model_adds(cli, tmp_path):
    crash = tmp_path / "crash.rta"
    crash.write_text(CRASH_SPEC.replace("FAULTS", "crash(f)"))
    r = cli("check", crash)
    assert r.code == 0 and "bounded  reachability   HOLDS" in r.out
    byzantine = tmp_path / "byz.rta"
    byzantine.write_text(CRASH_SPEC.replace("FAULTS", "byzantine(f)"))
    r = cli("check", byzantine)
    assert r.code == 2 and f"{byzantine}:10:36: unknown name 'ncrashed'" in r.err
