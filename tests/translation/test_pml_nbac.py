"""The NBAC family of Parametric Promela files: ``unsigned`` counters, crashed processes that keep
their local state (``passes/pml_to_rta/crash_copies.py``), crash locations left as the file's own
crash steps allow, and the stutter self-loops that keep the derived justice from forcing a step
the file lets a process skip (``passes/pml_to_rta/waiting.py``).

The snippets are small models of our own; the files of konnov/fault-tolerant-benchmarks are read
where they are extracted (``$TACTL_FTB``, default /tmp/ftb: concur14, cav15/promela,
popl17-fmsd17/promela, isola18/promela) and the tests that need them skip otherwise.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from conftest import GUARD_S, SHARED_BENCHMARKS, check_results, needs_spin, report_verdicts, verdicts, write
from tactl.driver.inputs import load_automaton
from tactl.ir.errors import InputError
from tactl.ir.promela.reader import parse_promela
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta
from tactl.passes.pml_to_rta.translation import translate_promela
from tactl.passes.rta_to_ta.eliminate import translate

FTB = Path(os.environ.get("TACTL_FTB", "/tmp/ftb"))
NBAC_FILES = {
    "concur14/asyn-ray97-nbac-clean.pml": "clean", "cav15/promela/nbacc-asyn-ray97-nbac-clean.pml": "clean",
    "popl17-fmsd17/promela/asyn-ray97-nbac-clean.pml": "clean",
    "concur14/asyn-ray97-nbac.pml": "left", "cav15/promela/nbac-asyn-ray97-nbac.pml": "left",
    "popl17-fmsd17/promela/asyn-ray97-nbac.pml": "kept", "isola18/promela/nbacr.pml": "kept",
}
# every file's sanity questions are violated on purpose; validity is the algorithm's theorem
SAFETY = {"abort_unreachable": "violated", "commit_unreachable": "violated",
          "send_unreachable": "violated", "validity": "holds"}
GENERATED_NBACR = SHARED_BENCHMARKS / "bymc-isola18-generated" / "nbacr.ta"

# A vote, a broadcast of it, a decision on N yes votes, and a flag a crashed process keeps; the
# crash step's guard is CRASHGUARD (``pc != CR ->`` keeps the crash location, nothing lets a
# crashed process take the crash step again and change its flag).
NBAC = """\
#define NO 0
#define YES 1
#define SE 2
#define DONE 3
#define CR 4
symbolic int N;
COUNTER nNo = 0;
COUNTER nYes = 0;
int nNoF = 0;
int nYesF = 0;
assume(N > 1);
atomic all_done = all(P:pc == DONE || P:pc == CR);
atomic none_done = all(P:pc != DONE);
atomic all_flagged = all(P:flag == 1);
atomic in_transit_yes = some(P:rYes < nYes);
atomic in_transit_no = some(P:rNo < nNo);
active[N] proctype P() {
  byte pc = 0, next_pc = 0;
  byte flag = 0, next_flag = 0;
  int rYes = 0, rNo = 0, next_rYes = 0, next_rNo = 0;
  if :: pc = YES; :: pc = NO; fi;
end:
  do
  :: atomic {
    if
    :: pc != YES && pc != NO ->
       havoc(next_rYes);
       assume(rYes <= next_rYes && next_rYes <= nYes + nYesF);
       havoc(next_rNo);
       assume(rNo <= next_rNo && next_rNo <= nNo + nNoF);
       if :: next_flag = 0; :: next_flag = 1; fi;
    :: else ->
       next_rYes = rYes; next_rNo = rNo; next_flag = flag;
    fi;
    if
    :: pc == YES || pc == NO -> next_pc = SE;
    :: pc == SE && next_rNo == 0 && next_rYes >= N -> next_pc = DONE;
    :: pc == SE && !(next_rNo == 0 && next_rYes >= N) -> next_pc = SE;
    :: pc == DONE -> next_pc = DONE;
    :: CRASHGUARD next_pc = CR;
    fi;
    if
    :: next_pc == SE && pc == YES -> nYes++;
    :: next_pc == SE && pc == NO -> nNo++;
    :: next_pc == CR && pc == YES -> nYesF++;
    :: next_pc == CR && pc == NO -> nNoF++;
    :: else;
    fi;
    pc = next_pc; rYes = next_rYes; rNo = next_rNo; flag = next_flag;
    next_pc = 0; next_rYes = 0; next_rNo = 0; next_flag = 0;
  }
  od;
}
ltl fairness { []<>(!in_transit_yes && !in_transit_no) }
ltl safe { [](none_done) }
ltl live { <>[](all_flagged) -> <>(all_done) }
"""
KEEP = "pc != CR ->"


def model(crash_guard: str = KEEP, counter: str = "int", **replace: str) -> str:
    text = NBAC.replace("CRASHGUARD", crash_guard).replace("COUNTER", counter)
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    return text


def parsed(tmp_path: Path, text: str, name: str = "nbac.pml"):
    path = write(tmp_path, name, text)
    return translate_promela(parse_promela(text, str(path))), path


def refusal(tmp_path: Path, text: str) -> InputError:
    with pytest.raises(InputError) as e:
        parsed(tmp_path, text)
    return e.value


# ------------------------------------------------------------------------------------ unsigned


def test_unsigned_is_read_as_a_natural_number_giving_the_automaton_of_int(tmp_path):
    # ByMC's `unsigned nsntNo = 0;` (the nbac-clean files) has no SPIN width: a natural number
    as_int, _ = parsed(tmp_path, model(counter="int"))
    as_unsigned, _ = parsed(tmp_path, model(counter="unsigned"))
    assert print_rta(as_unsigned.rta) == print_rta(as_int.rta)


def test_an_unsigned_local_given_a_negative_value_is_refused_at_the_assignment(tmp_path):
    text = model(**{"byte flag = 0, next_flag = 0;": "unsigned flag = 0, next_flag = 0;",
                    ":: next_flag = 1; fi;": ":: next_flag = 0 - 1; fi;"})
    e = refusal(tmp_path, text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "next_flag = 0 - 1" in s)
    assert e.first.span.line == line
    assert "'next_flag' is declared unsigned" in e.first.message


def test_an_unsigned_with_a_spin_width_is_refused_with_its_position(tmp_path):
    e = refusal(tmp_path, model(counter="unsigned").replace("unsigned nNo = 0;", "unsigned nNo : 4 = 0;"))
    assert e.first.span.line == 7 and "unexpected" in e.first.message


# ------------------------------------------------------------------------------- crash copies


def test_crashed_processes_keep_what_the_properties_read_in_crash_locations(tmp_path):
    # all_flagged reads the flag of crashed processes too: CR with flag 0 and with flag 1 are two
    # crash locations, entered by the file's own crash steps (a vote cut short: `send` = partial)
    t, _ = parsed(tmp_path, model())
    rta = t.rta
    assert [loc.name for loc in rta.crash_locations] == ["CR_flag0", "CR_flag1"]
    steps = {(r.source, r.target, r.sends) for r in rta.crash_rules}
    assert ("pc1_flag0", "CR_flag0", ("nYes",)) in steps and ("pc0_flag0", "CR_flag0", ("nNo",)) in steps
    assert {("pc2_flag0", "CR_flag0", ()), ("pc2_flag0", "CR_flag1", ())} <= steps
    assert all(r.source not in {"CR_flag0", "CR_flag1"} for r in rta.crash_rules)  # never left
    assert "no crash counted" not in " ".join(n.message for n in t.notes)
    assert any("2 crash locations that keep it (CR_flag0, CR_flag1)" in n.message for n in t.notes)
    live = next(p for p in rta.properties if p.name == "live")
    assert "CR_flag0 == 0" in str(live.formula) or "CR_flag0" in repr(live.formula)
    assert read_rta(print_rta(rta)).rta.crash_rules == rta.crash_rules  # the .rta round trip


def test_without_a_property_telling_them_apart_the_crash_location_is_the_one_cr(tmp_path):
    # the flag is read by no ltl block: the crash valuations are one CR, as before
    t, _ = parsed(tmp_path, model().replace("ltl live { <>[](all_flagged) -> <>(all_done) }", ""))
    assert not t.rta.crash_locations
    assert any("tactl's crash location CR" in n.message for n in t.notes)


def test_a_crash_step_taken_again_is_a_step_between_crash_locations_that_counts_no_crash(tmp_path):
    # an unguarded crash option lets a crashed process take it again, choosing its flag anew
    t, _ = parsed(tmp_path, model(crash_guard=""))
    moves = {(r.source, r.target) for r in t.rta.crash_rules if r.source.startswith("CR_")}
    assert moves == {("CR_flag0", "CR_flag1"), ("CR_flag1", "CR_flag0")}
    ta = translate(t.rta).ta
    between = [r for r in ta.rules if r.source.startswith("CR_") and r.target.startswith("CR_")
               and r.source != r.target]
    assert len(between) == 2 and all(not r.updates for r in between)
    into = [r for r in ta.rules if r.target.startswith("CR_") and not r.source.startswith("CR_")]
    assert into and all(any(u.var == "ncrashed" for u in r.updates) for r in into)


def test_the_justice_never_forces_a_crashed_process_to_move(tmp_path):
    # a crash rule is in no justice atom: a crashed process may keep its flag, or change it, for ever
    t, _ = parsed(tmp_path, model(crash_guard=""))
    tr = translate(t.rta)
    assert tr.justice is not None
    assert "CR_flag" not in str(tr.justice.formula)


@pytest.mark.parametrize("old,new,says", [
    # a crashed process that comes back
    (":: pc == DONE -> next_pc = DONE;", ":: pc == DONE || pc == CR -> next_pc = DONE;",
     "the crash location must never be left"),
    # a crashed process's step that reads what it received
    (":: pc == DONE -> next_pc = DONE;", ":: pc == DONE -> next_pc = DONE;\n    :: pc == CR && next_rYes >= 1 -> "
     "next_pc = CR;", "must send nothing and need nothing"),
])
def test_what_a_crashed_process_may_not_do_is_refused_with_a_position(tmp_path, old, new, says):
    text = model(crash_guard="pc != CR ->", **{old: new})
    e = refusal(tmp_path, text)
    assert says in e.first.message and e.first.span is not None
    assert "nYes + nYesF" in text.splitlines()[e.first.span.line - 1]  # at the receive bound


def test_a_crash_rule_between_crash_locations_sends_nothing_in_an_rta(tmp_path):
    rta = """rta r { parameters n, f; assumptions (1) { n > f; } faults crash(f); timing async;
      messages M; locations A, B; initial A;
      rules (1) { 0: A -> B send M; }
      crash locations C0, C1;
      crash rules (3) { 0: A -> C0; 1: B -> C1; 2: C0 -> C1 send M; } }"""
    with pytest.raises(InputError) as e:
        read_rta(rta)
    assert "between crash locations" in str(e.value)
    ok = read_rta(rta.replace("2: C0 -> C1 send M;", "2: C0 -> C1;")).rta
    assert [r.source for r in ok.crash_rules] == ["A", "B", "C0"]


# ------------------------------------------------------------------------ stutter self-loops


def test_a_step_reading_no_message_from_a_location_where_the_file_may_stay_is_optional(tmp_path):
    # the flag flips at DONE with no message read, and DONE stutters: a self-loop marks DONE as a
    # place to wait, so the justice does not force the flag to flip (it would force it forever)
    t, _ = parsed(tmp_path, model())
    loops = [r for r in t.rta.rules if r.is_self_loop]
    assert {r.source for r in loops} == {"pc3_flag0", "pc3_flag1"}
    assert all(r.origin and "changes nothing" in r.origin.text for r in loops)
    justice = translate(t.rta).justice
    assert "pc3_flag" not in str(justice.formula)
    # without a liveness specification nothing reads the justice: the automaton is unchanged
    safety_only, _ = parsed(tmp_path, model().replace("ltl live { <>[](all_flagged) -> <>(all_done) }", ""))
    assert not [r for r in safety_only.rta.rules if r.is_self_loop]


def test_the_snippets_safety_verdicts_agree_with_the_explicit_engine(tmp_path):
    for guard in (KEEP, ""):
        _, path = parsed(tmp_path, model(crash_guard=guard), f"nbac{len(guard)}.pml")
        parametric = verdicts(path, properties=("safe",))
        small = verdicts(path, properties=("safe",), engine="explicit", bound=4)
        assert parametric == small == {"safe": "violated"}


def spin_model(crash_guard: str) -> str:
    """The model with SPIN's receive choice and bound for ByMC's havoc, and a bit ``voted`` the
    properties read: a crashed process with the flag set that never voted exists only where a
    crashed process may take the crash step again (``silent``)."""
    receive = (":: pc != YES && pc != NO ->\n       havoc(next_rYes);\n       assume(rYes <= next_rYes && "
               "next_rYes <= nYes + nYesF);\n       havoc(next_rNo);\n       assume(rNo <= next_rNo && "
               "next_rNo <= nNo + nNoF);\n       if :: next_flag = 0; :: next_flag = 1; fi;\n"
               "    :: else ->\n       next_rYes = rYes; next_rNo = rNo; next_flag = flag;")
    spin = ("if :: next_rYes = rYes + 1; :: next_rYes = rYes; fi;\n"
            "    if :: !(next_rYes <= nYes + nYesF) -> next_rYes = rYes; :: else; fi;\n"
            "    if :: next_rNo = rNo + 1; :: next_rNo = rNo; fi;\n"
            "    if :: !(next_rNo <= nNo + nNoF) -> next_rNo = rNo; :: else; fi;\n"
            "    if\n    :: pc != YES && pc != NO -> if :: next_flag = 0; :: next_flag = 1; fi;\n"
            "    :: else -> next_flag = flag;")
    return model(crash_guard, **{
        "if\n    " + receive: spin,
        "  byte flag = 0, next_flag = 0;\n": "  byte flag = 0, next_flag = 0;\n  byte voted = 0;\n",
        "pc == YES -> nYes++;": "pc == YES -> nYes++; voted = 1;",
        "pc == NO -> nNo++;": "pc == NO -> nNo++; voted = 1;",
        "atomic all_flagged": "atomic silent_flagged = some(P:pc == CR && P:flag == 1 && P:voted == 0);\n"
                              "atomic all_flagged",
        "ltl safe { [](none_done) }": "ltl safe { [](none_done) }\nltl silent { [](!silent_flagged) }"})


@needs_spin("the crash copies' differential check against SPIN on the file")
@pytest.mark.parametrize("crash_guard,silent", [(KEEP, "holds"), ("", "violated")])
def test_crash_copies_agree_with_spin_on_the_file_at_n_2(cli, tmp_path, crash_guard, silent):
    path = write(tmp_path, "spin_nbac.pml", spin_model(crash_guard))
    ours = verdicts(path, properties=("safe", "silent"))
    assert {p: v.replace("holds vacuously", "holds") for p, v in ours.items()} == {"safe": "violated", "silent": silent}
    out = cli("check", path, "--engine", "source", "--param", "N=2", "--json", "-p", "safe", "-p", "silent")
    assert report_verdicts(json.loads(out.out)) == {"safe": "violated", "silent": silent}, out.err


# ------------------------------------------------------------------- the benchmark files


def ftb(name: str) -> Path:
    path = FTB / name
    if not path.exists():
        pytest.skip(f"{name} of konnov/fault-tolerant-benchmarks not found under {FTB} ($TACTL_FTB)")
    return path


@pytest.mark.parametrize("name", sorted(NBAC_FILES))
def test_every_nbac_file_is_read_with_its_crash_reading_and_safety_decided(name):
    path = ftb(name)
    t = translate_promela(parse_promela(path.read_text(), str(path)))
    kind = NBAC_FILES[name]
    if kind == "clean":  # no crash counter: ByMC's processes at CRASH are locations of the file
        assert t.rta.faults.model.value == "bound" and not t.rta.crash_locations
    else:
        assert [loc.name for loc in t.rta.crash_locations] == ["CR_some_fail0", "CR_some_fail1"]
        moves = [r for r in t.rta.crash_rules if r.source.startswith("CR_")]
        assert bool(moves) == (kind == "left")
    results = check_results(path, timeout_s=GUARD_S, properties=tuple(SAFETY))
    assert {p: r.verdict for p, r in results.items()} == SAFETY
    assert all(r.counterexample.replayed for r in results.values() if r.verdict == "violated")


def test_nbacr_safety_agrees_with_bymcs_generated_automaton():
    # differential: ByMC's own translation of the same file (1,031 rules) against ours
    path = ftb("isola18/promela/nbacr.pml")
    if not GENERATED_NBACR.exists():
        pytest.skip(f"ByMC's generated nbacr.ta not found at {GENERATED_NBACR}")
    theirs = verdicts(GENERATED_NBACR)
    ours = verdicts(path, properties=tuple(theirs))
    assert ours == theirs and theirs["abort_unreachable"] == "violated"
    assert len(load_automaton(path).ta.rules) * 20 < len(load_automaton(GENERATED_NBACR).ta.rules)


def test_a_crash_location_left_agrees_with_the_explicit_engine_at_small_sizes():
    # differential: concur14's crashed processes change their failure-detector bit
    path = ftb("concur14/asyn-ray97-nbac.pml")
    safety = tuple(SAFETY)
    parametric = verdicts(path, properties=safety)
    small = verdicts(path, properties=safety, engine="explicit", bound=4)
    assert parametric == small == SAFETY


def test_nbacr_names_no_refusal_any_more_and_its_warning_says_which_reading(cli, tmp_path):
    path = ftb("isola18/promela/nbacr.pml")
    out = cli("translate", path, "-o", tmp_path / "nbacr.ta")
    assert out.code == 0, out.err
    assert re.search(r"nbacr\.pml:\d+:\d+: warning: crash faults: the properties tell crashed processes "
                     r"apart by some_fail", out.err), out.err
