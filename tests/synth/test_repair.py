"""``tactl check --repair`` (tactl/synth/repair.py, tactl/synth/repair_alg.py,
passes/ta_to_ta/lift_thresholds.py) on Srikanth-Toueg weakened as docs/tutorial.md weakens it:
the relay threshold t instead of t + 1 must come back as t + 1 (or something at least as good)."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS
from tactl.ir.ta.reader import parse_ta
from tactl.passes.ta_to_ta.lift_thresholds import LiftOptions, lift_thresholds
from tactl.synth.repair import repair
from tactl.synth.repair_alg import rings

STRB_TA = (CORPUS / "strb" / "strb.ta").read_text()
STRB_ALG = (CORPUS / "strb" / "strb.alg").read_text()


def test_defines_are_lifted_once_with_ranges_around_the_written_values():
    lifted = lift_thresholds(parse_ta(STRB_TA))
    assert [s.where for s in lifted.sites] == ["define RELAY", "define ACCEPT"]
    assert lifted.written == {"k1_n": 0, "k1_t": 1, "k1_f": 0, "k1_1": 1,
                              "k2_n": 1, "k2_t": -1, "k2_f": 0, "k2_1": 0}
    assert len(lifted.ta.unknowns) == 8
    assert lifted.ta.rules == parse_ta(STRB_TA).rules  # the guards still name the defines
    assert not lifted.notes


def test_inline_thresholds_carry_the_justice_that_names_them():
    text = STRB_TA.replace("RELAY - f", "t + 1 - f").replace("ACCEPT - f", "n - t - f")
    lifted = lift_thresholds(parse_ta(text))
    assert [s.where for s in lifted.sites] == ["rule 1's guard", "the guards of rules 2, 3, 4"]
    assert lifted.sites[0].written == "echo >= t - f + 1"
    # the justice names t + 1 where the guard reads t + 1 - f: it follows the guard's unknowns
    assert any("follows the guard threshold t - f + 1 (offset f)" in n for n in lifted.notes)
    justice = lifted.ta.properties[1].formula
    assert "k1_t" in str(justice)


def test_the_resilience_condition_lifts_only_written_integers():
    lifted = lift_thresholds(parse_ta(STRB_TA), LiftOptions(resilience=True))
    rc = [s for s in lifted.sites if s.where == "the resilience condition"]
    assert [s.written for s in rc] == ["n > 3 * t"]  # not t >= f, not f >= 0
    assert {lifted.written[u] for u in rc[0].unknowns.values()} == {3, 0}


def test_a_lowered_relay_threshold_is_repaired_back_to_t_plus_1():
    weakened = parse_ta(STRB_TA.replace("define RELAY == t + 1;", "define RELAY == t;"))
    result = repair(weakened)
    assert result.complete and result.distance == 1
    assert [[c.text() for c in r.changes] for r in result.repairs] == [["define RELAY `t` becomes `t + 1`"]]
    assert set(result.repairs[0].recheck.values()) == {"holds"}
    assert result.regions_excluded >= 1  # refuted candidates excluded regions, not points only


def test_the_resilience_condition_is_repaired_on_request():
    weakened = parse_ta(STRB_TA.replace("n > 3 * t;", "n >= 3 * t;"))
    result = repair(weakened, LiftOptions(resilience=True))
    texts = {c.repaired for r in result.repairs for c in r.changes}
    assert result.distance == 1 and "n >= 3 * t + 1" in texts


def test_rings_hold_every_assignment_at_that_distance_inside_the_ranges():
    ring = list(rings({"a": 0, "b": 0}, {"a": (0, 1), "b": (-1, 1)}, 1))
    assert sorted(tuple(v.values()) for v in ring) == [(0, -1), (0, 1), (1, 0)]


@pytest.fixture
def weakened_alg(tmp_path):
    path = tmp_path / "strb_t.alg"
    path.write_text(STRB_ALG.replace("from t + 1 distinct", "from t distinct"))
    return path


def test_an_alg_program_is_repaired_in_its_own_text(cli, weakened_alg):
    out = cli("check", weakened_alg, "--repair", "--no-progress")
    assert out.code == 1, out.err  # the check's verdicts and status are unchanged
    assert "unforgeability  reachability   VIOLATED" in out.out
    assert "nearest repair (distance 1):" in out.out
    line = next(n for n, text in enumerate(STRB_ALG.splitlines(), 1) if "from t + 1 distinct" in text)
    assert f"the threshold on line {line} `t` becomes `t + 1`" in out.out


def test_the_json_report_carries_the_repair(cli, tmp_path):
    path = tmp_path / "strb_t.ta"
    path.write_text(STRB_TA.replace("define RELAY == t + 1;", "define RELAY == t;"))
    out = cli("check", path, "--repair", "--json", "--no-progress")
    assert out.code == 1
    doc = json.loads(out.out)
    assert doc["repair"]["distance"] == 1
    assert doc["repair"]["repairs"][0]["changes"] == [{"where": "define RELAY", "written": "t", "repaired": "t + 1"}]


def test_nothing_violated_means_no_repair(cli):
    out = cli("check", CORPUS / "strb" / "strb.ta", "--repair", "--no-progress")
    assert out.code == 0 and "\nrepair:" not in out.out and "nearest repair" not in out.out


@pytest.mark.parametrize("args, message", [
    (("--repair-range", "x"), "--repair-range 'x': write two natural numbers"),
    (("--repair-range", "1,-2"), "the radii are natural numbers"),
])
def test_bad_repair_options_are_refused(cli, args, message):
    out = cli("check", CORPUS / "strb" / "strb.ta", "--repair", *args)
    assert out.code == 2 and message in out.err


def test_a_receive_automaton_is_refused_with_the_reason(cli):
    out = cli("check", CORPUS / "strb" / "strb.rta", "--repair")
    assert out.code == 2 and "pass through a translation" in out.err


def test_an_automaton_without_thresholds_gets_its_report_and_a_line_saying_so(cli, tmp_path):
    path = tmp_path / "no_threshold.ta"
    path.write_text("""thresholdAutomaton N {
  local pc;
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (2) { A: [0]; B: [1]; }
  inits (3) { A == n; B == 0; x == 0; }
  rules (1) { 0: A -> B when (true) do { x' == x + 1; }; }
  specifications (1) { safe: [](B == 0); }
}
""")
    out = cli("check", path, "--repair", "--no-progress")
    assert out.code == 1  # the check's status: safe is violated
    assert "safe" in out.out and "VIOLATED" in out.out
    assert "repair: no threshold to repair" in out.out


def test_an_interrupted_alg_search_keeps_what_it_found_and_the_interrupt():
    from tactl.ir.alg.reader import parse_alg
    from tactl.synth.repair_alg import lift_source, repair_source

    text = STRB_ALG.replace("from t + 1 distinct", "from t distinct")
    lift = lift_source(parse_alg(text, "strb_t.alg"), text, LiftOptions())
    seen = []

    def check(program: str) -> dict[str, str]:
        seen.append(program)
        if len(seen) == 3:
            raise KeyboardInterrupt
        return {"unforgeability": "violated"}

    result = repair_source(lift, check)
    assert len(seen) == 3 and not result.complete and not result.repairs
    assert result.stopped == "interrupted" and isinstance(result.interrupted, KeyboardInterrupt)
    assert len(set(seen)) == 3 and text not in seen  # three distinct candidates, none the written program


def test_an_alg_resilience_condition_is_repaired_in_place(cli, tmp_path):
    path = tmp_path / "strb_w.alg"
    path.write_text(STRB_ALG.replace("resilience n > 3t", "resilience n >= 3t"))
    out = cli("check", path, "--repair-resilience", "--no-progress")
    assert out.code == 1
    assert "the resilience condition `n >= 3 * t` becomes `n >= 3 * t + 1`" in out.out


def test_each_alg_threshold_is_lifted_on_its_own_and_the_least_comes_first(cli, tmp_path):
    # Bracha's READY amplification lowered to t + 1 on one line: the same text elsewhere must stay
    text = (CORPUS / "bracha" / "bracha.alg").read_text()
    assert text.count("received READY from 2t + 1 processes") == 1
    path = tmp_path / "bracha_w.alg"
    path.write_text(text.replace("received READY from 2t + 1 processes", "received READY from t + 1 processes"))
    line = next(n for n, t in enumerate(path.read_text().splitlines(), 1) if "READY from t + 1 processes" in t
                and "wait until received READY" in t)
    out = cli("check", path, "--repair", "--json", "--no-progress")
    assert out.code == 1
    repairs = json.loads(out.out)["repair"]["repairs"]
    assert {r["changes"][0]["where"] for r in repairs} == {f"the threshold on line {line}"}
    repaired = [r["changes"][0]["repaired"] for r in repairs]
    assert "2 * t + 1" in repaired
    assert repaired[0] == "t + f + 1" and repairs[0]["weakest"]  # t + f + 1 <= 2t + 1 since f <= t


def test_a_property_vacuous_in_the_written_automaton_may_stay_vacuous(cli, tmp_path):
    text = STRB_TA.replace("define RELAY == t + 1;", "define RELAY == t;")
    text = text.replace("  specifications (3) {", "  specifications (4) {\n    never: V0 > n -> [](AC == 0);")
    path = tmp_path / "strb_vac.ta"
    path.write_text(text)
    out = cli("check", path, "--repair", "--json", "--no-progress")
    doc = json.loads(out.out)
    verdicts = {p["name"]: p["verdict"] for p in doc["properties"]}
    assert verdicts["never"] == "holds vacuously" and verdicts["unforgeability"] == "violated"
    repairs = doc["repair"]["repairs"]
    assert doc["repair"]["distance"] == 1
    assert repairs[0]["changes"] == [{"where": "define RELAY", "written": "t", "repaired": "t + 1"}]
    assert repairs[0]["recheck"]["never"] == "holds vacuously"
