"""Hostile inputs, as properties: they never turn a violated property into HOLDS.

The reference automaton is ``viol``: corpus/strb/strb.ta with ``unforgeability`` replaced by
``[](AC == 0)``, which is violated for every n, t, f satisfying the resilience condition (all
correct processes may start in V1, echo, and accept). Whatever a hostile user does to it —
hostile names (class 1), names that the translation generates (class 2), explicit-engine
parameters that leave nothing to explore (class 3), constraints that leave no initial
configuration (class 4) — the answer must stay ``violated``, or become a refusal (exit 2) or
``unknown`` with a reason (exit 3); never ``holds`` (exit 0), never an internal error (exit 4).

Exit statuses: 0 all hold, 1 violated, 2 bad input, 3 unknown/unsupported, 4 internal error.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, GUARD_S
from tactl.ir import print_ta, read_ta, ta_from_json
from tactl.ir.names import identifier_problem
from tactl.ir.ta.json_form import ta_to_json

STRB_TA = CORPUS / "strb" / "strb.ta"
STRB_RTA = CORPUS / "strb" / "strb.rta"

# Function-scoped fixtures (tmp_path, cli) are reused across the examples of one test on purpose:
# every example writes fresh files of its own names into a fresh sub-directory.
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                      HealthCheck.too_slow])


from test_cli_hostile import viol_text  # noqa: E402  (strb.ta reduced to one violated property)


VIOL_TEXT = viol_text()
VIOL_DOC = ta_to_json(read_ta(VIOL_TEXT, "viol.ta").ta)
# Every name declared in viol (any namespace): renaming to one of them may be refused as a clash.
VIOL_NAMES = frozenset(
    [*VIOL_DOC["locals"], *VIOL_DOC["shared"], *VIOL_DOC["parameters"],
     *(d["name"] for d in VIOL_DOC["defines"]), *(loc["name"] for loc in VIOL_DOC["locations"])])
PROPERTY_NAMES = frozenset(p["name"] for p in VIOL_DOC["properties"])


class Dirs:
    """A fresh directory per Hypothesis example under the test's tmp_path."""

    def __init__(self, root: Path) -> None:
        self.root, self.count = root, 0

    def new(self) -> Path:
        self.count += 1
        d = self.root / f"ex{self.count}"
        d.mkdir()
        return d


@pytest.fixture
def dirs(tmp_path) -> Dirs:
    return Dirs(tmp_path)


def clean(r) -> None:
    """A refusal is a message, never a traceback or an internal error."""
    assert r.code != 4, r.out + r.err
    assert "Traceback" not in r.err and "internal error" not in r.err.lower(), r.err


def refused_with_message(r, path: Path) -> None:
    assert r.code == 2
    clean(r)
    assert r.err.strip(), "a refusal needs a message"
    assert r.err.startswith(str(path)), r.err


def json_report(r) -> dict:
    report = json.loads(r.out)
    assert report["exit_code"] == r.code
    return report


# ------------------------------------------------------------------ structural renaming


def _rename_in_expr(e, old: str, new: str):
    if isinstance(e, dict):
        if "name" in e:
            return {**e, "name": new} if e["name"] == old else e
        return {**e, "args": [_rename_in_expr(a, old, new) for a in e["args"]]}
    return e


def _rename_in_expressions(doc: dict, old: str, new: str) -> None:
    for d in doc["defines"]:
        d["expr"] = _rename_in_expr(d["expr"], old, new)
    for key in ("assumptions", "inits"):
        doc[key] = [_rename_in_expr(e, old, new) for e in doc[key]]
    for r in doc["rules"]:
        r["guard"] = _rename_in_expr(r["guard"], old, new)
        for u in r["updates"]:
            u["expr"] = _rename_in_expr(u["expr"], old, new)
            if u["var"] == old:
                u["var"] = new
    for p in doc["properties"]:
        p["formula"] = _rename_in_expr(p["formula"], old, new)


def rename_parameter(doc: dict, old: str, new: str) -> dict:
    doc = copy.deepcopy(doc)
    assert old in doc["parameters"]
    doc["parameters"] = [new if p == old else p for p in doc["parameters"]]
    _rename_in_expressions(doc, old, new)
    return doc


def rename_location(doc: dict, old: str, new: str) -> dict:
    doc = copy.deepcopy(doc)
    assert any(loc["name"] == old for loc in doc["locations"])
    for loc in doc["locations"]:
        if loc["name"] == old:
            loc["name"] = new
    for r in doc["rules"]:
        r["from"] = new if r["from"] == old else r["from"]
        r["to"] = new if r["to"] == old else r["to"]
    _rename_in_expressions(doc, old, new)
    return doc


def rename_property(doc: dict, old: str, new: str) -> dict:
    doc = copy.deepcopy(doc)
    assert any(p["name"] == old for p in doc["properties"])
    for p in doc["properties"]:
        if p["name"] == old:
            p["name"] = new
    return doc


RENAMES = {
    "parameter": lambda doc, new: rename_parameter(doc, "t", new),
    "location": lambda doc, new: rename_location(doc, "SE", new),
    "property": lambda doc, new: rename_property(doc, "unforgeability", new),
}


def fresh(kind: str, name: str) -> bool:
    """A valid identifier that clashes with nothing in viol: renaming to it must keep 'violated'."""
    if identifier_problem(name) is not None:
        return False
    return name not in (PROPERTY_NAMES if kind == "property" else VIOL_NAMES)


# -------------------------------------------------------------------------- name strategy

SMTLIB_WORDS = ["and", "or", "xor", "not", "distinct", "as", "_", "!", "let", "forall", "exists",
                "ite", "assert", "check-sat", "check_sat", "div", "mod", "abs", "true", "false",
                "select", "store", "Int", "Bool", "Real", "declare-const", "define-fun", "push",
                "pop", "exit", "set-logic", "QF_LIA", "par", "NUMERAL", "match", "p", "p.t",
                "p.n", "l.SE", "=>", "=", "<=", "+", "-", "*"]
TA_WORDS = ["skel", "thresholdAutomaton", "local", "shared", "parameters", "define",
            "assumptions", "locations", "inits", "rules", "specifications", "when", "do",
            "unchanged", "reset", "received", "send", "rta", "faults", "timing", "messages",
            "initial", "ns_ECHO", "nsf_ECHO", "ncrashed", "CR", "N", "T", "F", "n", "f", "v",
            "echo", "RELAY", "ACCEPT", "V0", "V1", "AC", "STRB", "correctness", "relay",
            "unforgeability"]
HOSTILE = ["", " ", "\n", "\r\n", "\t", "\x00", "\x07", "\x1b[31m", "\x7f", "\u0085", "\u2028",
           "\ufeff", "t\u200b", "a\nb", "|", "||", "|t|", "t|", "\\", "\\|", ";", ";t", "t;",
           "(assert false)", "x\n(assert false)\n;", ")(assert false)(", "t (check-sat)",
           "|)(assert false)(|", '"', "'", "#x1", "@t", ":named", "(", ")", "0", "1t", "-t",
           "a b", "t.", ".t", "../x", "/etc/passwd", "a/b", "é", "∀", "ｔ", "t\u0301", "\U0001F600",
           "x" * 199, "x" * 200, "x" * 201, "A" * 5000, "_" * 200, "__", "_0"]

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,30}", fullmatch=True)
names = st.one_of(
    st.sampled_from(SMTLIB_WORDS + TA_WORDS + HOSTILE),
    identifiers,
    st.text(max_size=12),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7f), max_size=12),
)


# ------------------------------------------------------- class 1: names never change a verdict


@pytest.mark.parametrize("kind", sorted(RENAMES))
@settings(max_examples=40, **SETTINGS)
@given(name=names)
@example(name="x\n(assert false)\n;")
@example(name="and")
@example(name="x" * 200)
def test_names_never_change_the_verdict(cli, dirs, kind, name):
    d = dirs.new()
    doc = RENAMES[kind](VIOL_DOC, name)
    path = d / "viol.json"
    path.write_text(json.dumps(doc))
    r = cli("check", path, "--json")
    clean(r)
    event(f"json check exit {r.code}")
    assert r.code in (1, 2), (r.code, r.out, r.err)
    if fresh(kind, name):
        assert r.code == 1, r.err
    if r.code == 2:
        refused_with_message(r, path)
        assert not r.out.strip() or json.loads(r.out)["exit_code"] == 2
        return
    report = json_report(r)
    assert report["properties"][0]["verdict"] == "violated"
    assert report["properties"][0]["name"] == (name if kind == "property" else "unforgeability")
    assert all(p["verdict"] != "holds" for p in report["properties"])

    # The same automaton through the text path: print it as .ta, check that file.
    ta = ta_from_json(doc, str(path))  # the JSON reader accepted it: every name is an identifier
    assert identifier_problem(name) is None
    text = print_ta(ta)
    assert read_ta(text, "printed.ta").ta == ta
    ta_path = d / "viol.ta"
    ta_path.write_text(text)
    rt = cli("check", ta_path, "--json")
    clean(rt)
    event(f"text check exit {rt.code}")
    if rt.code == 2:  # a keyword the text reader will not take as a name: a positioned refusal
        assert re.match(re.escape(str(ta_path)) + r":\d+:\d+: ", rt.err), rt.err
        return
    assert rt.code == 1, (rt.out, rt.err)
    assert json_report(rt)["properties"][0]["verdict"] == "violated"


def _emit_and_solve(cli, d: Path, doc: dict):
    """Emit viol's safety query as SMT-LIB; every installed solver must answer sat (violated)."""
    from tactl.engines import solvers

    path = d / "viol.json"
    path.write_text(json.dumps(doc))
    out = d / "out"
    r = cli("emit", path, "--to", "smtlib", "-o", out)
    clean(r)
    assert r.code in (0, 2), (r.code, r.err)
    escaped = [p for p in d.rglob("*") if p != path and out not in (p, *p.parents)]
    assert not escaped, escaped  # nothing is written outside -o, whatever the property's name
    if r.code == 2:
        refused_with_message(r, path)
        assert not out.exists() or not any(out.iterdir())
        return None
    queries = sorted(out.iterdir())
    assert len(queries) == 1 and queries[0].suffix == ".smt2", queries
    answers = {}
    for solver in solvers.SOLVERS:
        if solvers.available(solver) is None:
            continue
        run = solvers.run(solver, queries[0], timeout_s=GUARD_S)
        answers[solver] = (run.answer, run.message)
    return answers


@pytest.mark.parametrize("kind", sorted(RENAMES))
@settings(max_examples=6, **SETTINGS)
@given(name=st.one_of(st.sampled_from(SMTLIB_WORDS + TA_WORDS + HOSTILE), identifiers))
@example(name="assert")
@example(name="_")
def test_emitted_queries_with_hostile_names_are_sat_for_every_solver(cli, dirs, kind, name):
    from tactl.engines import solvers

    if solvers.available("z3") is None:
        pytest.skip("z3 is not installed (the z3-solver wheel provides it)")
    answers = _emit_and_solve(cli, dirs.new(), RENAMES[kind](VIOL_DOC, name))
    event("refused" if answers is None else f"solved by {', '.join(sorted(answers))}")
    if fresh(kind, name):
        assert answers is not None
    if answers is not None:
        assert "z3" in answers
        for solver, (answer, message) in answers.items():
            assert answer == solvers.SAT, (solver, name, message)


def test_emitted_query_cvc5_is_installed_or_skipped():
    """Says whether the solver cross-check above ran cvc5 too (z3 always runs when present)."""
    from tactl.engines import solvers

    if solvers.available("cvc5") is None:
        pytest.skip("cvc5 is not installed (pip install cvc5): emitted queries checked with z3 only")


# ------------------------------------------- class 2: generated names never change a verdict

FAULTS = ["byzantine(f)", "crash(f)", "omission(f)", "symmetric(f)", "clean_crash(f)"]
# Names the translation generates for strb.rta's message ECHO and crash models: always reserved.
GENERATED = ["ns_ECHO", "nsf_ECHO", "ncrashed"]
RTA_VIOL = STRB_RTA.read_text().replace("V1 == 0 -> [](AC == 0)", "[](AC == 0)")
assert RTA_VIOL != STRB_RTA.read_text()
RTA_WORDS = frozenset(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", RTA_VIOL))

generated_like = st.one_of(
    st.sampled_from(GENERATED + ["CR", "CR_", "CR__", "ns_X", "nsf_X", "ns_", "nsf_", "ns_ECHO_",
                                 "ncrashed_", "ns_echo", "NS_ECHO"]),
    identifiers,
)


def rta_with(faults: str, location: str, parameter: str | None) -> str:
    """RTA_VIOL with the fault model, the location SE and (maybe) the parameter t renamed."""
    text = RTA_VIOL.replace("faults byzantine(f);", f"faults {faults};")
    mapping = {"SE": location, **({"t": parameter} if parameter is not None else {})}
    return re.sub(r"\b(SE|t)\b", lambda m: mapping.get(m.group(1), m.group(1)), text)


@settings(max_examples=30, **SETTINGS)
@given(faults=st.sampled_from(FAULTS), location=generated_like,
       parameter=st.one_of(st.none(), generated_like))
@example(faults="crash(f)", location="CR", parameter=None)
@example(faults="crash(f)", location="CR_", parameter="ncrashed")
@example(faults="byzantine(f)", location="ns_ECHO", parameter=None)
@example(faults="crash(f)", location="nsf_ECHO", parameter=None)
@example(faults="crash(f)", location="V2", parameter="nsf_ECHO")
def test_generated_names_never_change_the_verdict(cli, dirs, faults, location, parameter):
    path = dirs.new() / "viol.rta"
    path.write_text(rta_with(faults, location, parameter))
    r = cli("check", path, "-p", "unforgeability")  # the violated one (the liveness ones hold)
    clean(r)
    event(f"exit {r.code}")
    assert r.code in (1, 2), (r.code, r.out, r.err)
    chosen = [location] + ([parameter] if parameter is not None else [])
    if any(name in GENERATED for name in chosen):
        assert r.code == 2 and "reserved" in r.err, r.err
    elif all(name not in RTA_WORDS and identifier_problem(name) is None for name in chosen) \
            and len(set(chosen)) == len(chosen):
        assert r.code == 1 and "VIOLATED" in r.out, (r.out, r.err)
    if r.code == 2:
        refused_with_message(r, path)
        assert "^" in r.err  # positioned in the .rta text, with a caret
    else:
        assert "VIOLATED" in r.out and "HOLDS" not in r.out


@pytest.mark.parametrize("faults, location, parameter", [
    ("crash(f)", "SE", "CR"), ("clean_crash(f)", "SE", "CR"), ("crash(f)", "CR", "CR_")])
def test_crash_location_clashing_with_a_parameter(cli, tmp_path, faults, location, parameter):
    path = tmp_path / "viol.rta"
    path.write_text(rta_with(faults, location, parameter))
    r = cli("check", path)
    clean(r)
    assert r.code in (1, 2), (r.code, r.err)
    if r.code == 2:
        refused_with_message(r, path)


# --------------------------------- class 3: the explicit engine never says holds having checked nothing

# UNBOUNDED (tactl.engines.explicit) is 10**6: an initial value that may exceed it is capped at
# --bound. Values of n - f between ~100 and 10**6 are left out on purpose: the engine then lists
# up to 20000 initial configurations through z3, which takes minutes (n=2000: ~40 s), and a
# --timeout is not a reliable bound (the alarm can be swallowed in a z3 finalizer). Since f <= 12
# or f >= 10**6 + 20 (then n > 3t >= 3f), every n drawn here has n - f <= 40 or n - f > 10**6.
n_values = st.one_of(st.integers(0, 40), st.integers(10**6 + 20, 10**12),
                     st.sampled_from([10**6 + 13, 10**9, 10**12 - 1, 10**12]))
small_or_huge = st.one_of(st.none(), st.integers(0, 12), st.integers(10**6 + 20, 10**12))


@settings(max_examples=40, **SETTINGS)
@given(n=n_values, t=small_or_huge, f=small_or_huge, bound=st.integers(0, 6),
       max_states=st.sampled_from([None, 1, 50, 5000]))
@example(n=10_000_000, t=None, f=None, bound=7, max_states=None)
@example(n=10**12, t=None, f=None, bound=6, max_states=None)
@example(n=10**12, t=10**11, f=10**11, bound=0, max_states=None)
@example(n=4, t=None, f=None, bound=0, max_states=1)
@example(n=0, t=None, f=None, bound=6, max_states=None)
def test_explicit_engine_never_holds_on_viol(cli, dirs, n, t, f, bound, max_states):
    path = dirs.new() / "viol.ta"
    path.write_text(VIOL_TEXT)
    args = ["check", path, "--engine", "explicit", "-p", "unforgeability", "--json",
            "--param", f"n={n}", "--bound", str(bound), "--timeout", "20"]
    for name, value in (("t", t), ("f", f)):
        if value is not None:
            args += ["--param", f"{name}={value}"]
    if max_states is not None:
        args += ["--max-states", str(max_states)]
    r = cli(*args)
    clean(r)
    assert r.code in (1, 3), (r.code, r.out, r.err)
    (prop,) = json_report(r)["properties"]
    event(f"exit {r.code}: {prop.get('reason', prop['verdict'])[:40]}")
    assert prop["name"] == "unforgeability" and prop["verdict"] != "holds"
    if r.code == 1:
        assert prop["verdict"] == "violated"
        assert prop["counterexample"]["replayed"] is True
        assert prop["counterexample"]["parameters"]["n"] == n
    else:  # undecided, or vacuous: no configuration at these parameters (never a plain holds)
        assert prop["verdict"] in ("unknown", "holds vacuously")
        if prop["verdict"] == "holds vacuously":
            assert json_report(r)["initial_configurations"] == "none"
        assert isinstance(prop.get("reason"), str) and prop["reason"].strip(), prop


# ------------------------------------------------------------- class 4: vacuity never becomes holds

RC_ATOMS = {  # text template -> the atom as a predicate on (n, t, f)
    "n < {K}": lambda n, t, f, K: n < K,
    "n > {K}": lambda n, t, f, K: n > K,
    "n == {K}": lambda n, t, f, K: n == K,
    "t > {K}": lambda n, t, f, K: t > K,
    "f > {K}": lambda n, t, f, K: f > K,
    "f > t + {K}": lambda n, t, f, K: f > t + K,
}
INIT_VARS = ["SE", "AC", "echo", "V0"]


def number(template: str, K: int) -> str:
    """The atom's text; a negative constant after '+' is written as a subtraction."""
    if K < 0 and "+ {K}" in template:
        return template.replace("+ {K}", f"- {-K}")
    return template.format(K=K)


def rc_satisfiable(atom, K: int) -> bool:
    """Brute force, independent of tactl: n > 3t, t >= f >= 0 and the atom (K <= 20, so n, t up to
    3 * 22 + 1 and 22 cover every atom's witnesses)."""
    return any(atom(n, t, f, K) for t in range(23) for f in range(t + 1)
               for n in range(3 * t + 1, 3 * 23 + 2))


def init_satisfiable(var: str, K: int) -> bool:
    """viol's inits already say SE == AC == echo == 0 and V0 + V1 == n - f (>= 1 for some n)."""
    return K == 0 if var != "V0" else K >= 0


constraint = st.one_of(
    st.tuples(st.just("rc"), st.sampled_from(sorted(RC_ATOMS)), st.integers(-3, 20)),
    st.tuples(st.just("init"), st.sampled_from(INIT_VARS), st.integers(-2, 3)),
)


@settings(max_examples=40, **SETTINGS)
@given(extra=constraint, select=st.booleans())
@example(extra=("rc", "n < {K}", 0), select=False)
@example(extra=("rc", "f > t + {K}", 0), select=True)
@example(extra=("init", "SE", -1), select=False)
@example(extra=("init", "V0", -2), select=False)
@example(extra=("init", "V0", 3), select=False)
def test_vacuity_never_becomes_holds(cli, dirs, extra, select):
    where, what, K = extra
    if where == "rc":
        atom = number(what, K)
        text = VIOL_TEXT.replace("assumptions (3)", "assumptions (4)").replace(
            "f >= 0;", f"f >= 0;\n    {atom};", 1)
        satisfiable = rc_satisfiable(RC_ATOMS[what], K)
    else:
        atom = f"{what} == {K}"
        text = VIOL_TEXT.replace("inits (4)", "inits (5)").replace(
            "echo == 0;", f"echo == 0;\n    {atom};", 1)
        satisfiable = init_satisfiable(what, K)
    assert atom in text
    path = dirs.new() / "viol.ta"
    path.write_text(text)
    r = cli("check", path, "--json", *(["-p", "unforgeability"] if select else []))
    clean(r)
    assert r.code in (1, 3), (atom, r.code, r.out, r.err)
    report = json_report(r)
    event(f"exit {r.code}")
    safety = [p for p in report["properties"] if p["kind"] == "safety"]
    assert [p["name"] for p in safety] == ["unforgeability"]
    assert all(p["verdict"] != "holds" for p in report["properties"])
    if satisfiable:  # one extra atom that leaves initial configurations: still violated
        assert r.code == 1 and safety[0]["verdict"] == "violated", (atom, report)
        assert report["initial_configurations"] != "none"
    else:
        assert r.code == 3, (atom, report)
        assert all(p["verdict"] == "holds vacuously" and p.get("reason") for p in safety), report
        assert report["initial_configurations"] == "none", report
        assert report["warnings"] and all(isinstance(w, str) and w for w in report["warnings"])
