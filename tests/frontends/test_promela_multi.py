"""Parametric Promela with several receive variables, an initialisation before ``end:``,
``assume``/``assert`` in the step and integer division (passes/pml_to_rta/multi.py): ByMC's SPIN'13
files bcast-byz-init, cond-consensus2 and asyn-byzagreement0 are read, translated and checked;
bcast-byz-full (written in a language neither ByMC nor tactl reads) is refused with its position.

The small models below are written for these tests; the benchmark files are used by path
(../shared/benchmarks/bymc-promela/spin13-parameterized, ByMC's licence) and their tests skip
when it is absent.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import GUARD_S, ISOLA18, SHARED_BENCHMARKS, check_results, write
from tactl.driver.inputs import load_automaton, read_automaton
from tactl.ir.errors import InputError
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta

SPIN13 = SHARED_BENCHMARKS / "bymc-promela" / "spin13-parameterized"
SKIP = pytest.mark.skipif(not SPIN13.is_dir(), reason=f"ByMC Promela benchmarks not found at {SPIN13}")

# ---------------------------------------------------------------------- small models of our own

# Two message types X and Y, each with its receive choice and its bound: B processes send X at
# once, A processes after t + 1 X's (Byzantine senders alone cannot make them), every X sender
# sends Y after n - t X's and finishes after n - t Y's.
TWO = """
#define A 0
#define B 1
#define C 2
#define D 3
#define E 4
symbolic int N, T, F;
int nx = 0, ny = 0;
assume(N > 3 * T);
assume(T >= F);
assume(F >= 0);
atomic all_a = all(Proc:pc == A);
atomic all_b = all(Proc:pc == B);
atomic ex_e = some(Proc:pc == E);
atomic all_e = all(Proc:pc == E);
active[N - F] proctype Proc() {
  byte pc = 0, next_pc = 0;
  int rx = 0, next_rx = 0;
  int ry = 0, next_ry = 0;
  if :: pc = A; :: pc = B; fi;
end:
  do :: atomic {
    if :: next_rx = rx + 1; :: next_rx = rx; fi;
    if :: !(next_rx <= nx + F) -> next_rx = rx; :: else; fi;
    if :: next_ry = ry + 1; :: next_ry = ry; fi;
    if :: !(next_ry <= ny + F) -> next_ry = ry; :: else; fi;
    if
      :: pc == B -> next_pc = C; nx++;
      :: pc == A && next_rx >= T + 1 -> next_pc = C; nx++;
      :: pc == C && next_rx >= N - T -> next_pc = D; ny++;
      :: pc == D && next_ry >= N - T -> next_pc = E;
      :: else -> next_pc = pc;
    fi;
    pc = next_pc; rx = next_rx; ry = next_ry;
    next_pc = 0; next_rx = 0; next_ry = 0;
  } od;
}
ltl unforg { [](all_a -> []!ex_e) }
ltl corr { [](all_b -> <>all_e) }
"""

# One process sends START in the initialisation (the first to run it); every process echoes it
# once it has START, and finishes after n - t echoes. `(N + T) / 2` is Promela's division.
INIT = """
symbolic int N, T, F;
int nstart, necho;
assume(N > 3 * T);
assume(T >= F);
assume(F >= 0);
atomic started = (nstart > 0);
atomic all_done = all(Proc:pc == 2);
atomic ex_done = some(Proc:pc == 2);
active[N - F] proctype Proc() {
  byte pc = 0, next_pc = 0;
  int rs = 0, next_rs = 0, re = 0, next_re = 0;
  atomic { if :: nstart == 0 -> nstart++; :: else; fi };
end:
  do :: atomic {
    if :: next_rs = rs + 1; :: next_rs = rs; fi;
    if :: !(next_rs <= nstart) -> next_rs = rs; :: else; fi;
    if :: (re < necho + F) -> next_re = re + 1; :: next_re = re; fi;
    assume(re <= necho + F);
    assert(next_re <= N);
    if
      :: pc == 0 && next_rs >= 1 -> next_pc = 1; necho++;
      :: pc == 1 && next_re >= (N + T) / 2 + 1 -> next_pc = 2;
      :: else -> next_pc = pc;
    fi;
    pc = next_pc; rs = next_rs; re = next_re;
    next_pc = 0; next_rs = 0; next_re = 0;
  } od;
}
ltl corr { [](started -> <>all_done) }
ltl unforg { []((!started) -> []!ex_done) }
"""


def _write(tmp_path: Path, text: str, name: str = "m.pml") -> Path:
    return write(tmp_path, name, text)


def _verdicts(path: Path, **options) -> dict:
    return check_results(path, timeout_s=GUARD_S, **options)


def _rules(rta) -> set[str]:
    from tactl.ir.expr import to_text

    return {f"{r.source}->{r.target} [{to_text(r.guard)}] {' '.join(r.sends)}".strip() for r in rta.rules}


def test_two_receive_variables_are_two_message_types(tmp_path):
    rta = read_automaton(_write(tmp_path, TWO)).rta
    assert [m.name for m in rta.messages] == ["nx", "ny"]
    assert rta.faults.model.value == "byzantine" and rta.faults.parameters == ("F",)
    assert _rules(rta) == {
        "B->C [true] nx",
        "A->C [received(nx) >= T + 1] nx",
        "C->D [received(nx) >= N - T] ny",
        # D was entered with n - t X's, and counts only grow: the invariant joins the guard
        "D->E [received(nx) >= N - T && received(ny) >= N - T]",
    }
    results = _verdicts(tmp_path / "m.pml")
    assert {n: r.verdict for n, r in results.items()} == {"unforg": "holds", "corr": "holds"}


def test_initialisation_division_and_proved_assert(tmp_path):
    """The first process's START is sent once for the run: its receive count is 0 or 1 and leaves
    the guards (0 -> 1 needs nothing); `started` is true throughout, so unforg's antecedent never
    holds; `(N + T) / 2 + 1` is exact as 2 * received >= N + T + 1; the assume and the assert
    follow from the bounds and the one echo per process, and are dropped with a note."""
    path = _write(tmp_path, INIT)
    translation = read_automaton(path)
    rta = translation.rta
    assert [m.name for m in rta.messages] == ["necho"]
    assert _rules(rta) == {"pc0->pc1 [true] necho", "pc1->pc2 [2 * received(necho) >= N + T + 1]"}
    notes = " ".join(w.message for w in translation.warnings)
    assert "nstart = 1 for the whole run" in notes and "hold on each of the" in notes
    results = _verdicts(path)
    assert results["corr"].verdict == "holds"
    assert results["unforg"].verdict.startswith("holds")


def test_two_message_types_parametric_agrees_with_explicit(tmp_path):
    for text in (TWO, INIT, TWO.replace("pc == A && next_rx >= T + 1", "pc == A && next_rx >= 1")):
        path = _write(tmp_path, text)
        parametric = _verdicts(path)
        explicit = _verdicts(path, engine="explicit", bound=4)
        for name, r in explicit.items():
            if r.verdict == "violated":
                assert parametric[name].verdict == "violated", name
        for name, r in parametric.items():
            if r.verdict == "violated":
                assert r.counterexample.replayed
                at = _verdicts(path, engine="explicit", properties=(name,),
                               parameters=dict(r.counterexample.parameters))
                assert at[name].verdict == "violated", name
    # the weakened guard (one X suffices, which one Byzantine process sends) breaks unforg
    assert parametric["unforg"].verdict == "violated"


@pytest.mark.parametrize("text", [TWO, INIT])
def test_snippets_round_trip_as_rta(tmp_path, text):
    rta = read_automaton(_write(tmp_path, text)).rta
    assert read_rta(print_rta(rta, source_map=True), "again.rta").rta == rta


@pytest.mark.parametrize("model,old,new,says", [
    (TWO, "!(next_ry <= ny + F)", "!(next_ry <= ny)", "one fault model bounds every message type"),
    (TWO, "!(next_ry <= ny + F)", "!(next_ry <= nx + F)", "same send counter"),
    (TWO, "if :: next_ry = ry + 1; :: next_ry = ry; fi;\n", "", "without a receive choice"),
    (INIT, "assert(next_re <= N);", "assert(next_re <= T);", "cannot prove always true"),
    (INIT, "assume(re <= necho + F);", "assume(re <= necho);", "cannot prove always true"),
    (INIT, "(N + T) / 2 + 1", "(N - 5 * T) / 2 + 1", "dividend non-negative"),
    (INIT, "(N + T) / 2 + 1", "(N + T) / next_re", "positive constant"),
    (INIT, "(N + T) / 2 + 1", "(N + T) / 2 / 2", "'/' by a positive constant"),
    (INIT, "(N + T) / 2 + 1", "(N + T) / 2 * 2", "one 'x / d' term"),
    (INIT, "if :: nstart == 0 -> nstart++; :: else; fi", "if :: nstart++; :: skip; fi",
     "exactly one enabled option"),
    (INIT, "pc == 0 && next_rs >= 1 -> next_pc = 1; necho++;",
     "pc == 0 && next_rs >= 1 -> next_pc = 1; necho++; nstart++;", "the step also changes"),
    (INIT, "atomic { if :: nstart == 0 -> nstart++; :: else; fi };",
     "atomic { if :: nstart < 20 -> nstart++; :: else; fi };", "more than"),
    (INIT, "atomic { if :: nstart == 0 -> nstart++; :: else; fi };",
     "atomic { if :: nstart < N -> nstart++; :: else; fi };", "unknown name 'N' in the initialisation"),
    (INIT, "(re < necho + F)", "(necho + F > re)", "only as"),
    (INIT, "(re < necho + F)", "(re < necho + F) && (re < nstart)", "two bounds"),
])
def test_bad_input_is_exit_2_with_a_position(cli, tmp_path, model, old, new, says):
    assert old in model, old
    path = _write(tmp_path, model.replace(old, new, 1), "bad.pml")
    out = cli("check", path)
    assert out.code == 2, out.err
    assert re.search(rf"{re.escape(str(path))}:\d+:\d+: ", out.err), out.err
    assert says in out.err and "^" in out.err and "Traceback" not in out.err


# --------------------------------------------------------------------------- ByMC's SPIN'13 files

# Expected verdicts and where they come from (docs/promela.md):
# * asyn-byzagreement0 (Bracha–Toueg's echo/ready broadcast, n > 3t): agreement (relay), corr
#   and unforg hold — the literature's theorem, and ISOLA'18's hand-written bcrb/aba automata.
# * cond-consensus2 (condition-based consensus, Mostéfaoui et al.): validity0, validity1 and
#   agreement hold; termination is VIOLATED by the file as written: its send option
#   `(pc == P1) && next_pc == W1 -> nsnt11++` can never fire (P1 never moves to W1; P0 does),
#   so no process ever sends the 11 message and the processes that chose 1 wait at P1 forever.
#   The literature's termination needs that message; the counterexample is a run of ByMC's model.
# * bcast-byz-init (Srikanth–Toueg with the init message sent by the first process): unforg
#   holds (its antecedent `[]!prec_corr` is false in every run: the init message is sent during
#   initialisation); relay and corr are liveness on an automaton with the cycle AC -> SE -> AC
#   (the file lets an accepted process take `next_nrcvd_init >= 1 -> next_pc = SE`). The justice
#   is read per process on such a loop (ir/eltl/cycles.py): relay is violated by processes going
#   round SE <-> AC so that never all of them are in AC at once; corr holds (a process may not stay
#   in SE while its exit to AC is enabled: the file's own fairness alone would allow it, which is
#   why SPIN on the file finds corr violated).
SPIN13_EXPECTED = {
    "asyn-byzagreement0": {"agreement": "holds", "corr": "holds", "unforg": "holds"},
    "cond-consensus2": {"validity0": "holds", "validity1": "holds", "agreement": "holds",
                        "termination": "violated"},
    "bcast-byz-init": {"unforg": "holds vacuously", "relay": "violated", "corr": "holds"},
}


@SKIP
@pytest.mark.parametrize("name", sorted(SPIN13_EXPECTED))
def test_spin13_verdicts(name):
    results = _verdicts(SPIN13 / f"{name}.pml")
    assert {n: r.verdict for n, r in results.items()} == SPIN13_EXPECTED[name]
    for r in results.values():
        if r.verdict == "violated":
            assert r.counterexample is not None and r.counterexample.replayed, r.name
        if r.verdict == "unsupported":
            assert "cycle through several locations" in r.reason


@SKIP
@pytest.mark.parametrize("name", sorted(SPIN13_EXPECTED))
def test_spin13_parametric_agrees_with_explicit(name):
    path = SPIN13 / f"{name}.pml"
    parametric = _verdicts(path)
    explicit = _verdicts(path, engine="explicit", bound=4)
    for n, r in explicit.items():
        assert r.verdict != "violated" or parametric[n].verdict == "violated", n
    for n, r in parametric.items():
        if r.verdict == "violated":
            at = _verdicts(path, engine="explicit", properties=(n,), parameters=dict(r.counterexample.parameters))
            assert at[n].verdict == "violated", n


@SKIP
@pytest.mark.parametrize("name", sorted(SPIN13_EXPECTED))
def test_spin13_rta_round_trips(name):
    rta = read_automaton(SPIN13 / f"{name}.pml").rta
    assert read_rta(print_rta(rta, source_map=True), "again.rta").rta == rta


@SKIP
def test_cond_consensus2_reads_the_files_crash_location_and_initial_counters():
    """CR (entered by `nfaulty++` under `nfaulty < F`, from every location) is tactl's crash
    location with clean_crash(F); init0/init1 count the initial options, so cond_init is a
    condition on the initial counts of V0 and V1; (N-1)/2 + 1 is exact."""
    from tactl.ir.expr import to_text

    translation = read_automaton(SPIN13 / "cond-consensus2.pml")
    rta = translation.rta
    assert rta.faults.model.value == "clean_crash" and rta.faults.parameters == ("F",)
    assert [m.name for m in rta.messages] == ["nsnt00", "nsnt01", "nsnt10", "nsnt11"]
    assert "CR" not in {loc.name for loc in rta.locations}
    assert not any("nsnt11" in r.sends for r in rta.rules)  # the file's send option never fires
    assert "P1->AC0 [2 * received(nsnt10) >= N]" in _rules(rta)
    termination = next(p for p in rta.properties if p.name == "termination")
    assert to_text(termination.formula).startswith("(V0 > V1 + F || V1 > V0 + F) -> ")
    notes = " ".join(w.message for w in translation.warnings)
    assert "tactl's crash location CR" in notes and "initial configuration" in notes


@SKIP
def test_cond_consensus2_with_the_send_option_repaired(tmp_path):
    """With `(pc == P0) && next_pc == W1` (the evident intent) the 11 messages are sent; the
    model is still not a correct consensus for every n, t, f: tactl finds agreement violated
    (n = 4: (N-1)/2 + 1 = 2 messages of each kind decide both values) — the file's own comment
    says the order of its thresholds is unsettled. Both verdicts come with replayed runs."""
    text = (SPIN13 / "cond-consensus2.pml").read_text()
    old = ":: (pc == P1) && next_pc == W1  ->"
    assert old in text
    path = _write(tmp_path, text.replace(old, ":: (pc == P0) && next_pc == W1  ->"), "cc2.pml")
    results = _verdicts(path, properties=("agreement",))
    assert results["agreement"].verdict == "violated" and results["agreement"].counterexample.replayed


@SKIP
def test_bcast_byz_init_is_strb_with_every_process_initiated():
    """Without the back edge AC -> SE the derived automaton is Srikanth–Toueg's (corpus strb,
    ISOLA'18 strb.ta) with every process holding the init message: IT -> SE unconditionally."""
    rta = read_automaton(SPIN13 / "bcast-byz-init.pml").rta
    assert _rules(rta) == {
        "IT->SE [true] nsnt_echo",
        "IT->AC [received(nsnt_echo) >= N - T] nsnt_echo",
        "SE->AC [received(nsnt_echo) >= N - T]",
        "AC->SE [received(nsnt_echo) >= N - T]",
    }
    if (ISOLA18 / "strb.ta").exists():
        strb = _verdicts(ISOLA18 / "strb.ta")
        assert all(r.verdict == "holds" for r in strb.values())


@SKIP
def test_bcast_byz_init_relay_violated_by_hand():
    """relay = [](ex_acc -> <>all_acc) fails in ByMC's model: with n = 4, t = 1, f = 0 every process
    sends ECHO and accepts; then they take turns at the file's `next_nrcvd_init >= 1 -> next_pc
    = SE` (AC -> SE) and back (SE -> AC): some process is at SE in every configuration of the
    loop, every process moves forever and every message is delivered. The simulator replays the
    lasso on the negated relay (the property as written; tactl's counter-level justice cannot
    express 'each process moves' on a cycle, which is why it has no run there)."""
    from tactl.engines.simulate import Configuration, Step, replay_run
    from tactl.ir.eltl.formula import temporal_query

    rta = read_automaton(SPIN13 / "bcast-byz-init.pml").rta
    ta = load_automaton(SPIN13 / "bcast-byz-init.pml").ta
    relay = next(p for p in rta.properties if p.name == "relay")
    query = temporal_query(ta, relay)
    params = {"N": 4, "T": 1, "F": 0}

    def rule(src, tgt):
        return next(i for i, r in enumerate(ta.rules) if r.source == src and r.target == tgt)

    init = Configuration.of({loc.name: 4 if loc.name == "IT" else 0 for loc in ta.locations},
                            {v: 0 for v in ta.shared})
    prefix = [Step(rule("IT", "SE"), 4), Step(rule("SE", "AC"), 4), Step(rule("AC", "SE"), 1)]
    cycle = [Step(rule("AC", "SE"), 1), Step(rule("SE", "AC"), 1)]
    replay = replay_run(ta, query.negation, True, params, init, prefix, cycle=cycle)
    assert replay.ok, replay.message


@SKIP
def test_bcast_byz_full_is_refused_as_the_unimplemented_language(cli):
    out = cli("check", SPIN13 / "bcast-byz-full.pml")
    assert out.code == 2
    assert re.search(r"bcast-byz-full\.pml:10:1: 'const' belongs to ByMC's unimplemented extended Promela",
                     out.err), out.err
    assert "^" in out.err and "Traceback" not in out.err


# ------------------------------------------------------------------ differential: concrete steps
# An independent interpreter of the atomic step on concrete values (Promela's nondeterministic
# `if` with `else`, C division, `assume` blocking, `assert` checked): from the initial options,
# a process's (pc, receive counts) is explored under every value of the shared counters up to a
# bound; every step that moves or sends (other than a crash into the file's CR, which tactl adds
# itself) must be a rule of the derived automaton whose guard holds at the counts received.

import itertools  # noqa: E402

from tactl.ir.promela import syntax as P  # noqa: E402
from tactl.ir.evaluate import holds  # noqa: E402
from tactl.ir.promela.reader import parse_promela  # noqa: E402

import operator  # noqa: E402

# C semantics: `/` truncates toward zero (the translation must agree: it proves dividends >= 0)
_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": lambda a, b: int(a / b),
           "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
           "==": operator.eq, "!=": operator.ne, "&&": lambda a, b: bool(a and b),
           "||": lambda a, b: bool(a or b)}
_EVAL = {
    P.PInt: lambda e, env: e.value,
    P.PName: lambda e, env: env[e.name],
    P.PUnary: lambda e, env: (not _ev(e.arg, env)) if e.op == "!" else -_ev(e.arg, env),
    P.PBinary: lambda e, env: _BINARY[e.op](_ev(e.left, env), _ev(e.right, env)),
}


def _ev(e, env):
    return _EVAL[type(e)](e, env)


def _run(stmts, env, shared):
    outs = [(dict(env), ())]
    for s in stmts:
        outs = [(e2, sent + k) for e, sent in outs for e2, k in _one(s, e, shared)]
    return outs


def _one(s, env, shared):
    if isinstance(s, (P.Printf, P.Skip, P.Else)):
        return [(env, ())]
    if isinstance(s, (P.Condition, P.AssumeStmt)):
        return [(env, ())] if _ev(s.expr, env) else []
    if isinstance(s, P.AssertStmt):
        assert _ev(s.expr, env), s.span
        return [(env, ())]
    if isinstance(s, P.Assign):
        v = _ev(s.expr, env)
        # the count the step received, kept apart from the temporaries' resets to 0
        mirror = {"@" + s.var: v} if s.var.startswith("next_nrcvd") and not isinstance(s.expr, P.PInt) else {}
        return [({**env, s.var: v, **mirror}, ())]
    if isinstance(s, P.Incr):
        return [({**env, s.var: env[s.var] + s.delta}, (s.var,) if s.var in shared else ())]
    assert isinstance(s, P.If), s
    enabled = [o for o in s.options if not isinstance(o.body[0], P.Else)
               and (not isinstance(o.body[0], P.Condition) or _ev(o.body[0].expr, env))]
    if not enabled:
        enabled = [o for o in s.options if isinstance(o.body[0], P.Else)]
    return [out for o in enabled for out in _run(o.body, env, shared)]


@SKIP
@pytest.mark.parametrize("name,params,fixed", [
    ("asyn-byzagreement0", {"N": 5, "T": 1, "F": 1}, {}),
    ("bcast-byz-init", {"N": 4, "T": 1, "F": 1}, {"nsnt_init": 1}),
    ("cond-consensus2", {"N": 3, "T": 1, "F": 1}, {}),
])
def test_every_concrete_step_is_a_rule(name, params, fixed):
    path = SPIN13 / f"{name}.pml"
    model = parse_promela(path.read_text(), str(path))
    rta = read_automaton(path).rta
    defines = {d.name: d.value.value for d in model.defines}
    proc = model.proctypes[0]
    loop = next(s for s in proc.body if isinstance(s, P.Labelled))
    step = loop.stmt.options[0].body[0].body
    init = next((s for s in proc.body if isinstance(s, P.If)), None)
    locals_ = {n: (v.value if v is not None else 0) for d in proc.body if isinstance(d, P.Decl) for n, v in d.vars}
    counters = [m.name for m in rta.messages]
    shared = [n for g in model.globals for n, _ in g.vars]
    rcv = {m: next(x for x in locals_ if not x.startswith("next_") and x.startswith("nrcvd")
                   and x[len("nrcvd"):].lstrip("_") == m[len("nsnt"):].lstrip("_")) for m in [*counters, *fixed]}
    by_pc = {int(loc.origin.text.split("=")[1].split()[0]): loc.name for loc in rta.locations}
    base = {**defines, **params, **locals_, **{c: 0 for c in shared}}
    starts = {base["pc"]} if init is None else {e["pc"] for o in init.options for e, _ in _run(o.body, base, shared)}
    n, f = params["N"], params["F"]
    seen = {(pc, tuple(0 for _ in rcv)) for pc in starts}
    queue, checked = list(seen), 0
    values = range(n + 1)
    while queue:
        pc, counts = queue.pop()
        for sent in itertools.product(values, repeat=len(counters)):
            env = {**base, "pc": pc, **dict(zip(rcv.values(), counts)), **dict(zip(counters, sent)), **fixed}
            for crashes in (range(f + 1) if "nfaulty" in shared else [0]):
                env["nfaulty"] = crashes
                for out, sends in _run(step, env, shared):
                    key = (out["pc"], tuple(out[r] for r in rcv.values()))
                    if out["pc"] not in by_pc:  # the file's crash location: tactl's CR
                        assert sends == ("nfaulty",)
                        continue
                    if key not in seen and all(c <= n + f for c in key[1]):
                        seen.add(key)
                        queue.append(key)
                    if out["pc"] == pc and not sends:
                        continue  # a stutter step
                    got = {**params, **{f"received({m})": out["@next_" + rcv[m]] for m in counters}}
                    src, tgt = by_pc[pc], by_pc[out["pc"]]
                    match = [r for r in rta.rules if r.source == src and r.target == tgt
                             and sorted(r.sends) == sorted(sends) and holds(r.guard, got)]
                    assert match, (src, tgt, sends, got)
                    checked += 1
    assert checked > 0


@pytest.mark.parametrize("text", [TWO, INIT])
def test_mangled_snippets_are_refused_with_a_position_never_a_crash(text):
    """Truncations, inserted tokens and deletions of the small models: each translates or is an
    InputError with a position, never another exception."""
    import random

    from tactl.driver.pipeline import parse_promela_loaded

    rng = random.Random(13)
    tokens = ["+", "-", "(", ")", ";", "::", "->", "if", "fi", "atomic", "else", "nx", "nstart", "N",
              "/", "2", "0", "assume(", "assert(", "next_rx", "rs", "&&", "!", "{", "}", "%", "nx++"]
    edits = (lambda p: text[:p], lambda p: f"{text[:p]} {rng.choice(tokens)} {text[p:]}",
             lambda p: text[:p] + text[p + rng.randrange(1, 30):])
    for mangled in (edits[i % 3](rng.randrange(len(text))) for i in range(120)):
        try:
            parse_promela_loaded(mangled, "mangled.pml")
        except InputError as e:
            assert e.render().startswith("mangled.pml")
