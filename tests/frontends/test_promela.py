"""ByMC's Parametric Promela front end: every FMCAD'13 benchmark is read, translated
and checked, with the verdicts ByMC published (fmcad13/README.md, the FMCAD'13 paper);
the derived automaton agrees with the hand-written ones of the same algorithm; bad input is exit
2 with a position; the emitted .rta round-trips.

The benchmarks are used by path (../shared/benchmarks/bymc-promela, ByMC's licence) and the
tests skip when they are absent.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import CORPUS, GUARD_S, ISOLA18, SHARED_BENCHMARKS
from tactl.driver.inputs import load_automaton, read_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.ir.errors import InputError
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta
from tactl.util import deadline

FMCAD13 = SHARED_BENCHMARKS / "bymc-promela" / "fmcad13"
SKIP = pytest.mark.skipif(not FMCAD13.is_dir(), reason=f"ByMC Promela benchmarks not found at {FMCAD13}")

# The published verdicts. "holds": every listed property holds; for the variants whose resilience
# condition is too weak (FleTp1: f <= t + 1; Nge3T: n >= 3t; Nge2T: n >= 2t) ByMC reports
# violations: bcast-byz-Nge3T has U and C holding and R violated.
PUBLISHED = {
    "bcast-byz": {"unforg": "holds", "corr": "holds", "relay": "holds"},
    "bcast-byz-Nge3T": {"unforg": "holds", "corr": "holds", "relay": "violated"},
    "bcast-byz-FleTp1": "some violated",
    "bcast-symm": {"unforg": "holds", "corr": "holds", "relay": "holds"},
    "bcast-symm-FleTp1": "some violated",
    "bcast-omit": {"unforg": "holds", "corr": "holds", "relay": "holds"},
    "bcast-omit-Nge2T": "some violated",
    "bcast-clean": {"unforg": "holds", "corr": "holds", "relay": "holds"},
}
# bcast-fisman-crash: test_fisman_crash_is_frb_with_any_number_of_crashes
# Where tactl's verdict differs from the published one, and why (docs/promela.md).
# None since bcast-clean is read as ByMC's model (faults bound: its Fnc crashed processes keep
# running, nrcvd <= max(0, nsnt - Fnc)), not as tactl's clean_crash, whose crashed processes stop
# in CR and make all(pc == IT) true after the start (tests/frontends/test_promela_faults.py).
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}


def check(path: Path):
    loaded = load_automaton(path)
    with deadline.clock(GUARD_S):
        return {r.name: r for r in check_automaton(loaded.ta, str(path), CheckOptions()).results}


@SKIP
@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_fmcad13_verdicts_are_the_published_ones(name):
    results = check(FMCAD13 / f"{name}.pml")
    assert set(results) == {"unforg", "corr", "relay"}
    for r in results.values():
        if r.verdict == "violated":
            assert r.counterexample is not None and r.counterexample.replayed, r.name
    wanted = PUBLISHED[name]
    if wanted == "some violated":
        assert any(r.verdict == "violated" for r in results.values()), {n: r.verdict for n, r in results.items()}
        return
    for prop, verdict in wanted.items():
        expected = KNOWN_DIFFERENCES.get((name, prop), verdict)
        assert results[prop].verdict == expected, (prop, results[prop].verdict, results[prop].reason)


@SKIP
def test_fisman_crash_is_frb_with_any_number_of_crashes():
    """bcast-fisman-crash: DH (entered by `nsntF++`) is tactl's crash location, the rules are
    those of the hand-written frb (corpus/frb/frb.rta, ISOLA'18 frb.ta). The file bounds no
    crash count (assume N > 1 only, and `pc == RI -> next_pc = DH` is always possible), so every
    process may die: corr is violated by a run in which all of them crash, a run of the file's own
    model (each RI process takes the DH branch). Under frb's resilience condition (fewer crashes
    than processes) the verdicts are frb's."""
    import dataclasses

    from tactl.ir.expr import Compare, Name
    from tactl.passes.rta_to_ta.eliminate import translate

    path = FMCAD13 / "bcast-fisman-crash.pml"
    rta = read_automaton(path).rta
    assert rta.faults.model.value == "crash" and [loc.name for loc in rta.locations] == ["IT", "RI", "AC"]
    frb = read_automaton(CORPUS / "frb" / "frb.rta").rta
    rename = {"IT": "V0", "RI": "V1", "AC": "AC"}
    ours = {(rename[r.source], rename[r.target], r.sends != ()) for r in rta.rules}
    assert ours == {(r.source, r.target, r.sends != ()) for r in frb.rules}
    results = check(path)
    assert results["unforg"].verdict == results["relay"].verdict == "holds"
    assert results["fisman_kupferman_lustig"].verdict == "holds"
    corr = results["corr"]
    assert corr.verdict == "violated" and corr.counterexample.replayed
    n = corr.counterexample.parameters["N"]
    assert corr.counterexample.parameters["F"] == n  # every process crashes
    fewer = dataclasses.replace(rta, assumptions=rta.assumptions + (Compare("<", Name("F"), Name("N")),))
    with deadline.clock(GUARD_S):
        again = check_automaton(translate(fewer).ta, str(path), CheckOptions()).results
    assert {r.name: r.verdict for r in again}["corr"] == "holds"
    frb_results = check(CORPUS / "frb" / "frb.rta")
    assert frb_results["correctness"].verdict == "holds"
    if (ISOLA18 / "frb.ta").exists():
        isola = check(ISOLA18 / "frb.ta")
        assert isola["unforg"].verdict == results["unforg"].verdict
        assert isola["relay"].verdict == results["relay"].verdict
        assert isola["corr"].verdict == "holds"  # n > t >= f: as ours with F < N


@SKIP
@pytest.mark.parametrize("old,new,says", [
    ("!(next_nrcvd <= nsnt + nsntF)", "!(next_nrcvd <= nsnt + nsntF + N)", "several send counters"),
    ("atomic in_transit = some(Proc:nrcvd < nsnt);", "atomic in_transit = some(Proc:pc == IT);",
     "naming the counter whose messages are"),
    ("          :: pc == RI ->\n                next_pc = DH;", "          :: pc == IT ->\n                next_pc = DH;",
     "mirror a correct sending step"),
])
def test_crash_variants_outside_the_pattern_are_refused(tmp_path, old, new, says):
    text = (FMCAD13 / "bcast-fisman-crash.pml").read_text()
    assert old in text, old
    path = tmp_path / "bad.pml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(InputError) as e:
        read_automaton(path)
    assert says in e.value.render() and e.value.first.span is not None


@SKIP
def test_derived_automaton_agrees_with_the_hand_written_ones():
    """bcast-byz is Srikanth–Toueg's broadcast: corpus/strb/strb.rta and ISOLA'18's strb.ta."""
    ours = check(FMCAD13 / "bcast-byz.pml")
    corpus = check(CORPUS / "strb" / "strb.rta")
    names = {"unforg": "unforgeability", "corr": "correctness", "relay": "relay"}
    for prop, theirs in names.items():
        assert ours[prop].verdict == corpus[theirs].verdict, prop
    if (ISOLA18 / "strb.ta").exists():
        isola = check(ISOLA18 / "strb.ta")
        for prop in names:
            assert ours[prop].verdict == isola[prop].verdict, prop


SPIN13 = SHARED_BENCHMARKS / "bymc-promela" / "spin13-parameterized"


@SKIP
@pytest.mark.parametrize("promela,hand,same,differ", [
    # Bracha–Toueg's asynchronous Byzantine agreement: ISOLA'18's aba.ta
    ("asyn-byzagreement0", "aba", ("unforg", "corr"), {}),
    # Fisman et al.'s folklore broadcast with crashes: frb.ta (its resilience condition bounds the
    # crashes, the Promela file does not: corr, see test_fisman_crash_is_frb_with_any_number_of_crashes)
    ("bcast-fisman-crash", "frb", ("unforg", "relay"), {}),
    # condition-based consensus: cc.ta; the SPIN'13 file sends its 11 message from P1, which no
    # process reaches with that value (a typo ISOLA'18's cc.pml does not have), so its termination
    # fails (docs/promela.md)
    ("cond-consensus2", "cc", ("validity0", "validity1", "agreement"), {"termination": ("violated", "holds")}),
])
def test_spin13_files_agree_with_isola18s_hand_written_automata(promela, hand, same, differ):
    if not (ISOLA18 / f"{hand}.ta").exists():
        pytest.skip(f"ISOLA'18 automata not found at {ISOLA18}")
    ours, theirs = check(SPIN13 / f"{promela}.pml"), check(ISOLA18 / f"{hand}.ta")
    for prop in same:
        assert ours[prop].verdict == theirs[prop].verdict, (prop, ours[prop].verdict, theirs[prop].verdict)
    for prop, (mine, published) in differ.items():
        assert (ours[prop].verdict, theirs[prop].verdict) == (mine, published), prop
        assert ours[prop].counterexample is not None and ours[prop].counterexample.replayed


@SKIP
def test_locations_rules_and_fault_models():
    byz = read_automaton(FMCAD13 / "bcast-byz.pml").rta
    assert [loc.name for loc in byz.locations] == ["IT", "RI", "SE", "AC"]
    assert byz.initial == ("IT", "RI")
    assert byz.faults.model.value == "byzantine" and byz.faults.parameters == ("F",)
    assert byz.parameters[0] == "N"
    # the monotone receive count: no step leaves AC (entered with n - t) by a guard below n - t
    assert not [r for r in byz.rules if r.source == "AC"]
    # every rule maps back to Promela lines
    assert all(r.origin is not None and r.origin.lines for r in byz.rules)
    models = {n: read_automaton(FMCAD13 / f"{n}.pml").rta.faults for n in
              ("bcast-symm", "bcast-omit", "bcast-clean")}
    assert (models["bcast-symm"].model.value, models["bcast-symm"].parameters) == ("symmetric", ("Fp", "Fs"))
    assert (models["bcast-omit"].model.value, models["bcast-omit"].parameters) == ("omission", ("Fo",))
    assert models["bcast-clean"].model.value == "bound"  # ByMC's clean crashes keep running
    # symmetric: RI cannot receive (pc != RI -> receive), so RI goes to SE only, never to AC
    symm = read_automaton(FMCAD13 / "bcast-symm.pml").rta
    assert {r.target for r in symm.rules if r.source == "RI"} == {"SE"}


@SKIP
@pytest.mark.parametrize("name", sorted(PUBLISHED) + ["bcast-fisman-crash"])
def test_emitted_rta_round_trips(name):
    rta = read_automaton(FMCAD13 / f"{name}.pml").rta
    text = print_rta(rta, source_map=True)
    again = read_rta(text, "again.rta").rta
    assert again == rta


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    text = (FMCAD13 / "bcast-byz.pml").read_text()
    assert old in text
    path = tmp_path / "bad.pml"
    path.write_text(text.replace(old, new, 1))
    return path


@SKIP
@pytest.mark.parametrize("old,new,says", [
    ("int nsnt = 0;", "int nsnt = 0 +;", "unexpected"),                     # malformed
    ("nsnt++;", "nsnt = nsnt + 2;", "shared variable 'nsnt'"),               # unsupported construct
    ("!(next_nrcvd <= nsnt + F)", "!(next_nrcvd <= nsnt + 2 * F)", "sum of names"),  # absurd bound
    ("!(next_nrcvd <= nsnt + F)", "!(next_nrcvd <= nsnt - F)", "may exceed the receive bound"),
    ("active[N - F]", "active[N - F + T]", "copy count"),                   # absurd copy count
    ("atomic ex_acc = some(Proc:pc == AC);", "atomic ex_acc = some(Proc:nrcvd > 1);", "receive variable"),
    ("ltl relay {", "chan c = [1] of {byte};\nltl relay {", "unexpected"),  # unsupported syntax
])
def test_bad_input_is_exit_2_with_a_position(cli, tmp_path, old, new, says):
    path = _variant(tmp_path, old, new)
    out = cli("check", path)
    assert out.code == 2, out.err
    assert re.search(rf"{re.escape(str(path))}:\d+:\d+: ", out.err), out.err
    assert says in out.err and "^" in out.err and "Traceback" not in out.err


FIXED_SIZE = """#define N 4
mtype = { ECHO };
chan buf[N] = [1] of { mtype };
active[N] proctype Proc() { end: do :: buf[_pid]?ECHO od }
"""


def test_a_fixed_size_spin_model_is_named_as_such(cli, tmp_path):
    # ByMC's spin13 folder keeps fixed-size channel models (bcast-byz-chan*.pml) beside the
    # parametric ones: the refusal must say what the file is, not only where the parser stopped.
    path = tmp_path / "chan.pml"
    path.write_text(FIXED_SIZE)
    out = cli("check", path)
    assert out.code == 2, out.err
    assert f"{path}:2:1: unexpected 'mtype'" in out.err and "^" in out.err
    assert "no 'symbolic' parameter" in out.err and "fixed-size SPIN model" in out.err
    # with a symbolic parameter the same construct is only "not in the subset"
    path.write_text("symbolic int T;\n" + FIXED_SIZE)
    out = cli("check", path)
    assert out.code == 2 and "unexpected 'mtype'" in out.err and "fixed-size" not in out.err, out.err


@SKIP
def test_counterexample_prints_promela_lines(cli):
    out = cli("check", FMCAD13 / "bcast-byz-Nge3T.pml", "--property", "relay")
    assert out.code == 1, out.err
    assert "in the Promela (" in out.out and 'next_pc = SE;' in out.out


@SKIP
def test_parse_command_reads_promela(cli, tmp_path):
    target = tmp_path / "byz.rta"
    out = cli("parse", FMCAD13 / "bcast-byz.pml", "-o", target)
    assert out.code == 0, out.err
    assert read_rta(target.read_text(), str(target)).rta == read_automaton(FMCAD13 / "bcast-byz.pml").rta
    assert "fairness" in out.err  # the note on which justice is used


# ------------------------------------------------------------------ differential: concrete steps
# An independent interpreter of ByMC's atomic step over concrete values (one process, the shared
# counter any value a run may have): every step it takes that moves or sends must be a rule of the
# derived automaton whose guard holds at the count the step received. This is the soundness of
# the translation (the monotone lower bounds included) on small parameter values.

from tactl.ir.promela import syntax as P  # noqa: E402
from tactl.ir.evaluate import holds  # noqa: E402
from tactl.ir.promela.reader import parse_promela  # noqa: E402

_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
        "&&": lambda a, b: bool(a) and bool(b), "||": lambda a, b: bool(a) or bool(b)}


def _ev(e, env):
    if isinstance(e, P.PInt):
        return e.value
    if isinstance(e, P.PName):
        return env[e.name]
    if isinstance(e, P.PUnary):
        v = _ev(e.arg, env)
        return (not v) if e.op == "!" else -v
    return _OPS[e.op](_ev(e.left, env), _ev(e.right, env))


def _run(stmts, env):
    """Every outcome (env, sends) of the statements, Promela's nondeterministic ``if``."""
    outs = [(dict(env), 0)]
    for s in stmts:
        nxt = []
        for e, sent in outs:
            nxt += [(e2, sent + k) for e2, k in _one(s, e)]
        outs = nxt
    return outs


def _one(s, env):
    if isinstance(s, (P.Printf, P.Skip, P.Else)):
        return [(env, 0)]
    if isinstance(s, P.Condition):
        return [(env, 0)] if _ev(s.expr, env) else []
    if isinstance(s, P.Assign):
        return [({**env, s.var: _ev(s.expr, env)}, 0)]
    if isinstance(s, P.Incr):
        return [({**env, s.var: env[s.var] + s.delta}, 1 if s.var == "nsnt" else 0)]
    assert isinstance(s, P.If), s
    enabled = []
    for o in s.options:
        first = o.body[0]
        if isinstance(first, P.Else):
            continue
        if not isinstance(first, P.Condition) or _ev(first.expr, env):
            enabled.append(o)
    if not enabled:
        enabled = [o for o in s.options if isinstance(o.body[0], P.Else)]
    out = []
    for o in enabled:
        out += _run(o.body, env)
    return out


@SKIP
@pytest.mark.parametrize("name,params", [
    ("bcast-byz", {"N": 4, "T": 1, "F": 1}), ("bcast-byz", {"N": 7, "T": 2, "F": 2}),
    ("bcast-byz-Nge3T", {"N": 6, "T": 2, "F": 2}),
    ("bcast-symm", {"N": 5, "T": 2, "Fp": 2, "Fs": 1}),
    ("bcast-omit", {"N": 5, "T": 2, "To": 2, "Fo": 1}),
    ("bcast-clean", {"N": 5, "Tc": 2, "Fc": 2, "Fnc": 1}),
])
def test_every_concrete_promela_step_is_a_rule(name, params):
    path = FMCAD13 / f"{name}.pml"
    model = parse_promela(path.read_text(), str(path))
    rta = read_automaton(path).rta
    defines = {d.name: d.value.value for d in model.defines}
    proc = model.proctypes[0]
    step = proc.body[-1].stmt.options[0].body[0].body
    init = next(s for s in proc.body if isinstance(s, P.If))
    by_pc = {}
    for loc in rta.locations:
        by_pc[int(loc.origin.text.split("=")[1].split()[0])] = loc.name
    base = {**defines, **params, "next_pc": 0, "next_nrcvd": 0, "nrcvd": 0}
    starts = {(e["pc"], 0) for o in init.options for e, _ in _run(o.body, base)}
    seen, queue, checked = set(starts), list(starts), 0
    n = params["N"]
    while queue:
        pc, nrcvd = queue.pop()
        for nsnt in range(n + 1):  # any value of the send counter (a superset of the runs)
            for env, sends in _run(step, {**base, "pc": pc, "nrcvd": nrcvd, "nsnt": nsnt}):
                key = (env["pc"], env["nrcvd"])
                assert env["next_pc"] == 0 and env["next_nrcvd"] == 0
                if key not in seen:
                    seen.add(key)
                    queue.append(key)
                if env["pc"] == pc and not sends:
                    continue  # a stutter step
                src, tgt = by_pc[pc], by_pc[env["pc"]]
                values = {**params, "received(nsnt)": env["nrcvd"]}
                match = [r for r in rta.rules if r.source == src and r.target == tgt
                         and len(r.sends) == sends and holds(r.guard, values)]
                assert match, (src, tgt, sends, env["nrcvd"], nsnt)
                checked += 1
    assert checked > 0


@SKIP
@pytest.mark.parametrize("path", sorted(FMCAD13.glob("*.pml")) if FMCAD13.is_dir() else [], ids=lambda p: p.stem)
def test_the_files_fairness_is_compared_with_the_derived_justice(path):
    """Each fmcad13 fairness formula's delivery bound is the guaranteed count of its fault model
    (the note says 'agrees'); the derived justice is the one used."""
    notes = [w.message for w in read_automaton(path).warnings if "ltl fairness" in w.message]
    assert len(notes) == 1 and "agrees" in notes[0] and "derived justice" in notes[0], notes


@SKIP
@pytest.mark.parametrize("name", ["bcast-byz", "bcast-fisman-crash"])
def test_mangled_files_are_refused_with_a_position_never_a_crash(name):
    """Truncations, insertions of tokens and deletions of a valid file: each either translates
    or is an InputError with a position — never another exception (fuzzing found a z3 type
    error and an uninitialised attribute this way)."""
    import random

    from tactl.driver.pipeline import parse_promela_loaded

    rng = random.Random(22)
    base = (FMCAD13 / f"{name}.pml").read_text()
    tokens = ["+", "-", "(", ")", ";", "::", "->", "if", "fi", "do", "od", "nsnt", "pc", "N", "0",
              "9" * 30, "{", "}", "atomic", "else", "next_nrcvd", "nrcvd", "&&", "||", "!", "[]",
              "<>", "@", ":", "Proc:pc", "all(", "card(Proc:pc == AC)", "/", "*", "goto", "x++"]
    for i in range(150):
        pos = rng.randrange(len(base))
        if i % 3 == 0:
            text = base[:pos]
        elif i % 3 == 1:
            text = base[:pos] + " " + rng.choice(tokens) + " " + base[pos:]
        else:
            text = base[:pos] + base[pos + rng.randrange(1, 30):]
        try:
            parse_promela_loaded(text, "mangled.pml")
        except InputError as e:
            assert e.render().startswith("mangled.pml")


@SKIP
@pytest.mark.parametrize("path", sorted(FMCAD13.glob("*.pml")) if FMCAD13.is_dir() else [], ids=lambda p: p.stem)
def test_parametric_verdicts_agree_with_the_explicit_engine(path):
    """Differential: the explicit engine enumerates the derived automaton for small parameters
    (every value up to 4, and the parametric counterexample's values). A violation it finds
    must be one the parametric engine reports, and every parametric violation must show up
    explicitly at the counterexample's parameters."""
    assert_engines_agree(path, 4)


def assert_engines_agree(path: Path, bound: int) -> dict:
    """The differential check of the test above for every parameter value up to ``bound``;
    returns the explicit results."""
    loaded = load_automaton(path)
    with deadline.clock(GUARD_S):
        parametric = {r.name: r for r in check_automaton(loaded.ta, str(path), CheckOptions()).results}
    with deadline.clock(GUARD_S):
        small = {r.name: r for r in check_automaton(loaded.ta, str(path),
                                                    CheckOptions(engine="explicit", bound=bound)).results}
    for name, r in small.items():
        if r.verdict == "violated":
            assert parametric[name].verdict == "violated", name
        if parametric[name].verdict == "holds":
            assert r.verdict != "violated", name
    for name, r in parametric.items():
        if r.verdict == "violated":
            with deadline.clock(GUARD_S):
                at = check_automaton(loaded.ta, str(path), CheckOptions(
                    engine="explicit", properties=(name,), parameters=dict(r.counterexample.parameters))).results
            assert at[0].verdict == "violated", (name, r.counterexample.parameters)
    return small


@SKIP
def test_an_unread_proposition_no_formula_uses_is_named_in_a_warning(cli, tmp_path):
    # bcast-byz's `tx_inv` reads the shared counter nsnt: no ltl block uses it, so the verdicts
    # stand, but the user is told it was not read (it would be refused if a formula used it).
    out = cli("parse", FMCAD13 / "bcast-byz.pml", "-o", tmp_path / "byz.rta")
    assert out.code == 0, out.err
    assert re.search(r"bcast-byz\.pml:\d+:\d+: warning: not read, and used by no ltl block .*atomic tx_inv: "
                     r"a proposition over the shared variable 'nsnt'", out.err), out.err
    used = _variant(tmp_path, "ltl relay { [](ex_acc -> <>all_acc) }", "ltl relay { [](tx_inv -> <>all_acc) }")
    out = cli("check", used)
    assert out.code == 2 and "shared variable 'nsnt'" in out.err and "warning: not read" not in out.err, out.err
