"""Issue 8: every hostile input found by the hostile-user review, as a CLI-level test with its exit
status and message. Numbers in the test names are the issue's case numbers.

Exit statuses: 0 all hold, 1 violated, 2 bad input, 3 unknown/unsupported, 4 internal error.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import CORPUS, GUARD_S
from cpu_time import child_cpu
from tactl.ir import print_ta, read_ta
from tactl.ir.ta.json_form import ta_to_json

STRB_TA = CORPUS / "strb" / "strb.ta"
STRB_RTA = CORPUS / "strb" / "strb.rta"
TACTL = [sys.executable, "-m", "tactl.cli"]


def viol_text() -> str:
    """strb.ta with one property, unforgeability changed to [](AC == 0): violated for every
    n, t, f (the liveness properties, which hold, are dropped: every verdict here is "not holds")."""
    text, count = re.subn(r"specifications \(3\) \{.*\n  \}\n", "specifications (1) {\n"
                          "    unforgeability: [](AC == 0);\n  }\n", STRB_TA.read_text(), flags=re.S)
    assert count == 1
    return text


@pytest.fixture
def viol(tmp_path) -> Path:
    path = tmp_path / "viol.ta"
    path.write_text(viol_text())
    return path


def viol_doc() -> dict:
    return ta_to_json(read_ta(viol_text(), "viol.ta").ta)


def write_json(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc))
    return path


def rename(doc, old: str, new: str):
    """``doc`` with every occurrence of the name ``old`` replaced, structurally."""
    if isinstance(doc, dict):
        return {k: (new if v == old and k in ("name", "from", "to", "var") else rename(v, old, new))
                for k, v in doc.items()}
    if isinstance(doc, list):
        return [new if v == old else rename(v, old, new) for v in doc]
    return doc


def clean(r) -> None:
    """A refusal must be a message, never a traceback or an internal error."""
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err


# ------------------------------------------------------------------- 1. names reach SMT-LIB


def test_1_injected_parameter_name_is_refused(cli, tmp_path):
    doc = rename(viol_doc(), "t", "x\n(assert false)\n;")
    r = cli("check", write_json(tmp_path / "inj.json", doc))
    assert r.code == 2 and "is not a name" in r.err and "parameters[1]" in r.err
    clean(r)


@pytest.mark.parametrize("keyword", ["and", "or", "xor", "distinct", "as", "_", "not", "ite",
                                     "let", "assert", "select", "div"])
def test_1_smtlib_keywords_as_names_keep_the_verdict(cli, tmp_path, keyword):
    doc = rename(viol_doc(), "t", keyword)
    r = cli("check", write_json(tmp_path / "kw.json", doc), "-p", "unforgeability")
    assert r.code == 1 and "VIOLATED" in r.out, r.out + r.err
    clean(r)


@pytest.mark.parametrize("keyword", ["and", "_", "as", "distinct"])
def test_1_emitted_queries_with_keyword_names_are_valid_smtlib(cli, tmp_path, keyword):
    from tactl.engines import solvers

    doc = rename(viol_doc(), "t", keyword)
    out = tmp_path / "out"
    r = cli("emit", write_json(tmp_path / "kw.json", doc), "--to", "smtlib", "-o", out)
    assert r.code == 0
    (query,) = out.iterdir()
    text = query.read_text()
    assert f"(declare-const p.{keyword} Int)" in text
    for solver in solvers.SOLVERS:
        if solvers.available(solver) is None:
            continue
        run = solvers.run(solver, query, timeout_s=GUARD_S)
        assert run.answer == solvers.SAT, (solver, run.message)  # sat: the violation is reachable


def test_1_smtlib_comments_stay_comments():
    from tactl.passes.emit.smtlib import comment

    assert "\n" not in comment("a\nb\u2028c\x85d\re") and comment("ok: a-b") == "ok: a-b"


# ------------------------------------------------------------- 2. generated names collide


@pytest.mark.parametrize("name", ["ns_ECHO", "ncrashed"])
def test_2_generated_names_are_reserved_in_rta(cli, tmp_path, name):
    text = re.sub(r"\bSE\b", name, STRB_RTA.read_text())
    path = tmp_path / "coll.rta"
    path.write_text(text)
    for command in ("translate", "check"):
        r = cli(command, path)
        assert r.code == 2 and f"the location name '{name}' is reserved" in r.err
        assert "^" in r.err  # positioned, with a caret
        clean(r)


def test_2_reserved_for_parameters_and_crash_models(cli, tmp_path):
    text = STRB_RTA.read_text().replace("faults byzantine(f);", "faults crash(f);")
    text = re.sub(r"\bt\b", "nsf_ECHO", text)
    path = tmp_path / "crash.rta"
    path.write_text(text)
    r = cli("translate", path)
    assert r.code == 2 and "the parameter name 'nsf_ECHO' is reserved" in r.err


def test_2_renamed_location_keeps_the_verdict(cli, tmp_path):
    base = STRB_RTA.read_text().replace("V1 == 0 -> [](AC == 0)", "[](AC == 0)")
    verdicts = []
    for name in ("SE", "sent_echo"):
        path = tmp_path / f"{name}.rta"
        path.write_text(re.sub(r"\bSE\b", name, base))
        verdicts.append(cli("check", path).code)
    assert verdicts == [1, 1]


def test_2_generated_ta_is_validated_like_a_read_one(monkeypatch):
    """A translation that produced an invalid TA is a tactl bug, reported (exit 4), never used."""
    from tactl.driver import translation
    from tactl.ir.rta.reader import read_rta_file
    from tactl.ir.ta.model import Location

    rta = read_rta_file(STRB_RTA).rta
    real = translation.translate

    def broken(r):
        result = real(r)
        ta = result.ta
        object.__setattr__(result, "ta", type(ta)(**{**ta.__dict__, "locations": (
            *ta.locations, Location("ns_ECHO"))}))
        return result

    monkeypatch.setattr(translation, "translate", broken)
    with pytest.raises(translation.CertificateError) as e:
        translation.run_translate(rta, "strb.rta")
    assert e.value.exit_code == 4 and "translated automaton is invalid" in e.value.message


# ------------------------------------------------------- 3. the explicit engine checks nothing


def test_3_explicit_engine_that_explored_nothing_is_unknown(cli, viol):
    r = cli("check", viol, "--engine", "explicit", "--param", "n=10000000", "-p", "unforgeability",
            "--json")
    assert r.code == 3
    (prop,) = json.loads(r.out)["properties"]
    assert prop["verdict"] == "unknown" and "capped at --bound" in prop["reason"]


def test_3_explicit_engine_with_every_instance_empty_is_unknown(tmp_path):
    from tactl.engines import explicit
    from tactl.ir.eltl.safety import reach_query

    # inits that no configuration satisfies for the small parameters explored
    text = viol_text().replace("SE == 0;", "SE == 0; n >= 100;")
    ta = read_ta(text, "x.ta").ta
    question = reach_query(ta, ta.properties[0])
    result = explicit.check(ta, question, {}, bound=5)
    assert result.verdict == "unknown" and "nothing was checked" in result.reason


# -------------------------------------------------------------------------- 4. vacuous HOLDS


@pytest.mark.parametrize("edit, args, why", [
    (("n > 3 * t;", "n > 3 * t; n < 0;"), (), "the resilience condition is unsatisfiable"),
    (("SE == 0;", "SE == -1;"), (), "no initial configuration satisfies the inits"),
    (None, ("--param", "n=1", "--param", "t=5"), "no parameter values given by --param"),
])
def test_4_empty_initial_configurations_are_reported(cli, tmp_path, edit, args, why):
    text = viol_text() if edit is None else viol_text().replace(*edit)
    path = tmp_path / "v.ta"
    path.write_text(text)
    r = cli("check", path, "-p", "unforgeability", *args, "--json")
    assert r.code == 3
    report = json.loads(r.out)
    assert report["initial_configurations"] == "none" and why in report["warnings"][0]
    assert [p["verdict"] for p in report["properties"]] == ["holds vacuously"]
    assert report["properties"][0]["vacuity"]["status"] == "vacuous"
    text_report = cli("check", path, "-p", "unforgeability", *args)
    assert text_report.code == 3 and f"warning: {why}" in text_report.out


def test_4_unsatisfiable_antecedent_is_vacuous(cli, tmp_path):
    path = tmp_path / "v.ta"
    path.write_text(viol_text().replace("unforgeability: [](AC == 0)", "unforgeability: V0 < 0 -> [](AC == 0)"))
    r = cli("check", path, "-p", "unforgeability", "--json")
    assert r.code == 3
    (prop,) = json.loads(r.out)["properties"]
    assert prop["verdict"] == "holds vacuously" and "antecedent" in prop["reason"]


def test_4_no_specifications_exits_3(cli, tmp_path):
    path = tmp_path / "nospec.ta"
    path.write_text(re.sub(r"specifications.*?\n  }\n", "", viol_text(), flags=re.S))
    r = cli("check", path)
    assert r.code == 3 and "no specifications" in r.out


# ------------------------------------------------------------------------------ 5. devices


def test_5_dash_is_standard_output(cli, tmp_path):
    r = cli("fmt", STRB_TA, "-o", "-")
    assert r.code == 0 and r.out.startswith("skel STRB")
    assert not (Path.cwd() / "-").exists()


def test_5_fifo_output_is_written_through(cli, tmp_path):
    fifo = tmp_path / "pipe.ta"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    import time

    time.sleep(0.2)  # let the reader open its end first
    r = cli("fmt", STRB_TA, "-o", fifo)
    reader.join(10)
    assert r.code == 0 and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received and received[0].startswith(b"skel STRB")


def test_5_fifo_without_reader_is_refused(cli, tmp_path):
    fifo = tmp_path / "pipe.ta"
    os.mkfifo(fifo)
    r = cli("fmt", STRB_TA, "-o", fifo)
    assert r.code == 2 and "no process is reading" in r.err and stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_5_device_node_is_never_replaced(cli, tmp_path):
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    for args in (("fmt", STRB_TA, "-o", node), ("translate", STRB_RTA, "-o", node),
                 ("fmt", STRB_TA, "-o", "/dev/null")):
        r = cli(*args)
        assert r.code == 0, r.err
        assert stat.S_ISCHR(os.stat(node).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_5_dev_stdout_goes_to_standard_output(tmp_path):
    for args in (["fmt", str(STRB_TA), "-o", "/dev/stdout"],
                 ["translate", str(STRB_RTA), "-o", "/dev/stdout"]):
        proc = subprocess.run([*TACTL, *args], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "skel STRB" in proc.stdout
    assert stat.S_ISLNK(os.lstat("/dev/stdout").st_mode) or stat.S_ISCHR(os.stat("/dev/stdout").st_mode)


# ------------------------------------------------------------- 6. format follows extension


def test_6_in_place_keeps_json_json(cli, tmp_path):
    path = write_json(tmp_path / "g.json", viol_doc())
    r = cli("fmt", path, "--in-place")
    assert r.code == 0 and json.loads(path.read_text())["format"] == "tactl.ta"


def test_6_output_format_follows_the_extension(cli, tmp_path):
    assert cli("fmt", STRB_TA, "-o", tmp_path / "o.json").code == 0
    assert json.loads((tmp_path / "o.json").read_text())["format"] == "tactl.ta"
    assert cli("fmt", tmp_path / "o.json", "-o", tmp_path / "o.ta").code == 0
    assert (tmp_path / "o.ta").read_text().startswith("skel STRB")
    assert cli("fmt", STRB_RTA, "-o", tmp_path / "r.json").code == 0
    assert json.loads((tmp_path / "r.json").read_text())["format"] == "tactl.rta"
    assert cli("fmt", tmp_path / "r.json", "-o", tmp_path / "r.rta").code == 0
    assert (tmp_path / "r.rta").read_text().startswith("rta STRB")
    assert cli("translate", STRB_RTA, "-o", tmp_path / "t.json").code == 0
    assert json.loads((tmp_path / "t.json").read_text())["format"] == "tactl.ta"


@pytest.mark.parametrize("args, message", [
    (("fmt", STRB_RTA, "-o", "{tmp}/y.ta"), "fmt keeps a receive automaton a receive automaton"),
    (("fmt", STRB_TA, "-o", "{tmp}/y.rta"), "fmt prints a threshold automaton"),
    (("translate", STRB_RTA, "-o", "{tmp}/y.rta"), "translate writes a threshold automaton"),
    (("fmt", STRB_TA, "-o", "{tmp}/out.txt"), "cannot tell the output format"),
    (("fmt", STRB_TA, "-o", "{tmp}/out"), "cannot tell the output format"),
])
def test_6_a_wrong_extension_is_refused(cli, tmp_path, args, message):
    args = [str(a).format(tmp=tmp_path) for a in args]
    r = cli(*args)
    assert r.code == 2 and message in r.err
    assert not Path(args[-1]).exists()


def test_6_translate_refuses_to_overwrite_its_input_through_a_link(cli, tmp_path):
    source = tmp_path / "a.rta"
    source.write_text(STRB_RTA.read_text())
    (tmp_path / "a.ta").symlink_to(source)
    r = cli("translate", source, "-o", tmp_path / "a.ta")
    assert r.code == 2 and "refusing to overwrite the input" in r.err
    assert source.read_text() == STRB_RTA.read_text()


# ------------------------------------------------------------------------------ 7. symlinks


def test_7_in_place_rewrites_a_symlinks_target(cli, tmp_path):
    target = tmp_path / "real.ta"
    target.write_text(print_ta(read_ta(STRB_TA.read_text()).ta))
    link = tmp_path / "link.ta"
    link.symlink_to(target)
    r = cli("fmt", link, "--in-place")
    assert r.code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert read_ta(target.read_text()).ta == read_ta(STRB_TA.read_text()).ta


# ----------------------------------------------------------------- 8. outputs stay inside -o


def test_8_property_names_cannot_leave_the_output_directory(cli, tmp_path):
    doc = viol_doc()
    doc["properties"][0]["name"] = "/../pwned"
    r = cli("emit", write_json(tmp_path / "p.json", doc), "--to", "smtlib", "-o", tmp_path / "out")
    assert r.code == 2 and "is not a name" in r.err
    assert not list(tmp_path.rglob("*pwned*"))


def test_8_inside_refuses_escaping_names(tmp_path):
    from tactl.util.fsutil import inside
    from tactl.ir.errors import InputError

    assert inside(tmp_path, "a.b.smt2") == tmp_path / "a.b.smt2"
    for name in ("../x", "/etc/x", "..", "a/b"):
        with pytest.raises(InputError, match="would leave the output directory"):
            inside(tmp_path, name)


# --------------------------------------------------------------------- 9. unwritable outputs


@pytest.mark.parametrize("command", ["fmt", "translate", "dot"])
def test_9_unwritable_outputs_are_input_errors(cli, tmp_path, command):
    source = STRB_RTA if command == "translate" else STRB_TA
    suffix = ".dot" if command == "dot" else ".ta"
    for target in (f"/proc/x{suffix}", str(tmp_path / ("a" * 300 + suffix)),
                   str(tmp_path / "missing" / f"x{suffix}")):
        r = cli(command, source, "-o", target)
        assert r.code == 2 and "cannot write" in r.err, (target, r.err)
        clean(r)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tactl.")]  # no temp file left


def test_9_emit_into_unusable_directories(cli, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for out in ("/proc/foo", a_file / "sub", tmp_path / ("d" * 300)):
        r = cli("emit", STRB_TA, "--to", "smtlib", "-o", out)
        assert r.code == 2 and ("cannot write" in r.err or "not a directory" in r.err), r.err
        clean(r)


# ---------------------------------------------------------------------- 10. huge numbers


def test_10_integers_beyond_pythons_conversion_limit(cli, tmp_path):
    digits = "9" * 5000
    path = tmp_path / "big.ta"
    path.write_text(viol_text().replace("n > 3 * t", f"n > {digits} * t"))
    r = cli("show", path)
    assert r.code == 2 and "integer literal of 5000 digits" in r.err and re.search(r"big.ta:\d+:\d+:", r.err)
    assert len(max(r.err.splitlines(), key=len)) < 300  # the echoed line is cut around the caret
    doc_path = tmp_path / "big.json"
    doc_path.write_text(json.dumps(viol_doc()).replace('"n"', '"n"', 1)[:-1] + ', "x": ' + digits + "}")
    r = cli("show", doc_path)
    assert r.code == 2 and "more than 4300 digits" in r.err
    r = cli("check", STRB_TA, "--param", f"n={digits}")
    assert r.code == 2 and "too large" in r.err


@pytest.mark.parametrize("value", ["inf", "1e308", "nan", "-1", "0", "x"])
def test_10_bad_timeouts(cli, value):
    r = cli("check", STRB_TA, "--timeout", value)
    assert r.code == 2 and "--timeout" in r.err
    clean(r)


@pytest.mark.parametrize("item", ["n=²", "n=٣", "n=-1", "n=1.5", "n", "=3", "1n=3"])
def test_10_bad_parameters(cli, item):
    r = cli("check", STRB_TA, "--param", item)
    assert r.code == 2 and "--param expects NAME=VALUE" in r.err


# ------------------------------------------------------------------- 11. malformed JSON


def _json_cases():
    doc = viol_doc()

    def with_(**changes):
        return {**doc, **changes}

    guard = doc["rules"][1]["guard"]
    rule = doc["rules"][1]
    deep = {"op": "neg", "args": [1]}
    for _ in range(300):
        deep = {"op": "neg", "args": [deep]}
    return [
        ("json nesting", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("expression nesting", with_(defines=[{"name": "D", "expr": deep}]), "nested more than 200"),
        ("true as a term", with_(defines=[{"name": "D", "expr": True}]), "expected a term"),
        ("formula 3", with_(assumptions=[3]), "expected a formula"),
        ("integer guard", with_(rules=[{**rule, "guard": 1}]), "expected a formula"),
        ("name as a formula", with_(inits=[{"name": "n"}]), "expected a formula"),
        ("duplicate parameter", with_(parameters=["n", "t", "f", "n"]), "'n' is already declared"),
        ("name with |", with_(parameters=["n", "t|x", "f"]), "is not a name"),
        ("name with newline", with_(name="A\nB"), "is not a name"),
        ("version true", with_(version=True), "version true is not supported"),
        ("parameters string", with_(parameters="ntf"), "parameters: expected a list"),
        ("rules object", with_(rules={}), "rules: expected a list"),
        ("unknown op", with_(rules=[{**rule, "guard": {"op": "&", "args": [True, True]}}]), "known \"op\""),
        ("sum without signs", with_(rules=[{**rule, "guard": {**guard, "args": [
            {"op": "sum", "args": [1, 2]}, 1]}}]), "missing field 'signs'"),
        ("term operator as formula", with_(assumptions=[{"op": "sum", "args": [1, 2], "signs": ["+"]}]),
         "found the term operator"),
        ("negative rule id", with_(rules=[{**rule, "id": -1}]), "non-negative integer"),
        ("unexpected field", with_(extra=1), "unexpected field 'extra'"),
        ("not an object", [1, 2], "not a tactl.ta document"),
    ]


@pytest.mark.parametrize("label, doc, message", _json_cases(), ids=[c[0] for c in _json_cases()])
def test_11_malformed_json_documents(cli, tmp_path, label, doc, message):
    path = tmp_path / "bad.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    for command in ("show", "check"):
        r = cli(command, path)
        assert r.code == 2 and message in r.err, (label, r.err)
        clean(r)


# ------------------------------------------------------------------- 13. one deadline


def test_13_huge_counterexample_replays_in_batches(cli, viol):
    r = cli("check", viol, "--param", "n=1000000000", "-p", "unforgeability", "--timeout", str(GUARD_S),
            "--json")
    assert r.code == 1
    (prop,) = json.loads(r.out)["properties"]
    assert prop["counterexample"]["replayed"] and prop["counterexample"]["parameters"]["n"] == 10**9


def test_13_timeout_covers_query_construction(tmp_path):
    from tactl.bench.synthetic import promela_style_ta

    path = tmp_path / "big.ta"
    path.write_text(promela_style_ta(300, 800))
    proc, cpu = child_cpu(lambda: subprocess.run([*TACTL, "check", str(path), "--timeout", "1", "--json"],
                                                 capture_output=True, text=True, timeout=300))
    assert proc.returncode == 3, proc.stderr
    report = json.loads(proc.stdout)
    assert all(p["verdict"] in ("unknown", "unsupported") for p in report["properties"])
    # the deadline is one second; process start and reading are most of the rest (CPU time,
    # which load does not stretch; building the queries without the deadline takes far longer)
    assert cpu < 10, cpu


# ------------------------------------------------------------------------- 16. FIFO input


def test_16_fifo_input_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "in.ta"
    os.mkfifo(fifo)
    proc = subprocess.run([*TACTL, "show", str(fifo)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "is a FIFO" in proc.stderr


def test_16_standard_input_is_read_and_recognised(cli, monkeypatch):
    import io

    for source, head in ((STRB_TA.read_text(), "<stdin>: threshold automaton STRB"),
                         (STRB_RTA.read_text(), "<stdin>: threshold automaton STRB"),
                         (json.dumps(viol_doc()), "<stdin>: threshold automaton STRB")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
        r = cli("show", "-")
        assert r.code == 0 and r.out.startswith(head), r.err


# ------------------------------------------------------------------ 17. one kind of line


@pytest.mark.parametrize("separator", ["\f", "\u2028", "\u2029", "\x85", "\x1c", "\v"])
def test_17_caret_under_the_right_line_after_unusual_characters(cli, tmp_path, separator):
    # characters that str.splitlines() takes for line breaks, and the lexer does not
    text = f"skel A {{\n  parameters n; /* a{separator}b */ shared x;\n  locations {{ l: [0]; }}\n" \
           "  rules { 0: l -> q when (x >= n) do {}; }\n}\n"
    path = tmp_path / "a.ta"
    path.write_text(text, encoding="utf-8")
    r = cli("show", path)
    assert r.code == 2
    head, echoed, caret = r.err.splitlines()[:3]
    assert head.startswith(f"{path}:4:19: unknown location 'q'")
    assert echoed.strip().startswith("rules { 0: l -> q") and echoed[caret.index("^")] == "q"


def test_17_cr_only_line_endings(cli, tmp_path):
    path = tmp_path / "cr.ta"
    path.write_bytes(b"skel A {\r  parameters n;\r  locations { l: [0]; }\r"
                     b"  rules { 0: l -> q when true do {}; }\r}\r")
    r = cli("show", path)
    assert r.code == 2 and f"{path}:4:19:" in r.err
    echoed, caret = r.err.splitlines()[1:3]
    assert echoed[caret.index("^")] == "q"


# ---------------------------------------------------------------------------- 18. messages


def test_18_state_limit_message_is_not_negative(cli, viol):
    r = cli("check", viol, "--engine", "explicit", "--bound", "30", "--max-states", "50",
            "-p", "unforgeability", "--json")
    (prop,) = json.loads(r.out)["properties"]
    assert "limit -" not in prop.get("reason", "")
    assert r.code in (1, 3)


def test_18_bom_is_skipped(cli, tmp_path):
    path = tmp_path / "bom.ta"
    path.write_bytes(b"\xef\xbb\xbf" + STRB_TA.read_bytes())
    r = cli("show", path)
    assert r.code == 0 and "threshold automaton STRB" in r.out


def test_18_deep_nesting_error_echo_is_cut(cli, tmp_path):
    path = tmp_path / "deep.ta"
    path.write_text(viol_text().replace("n > 3 * t", "-" * 100_000 + "n > 3 * t"))
    r = cli("show", path)
    assert r.code == 2 and len(r.err) < 2000, len(r.err)
    clean(r)


@pytest.mark.parametrize("old, new, message", [
    ("faults byzantine(f);", "faults byzantine(n);", "is the number of processes"),
    ("faults byzantine(f);", "faults hybrid(f, f);", "'f' is given twice"),
])
def test_18_meaningless_fault_declarations(cli, tmp_path, old, new, message):
    path = tmp_path / "x.rta"
    path.write_text(STRB_RTA.read_text().replace(old, new))
    r = cli("show", path)
    assert r.code == 2 and message in r.err


def test_18_kind_named_like_a_message_is_warned(cli, tmp_path):
    path = tmp_path / "k.rta"
    text = STRB_RTA.read_text().replace("messages ECHO;", "messages ECHO;\n  kind ECHO2: ECHO2, OTHER;")
    path.write_text(text)
    r = cli("show", path)
    assert r.code == 0 and "the kind 'ECHO2' has the name of a message type" in r.err


def test_1_names_are_checked_on_the_text_path_too(cli, tmp_path):
    """One definition of a name for every input: the text grammar admits any length."""
    path = tmp_path / "long.ta"
    path.write_text(viol_text().replace("parameters n, t, f;", f"parameters n, {'t' * 300}, f;"))
    r = cli("show", path)
    assert r.code == 2 and "is 300 characters long (at most 200)" in r.err and "long.ta:" in r.err
    rta = tmp_path / "long.rta"
    rta.write_text(STRB_RTA.read_text().replace("ECHO", "E" * 199))
    r = cli("translate", rta)  # nsf_<message> must be a name too: never a tactl bug (exit 4)
    assert r.code == 2 and "at most 196" in r.err
