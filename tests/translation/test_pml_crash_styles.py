"""The Parametric Promela styles the CAV'15, CONCUR'14, POPL'17 and ISOLA'18 sets write that the
front end read only in part (passes/pml_to_rta/):

* a crash counter with the copy count ``active[N - F]`` (``running.py``: CAV'15's c1cs, cf1s);
* crash steps that send partial messages no correct step at their location broadcasts
  (``partial.py``: nbacg, asyn-guer01-nbac);
* a threshold automaton written in Promela: guards over the shared counters themselves, the
  initial location by plain assignments, a ``next_pc`` left as the step leaves it (``direct.py``,
  ``declarations.initial_assignments``, ``temporaries.py``: CONCUR'14's toy.pml).

Each construct has a snippet of its own, checked against SPIN on the file itself (``--engine
source``) at one small size; ByMC's files are used from the mirror of fault-tolerant-benchmarks
when present (``$TACTL_FTB_PROMELA``, ``make ftb-promela``) and the tests that need them skip
otherwise.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import GUARD_S, needs_spin
from tactl.driver.inputs import load_automaton, read_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.spin_source import check_source
from tactl.ir.expr import to_text
from tactl.util import deadline

FTB = Path(os.environ.get("TACTL_FTB_PROMELA") or Path.home() / ".cache" / "tactl" / "benchmarks" / "ftb-promela")
NEEDS_FTB = pytest.mark.skipif(not (FTB / "cav15" / "promela").is_dir(),
                               reason=f"the fault-tolerant-benchmarks Promela sets are not at {FTB} (make ftb-promela)")
SPIN = needs_spin("the SPIN cross-checks of the Promela crash styles")

def receive(text: str) -> str:
    """``text`` with each line ``RECEIVE(x, B)`` replaced by ByMC's SPIN-readable receive of x:
    a choice of one more or none, and the bound ``next_x <= B`` that forgets a receive past it."""
    out = []
    for line in text.splitlines(keepends=True):
        if line.startswith("RECEIVE("):
            x, bound = line[len("RECEIVE("):line.rindex(")")].split(", ")
            line = (f"      if\n        :: next_{x} = {x} + 1;\n        :: next_{x} = {x};\n      fi;\n"
                    f"      if\n        :: !(next_{x} <= {bound}) -> next_{x} = {x};\n        :: else;\n      fi;\n")
        out.append(line)
    return "".join(out)


# N - F processes run, at most F of them crash; a decision needs N messages, so with F >= 1 nobody
# decides (read with N processes, some would)
COPIES = receive("""\
#define V  0
#define S  1
#define D  2
#define CR 3
symbolic int N, T, F;
int nsnt = 0;
int nsntF = 0;
int nfaulty = 0;
assume(N > 3 * T);
assume(T >= 1);
assume(F >= 1);
assume(F <= T);
atomic none_decided = all(Proc:pc != D);
atomic some_sent = some(Proc:pc == S);
atomic in_transit = some(Proc:nrcvd < nsnt);
active[N - F] proctype Proc() {
  byte pc = 0, next_pc = 0;
  int nrcvd = 0, next_nrcvd = 0;
  if
    :: pc = V;
  fi;
end:
  do
    :: atomic {
RECEIVE(nrcvd, nsnt + nsntF)
      if
        :: pc == V -> next_pc = S;
        :: pc == S && next_nrcvd >= N -> next_pc = D;
        :: nfaulty < F -> nfaulty++; next_pc = CR;
        :: pc == D || pc == CR || (pc == S && next_nrcvd < N) -> next_pc = pc;
      fi;
      if
        :: pc == V && next_pc == S -> nsnt++;
        :: pc == V && next_pc == CR -> nsntF++;
        :: else;
      fi;
      pc = next_pc;
      nrcvd = next_nrcvd;
      next_pc = 0;
      next_nrcvd = 0;
    }
  od;
}
ltl fairness { []<>(!in_transit) }
ltl all_needed { [] none_decided }
ltl nobody_sends { [] !some_sent }
""")

# A process at V0 with its veto set aborts without sending; crashing there it may still have sent
# its 0 to some receivers (nsnt0F++), which makes a process at S abort (AS): only the partial
# message of a location that broadcasts nothing leads there.
PARTIAL = receive("""\
#define V0 0
#define V1 1
#define S  2
#define AB 3
#define AS 4
#define CR 5
symbolic int N;
int nsnt0 = 0;
int nsnt1 = 0;
int nsnt0F = 0;
int nsnt1F = 0;
assume(N > 1);
atomic no_sent_abort = all(Proc:pc != AS);
atomic in_transit0 = some(Proc:nrcvd0 < nsnt0);
atomic in_transit1 = some(Proc:nrcvd1 < nsnt1);
active[N] proctype Proc() {
  byte pc = 0, next_pc = 0;
  byte veto = 0;
  int nrcvd0 = 0, next_nrcvd0 = 0;
  int nrcvd1 = 0, next_nrcvd1 = 0;
  if
    :: pc = V0; veto = 1;
    :: pc = V1; veto = 0;
  fi;
end:
  do
    :: atomic {
RECEIVE(nrcvd0, nsnt0 + nsnt0F)
RECEIVE(nrcvd1, nsnt1 + nsnt1F)
      if
        :: (pc == V0 || pc == V1) && veto == 0 -> next_pc = S;
        :: pc == V0 && veto == 1 -> next_pc = AB;
        :: pc == S && next_nrcvd0 > 0 -> next_pc = AS;
        :: pc != CR -> next_pc = CR;
      fi;
      if
        :: next_pc == S && pc == V0 -> nsnt0++;
        :: next_pc == S && pc == V1 -> nsnt1++;
        :: next_pc == CR && pc == V0 -> nsnt0F++;
        :: next_pc == CR && pc == V1 -> nsnt1F++;
        :: else;
      fi;
      pc = next_pc;
      nrcvd0 = next_nrcvd0;
      nrcvd1 = next_nrcvd1;
      next_pc = 0;
      next_nrcvd0 = 0;
      next_nrcvd1 = 0;
    }
  od;
}
ltl fairness { []<>(!in_transit0 && !in_transit1) }
ltl sent_abort_needs_a_vote { [] no_sent_abort }
""")

# guards over the shared counters, as a threshold automaton's rules (CONCUR'14's toy example, our
# own spelling): at most F of the N processes pass L3, so y reaches T only when F >= T
DIRECT = """\
#define L1 0
#define L2 1
#define L3 2
#define L4 3
#define L5 4
symbolic int N, T, F;
int x, y;
assume(N > 3 * T);
assume(T >= 1);
assume(F >= 0);
assume(F <= T);
BUG_ASSUME
atomic all_in1 = all(Proc:pc == L1);
atomic all_in5 = all(Proc:pc == L5);
active[N] proctype Proc() {
  byte pc = 0, next_pc = 0;
  pc = L1;
end:
  do
    :: atomic {
      if
        :: pc == L1 -> next_pc = L2;
        :: pc == L1 && x >= N - F -> next_pc = L3;
        :: pc == L3 -> y++; next_pc = L2;
        :: pc == L2 -> x++; next_pc = L4;
        :: pc == L4 && GUARD -> next_pc = L5;
        :: pc == L4 -> next_pc = L4;
      fi;
      pc = next_pc;
    }
  od;
}
ltl unreachable_l5 { (all_in1) -> []!all_in5 }
"""


def direct(bug: bool = False, guard: str = "y >= T") -> str:
    return DIRECT.replace("BUG_ASSUME", "assume(F == T);" if bug else "assume(F < T);").replace("GUARD", guard)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def parametric(path: Path, params: dict[str, int] | None = None) -> dict[str, str]:
    loaded = load_automaton(path)
    with deadline.clock(GUARD_S):
        results = check_automaton(loaded.ta, str(path), CheckOptions(parameters=params or {})).results
    for r in results:
        if r.verdict == "violated":
            assert r.counterexample is not None and r.counterexample.replayed, r.name
    return {r.name: r.verdict.replace("holds vacuously", "holds") for r in results}


def spin(path: Path, params: dict[str, int]) -> dict[str, str]:
    report = check_source(str(path), path.read_text(), params, timeout_s=GUARD_S)
    assert report.error is None, report.error
    return {r.name: r.verdict for r in report.results}


# ------------------------------------------------------------------------ active[N - F]
def test_copy_count_n_minus_f_is_a_new_first_parameter(cli, tmp_path):
    path = write(tmp_path, "copies.pml", COPIES)
    rta = read_automaton(path).rta
    assert rta.parameters[:2] == ("N_minus_F", "N")
    assert rta.faults.model.value == "crash" and rta.faults.parameters == ("F",)
    assert "N_minus_F == N - F" in [to_text(a) for a in rta.assumptions]
    r = cli("translate", path, "-o", tmp_path / "copies.ta")
    assert r.code == 0, r.err
    assert "copies.pml:16:10: warning: copy count: 'active[N - F]'" in r.err, r.err
    assert "V == N_minus_F;" in (tmp_path / "copies.ta").read_text()  # the processes that run
    assert parametric(path) == {"all_needed": "holds", "nobody_sends": "violated"}


# a crash at S, whose correct steps send nothing, counts the process's message a second time
COPIES_PARTIAL = COPIES.replace(":: pc == V && next_pc == CR -> nsntF++;",
                                ":: pc == V && next_pc == CR -> nsntF++;\n        :: pc == S && next_pc == CR -> nsntF++;")


def test_partial_messages_with_the_files_crash_counter(cli, tmp_path):
    path = write(tmp_path, "copies.pml", COPIES_PARTIAL)
    rta = read_automaton(path).rta
    assert [loc.name for loc in rta.crash_locations] == ["CR"] and rta.faults.parameters == ("F",)
    # the file's crash steps: at V and S the crash always counts a partial message (which may
    # reach nobody), at D it sends nothing
    assert {(r.source, r.sends) for r in rta.crash_rules} == {("V", ("nsnt",)), ("S", ("nsnt",)), ("D", ())}
    assert parametric(path) == {"all_needed": "violated", "nobody_sends": "violated"}


def test_another_copy_count_with_a_crash_counter_is_refused(cli, tmp_path):
    path = write(tmp_path, "copies.pml", COPIES.replace("active[N - F]", "active[N + F]"))
    r = cli("translate", path, "-o", tmp_path / "x.ta")
    assert r.code == 2 and "'nfaulty++' is read as a crash counter only with N (or N - F) copies" in r.err, r.err


# ------------------------------------------------------------------------ partial messages
def test_partial_messages_make_the_files_crash_steps_the_crash_rules(cli, tmp_path):
    path = write(tmp_path, "partial.pml", PARTIAL)
    rta = read_automaton(path).rta
    assert [loc.name for loc in rta.crash_locations] == ["CR"]
    sending = {(r.source, r.sends) for r in rta.crash_rules if r.sends}
    # V0 (veto 1) aborts without sending; its crash step still sends its 0 partially
    assert ("pc0_veto1", ("nsnt0",)) in sending and ("pc1_veto0", ("nsnt1",)) in sending
    assert not any(r.source.startswith("pc3") or r.target.startswith("pc3") for r in rta.rules if r.sends)
    r = cli("translate", path, "-o", tmp_path / "partial.ta")
    assert r.code == 0, r.err
    assert ("warning: crash faults: the file's crash steps send partial messages no correct step at "
            "their location broadcasts (pc = 0, veto = 1: 'nsnt0' ('nsnt0F++'))") in r.err, r.err
    assert parametric(path) == {"sent_abort_needs_a_vote": "violated"}


def test_without_the_partial_message_the_abort_is_unreachable(tmp_path):
    # the same file whose crash at V0 sends nothing: tactl's own crash rules, and the abort after
    # S needs a 0 nobody sends
    path = write(tmp_path, "silent.pml", PARTIAL.replace(":: next_pc == CR && pc == V0 -> nsnt0F++;", ""))
    assert not read_automaton(path).rta.crash_locations
    assert parametric(path) == {"sent_abort_needs_a_vote": "holds"}


# ------------------------------------------------------------------------ guards over shared counters
def test_guards_over_shared_counters_are_a_threshold_automaton(cli, tmp_path):
    path = write(tmp_path, "toy.pml", direct())
    r = cli("translate", path, "-o", tmp_path / "toy.ta")
    assert r.code == 0, r.err
    assert "warning: no receive variable: the step's guards read the shared counters 'x', 'y' directly" in r.err
    assert "faults bound(processes: N; receive: 0; deliver: 0)" in r.err
    assert "warning: 'next_pc' keeps the value the step leaves" in r.err, r.err
    ta = (tmp_path / "toy.ta").read_text()
    assert "when (ns_x >= N - F)" in ta and "when (ns_y >= T)" in ta and "L1 == N;" in ta
    assert parametric(path) == {"unreachable_l5": "holds"}
    assert parametric(write(tmp_path, "bug.pml", direct(bug=True))) == {"unreachable_l5": "violated"}


@pytest.mark.parametrize("guard", ["y < T", "!(y >= T)", "y == T"])
def test_a_guard_that_may_turn_false_as_a_counter_grows_is_refused_at_its_position(cli, tmp_path, guard):
    path = write(tmp_path, "toy.pml", direct(guard=guard))
    r = cli("translate", path, "-o", tmp_path / "x.ta")
    assert r.code == 2, r.err
    line = direct(guard=guard).splitlines().index(next(
        ln for ln in direct(guard=guard).splitlines() if guard in ln)) + 1
    assert f"toy.pml:{line}:" in r.err and "may turn false as the counter grows" in r.err, r.err


def test_a_temporary_read_before_it_is_written_must_be_reset(cli, tmp_path):
    text = direct().replace(":: pc == L1 -> next_pc = L2;", ":: pc == L1 && next_pc == L1 -> next_pc = L2;")
    r = cli("translate", write(tmp_path, "toy.pml", text), "-o", tmp_path / "x.ta")
    assert r.code == 2 and "'next_pc' is not reset to 0 at the end of the step" in r.err, r.err


# ------------------------------------------------------------------------ against SPIN
# each construct at one small size: tactl's parametric engine on the translation and SPIN on the
# file itself agree, and the verdict is the one the construct's reading predicts
AGAINST_SPIN = {
    "copy count N - F": (lambda: COPIES, {"N": 4, "T": 1, "F": 1},
                         {"all_needed": "holds", "nobody_sends": "violated"}),
    "partial message, file crash counter": (lambda: COPIES_PARTIAL, {"N": 4, "T": 1, "F": 1},
                                            {"all_needed": "violated", "nobody_sends": "violated"}),
    "partial message, unbounded crashes": (lambda: PARTIAL, {"N": 2}, {"sent_abort_needs_a_vote": "violated"}),
    "guards over shared counters": (direct, {"N": 4, "T": 1, "F": 0}, {"unreachable_l5": "holds"}),
    "guards over shared counters, F == T": (lambda: direct(bug=True), {"N": 4, "T": 1, "F": 1},
                                            {"unreachable_l5": "violated"}),
}


@SPIN
@pytest.mark.parametrize("construct", sorted(AGAINST_SPIN))
def test_each_construct_agrees_with_spin_on_the_file(tmp_path, construct):
    text, params, wanted = AGAINST_SPIN[construct]
    path = write(tmp_path, "model.pml", text())
    assert spin(path, params) == parametric(path, params) == wanted


# ------------------------------------------------------------------------ ByMC's files
# file -> the verdicts of the properties its hand-written twin (bymc-isola18/*.ta) or the
# file itself says hold (the *_unreachable sanity properties are meant to be violated)
FILES = {
    "cav15/promela/c1cs.pml": {"one_step0": "holds", "one_step1": "holds"},
    "cav15/promela/cf1s-consensus-folklore-onestep.pml": {"one_step0": "holds", "one_step1": "holds"},
    "cav15/promela/nbacg-asyn-guer01-nbac.pml": {"agreement": "holds", "abort_validity": "holds",
                                                 "commit_validity": "holds", "abort_unreachable": "violated"},
    "popl17-fmsd17/promela/asyn-guer01-nbac.pml": {"agreement": "holds", "abort_validity": "holds",
                                                   "commit_validity": "holds"},
    "isola18/promela/nbacg.pml": {"agreement": "holds", "abort_validity": "holds", "commit_validity": "holds",
                                  "termination": "holds"},
    "concur14/toy.pml": {"unreachable_l5": "holds"},
}
# -D CASE2 (F == 1) -D BUG1: a crashing V0 process may send 1 (the file's injected safety bug)
BUGGY = {"isola18/promela/c1cs.pml": (("-D", "CASE2", "-D", "BUG1"), {"one_step0": "violated", "one_step1": "holds"}),
         "concur14/toy.pml": (("-D", "BUG"), {"unreachable_l5": "violated"})}


@NEEDS_FTB
@pytest.mark.parametrize("name", sorted(FILES))
def test_bymc_files_are_read_and_get_their_verdicts(cli, name):
    wanted = FILES[name]
    r = cli("check", FTB / name, "--json", "-q", *[a for p in wanted for a in ("-p", p)])
    assert r.code in (0, 1), r.err
    got = {p["name"]: p["verdict"] for p in json.loads(r.out)["properties"]}
    assert got == wanted, got


@NEEDS_FTB
@pytest.mark.parametrize("name", sorted(BUGGY))
def test_bymc_files_with_their_injected_bugs(cli, name):
    defines, wanted = BUGGY[name]
    r = cli("check", FTB / name, *defines, "--json", "-q", *[a for p in wanted for a in ("-p", p)])
    assert r.code == 1, r.err
    assert {p["name"]: p["verdict"] for p in json.loads(r.out)["properties"]} == wanted
