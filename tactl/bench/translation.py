"""The translation tables (``--only translation``, ``--only alg``, ``--only kinds``): receive
automata and pseudocode through quantifier elimination and its certificates.

``translation`` translates and certifies every corpus ``.rta`` in this process; ``alg`` parses,
translates and certifies every corpus ``.alg`` the same way and then checks each in a whole
``tactl check`` process; ``kinds`` checks synthetic receive automata with one message kind of
4, 5, 10 and 20 types (tactl.bench.synthetic_kinds), where the Env's size per kind shows.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tactl.bench import REPO, checkable_corpus
from tactl.bench.measure import timed_process
from tactl.bench.synthetic_kinds import kind_rta
from tactl.ir.alg.reader import parse_alg
from tactl.ir.rta.reader import read_rta_file
from tactl.passes.alg_to_rta.extract import parse_algorithm
from tactl.passes.rta_to_ta.certify import certify
from tactl.passes.rta_to_ta.eliminate import translate


def _translate_and_certify(rta):
    """``rta`` translated and certified in this process: the translation, the seconds each step
    took, and whether every certificate holds."""
    start = time.perf_counter()
    tr = translate(rta)
    mid = time.perf_counter()
    good = all(c.ok for c in certify(rta, tr))
    return tr, mid - start, time.perf_counter() - mid, good


def translation_table() -> bool:
    """Translate + certify every corpus .rta in this process; the target is < 10 s in total."""
    header = f"{'receive automaton':<30} {'rules':>5} {'TA rules':>8} {'translate s':>11} " \
             f"{'certify s':>9} {'certified':<9}"
    print("\n" + header)
    print("-" * len(header))
    total, ok = 0.0, True
    for path in checkable_corpus("rta"):
        rta = read_rta_file(path).rta
        tr, translate_s, certify_s, good = _translate_and_certify(rta)
        ok &= good
        total += translate_s + certify_s
        print(f"{path.parent.name + '/' + path.name:<30} {len(rta.rules):>5} {len(tr.ta.rules):>8} "
              f"{translate_s:>11.2f} {certify_s:>9.2f} {'all' if good else 'NOT ALL':<9}")
    print(f"corpus translation + certification: {total:.2f} s in total (target < 10 s)")
    return ok


def alg_table(timeout_s: float) -> bool:
    """The pseudocode corpus: parse + translate + certify in this process (the target is < 10 s
    in total), then a whole ``tactl check X.alg`` process per file for verdicts, wall time
    (start-up included) and peak memory."""
    paths = checkable_corpus("alg")
    width = max([28] + [len(p.parent.name + '/' + p.name) for p in paths])  # every name fits
    header = f"{'pseudocode':<{width}} {'lines':>5} {'locs':>4} {'rules':>5} {'TA rules':>8} " \
             f"{'parse s':>7} {'transl s':>8} {'cert s':>6} {'certified':<9} {'verdicts':<34} " \
             f"{'check s':>7} {'peak MB':>7}"
    print("\n" + header)
    print("-" * len(header))
    total, ok = 0.0, True
    for path in paths:
        text = path.read_text()
        start = time.perf_counter()
        rta = parse_algorithm(parse_alg(text, str(path))).rta
        parse_s = time.perf_counter() - start
        tr, translate_s, certify_s, good = _translate_and_certify(rta)
        ok &= good
        total += parse_s + translate_s + certify_s
        code, out, wall, peak = timed_process([sys.executable, "-m", "tactl.cli", "check", str(path),
                                               "--json", "--timeout", str(timeout_s)])
        try:
            found = [p["verdict"] for p in json.loads(out)["properties"]]
            verdicts = ", ".join(f"{found.count(v)} {v}" for v in
                                 ("holds", "violated", "unknown", "unsupported") if v in found)
        except (ValueError, KeyError):
            verdicts = f"exit {code}"
        ok &= code in (0, 1, 3)
        print(f"{path.parent.name + '/' + path.name:<{width}} {text.count(chr(10)):>5} "
              f"{len(rta.locations):>4} {len(rta.rules):>5} {len(tr.ta.rules):>8} "
              f"{parse_s:>7.2f} {translate_s:>8.2f} {certify_s:>6.2f} "
              f"{'all' if good else 'NOT ALL':<9} {verdicts:<34} {wall:>7.2f} {peak:>7.1f}", flush=True)
    print(f"pseudocode corpus parse + translation + certification: {total:.2f} s in total "
          "(target < 10 s)")
    return ok


KIND_SIZES = (4, 5, 10, 20)


def kinds_table(workdir: Path, timeout_s: float) -> bool:
    """Message kinds of 4–20 types (tactl.bench.synthetic_kinds): a whole ``tactl check`` process on
    the .rta — translation with its certificates, then the checks — per size. The row to watch is
    the 5-type kind: an Env that lists every subset of a kind does not finish it in 300 s (5.7 GB)."""
    header = f"{'message kind':<18} {'types':>5} {'verdict':<10} {'check s':>8} {'peak MB':>8}"
    print("\n" + header)
    print("-" * len(header))
    ok = True
    for n in KIND_SIZES:
        path = workdir / f"kind{n}.rta"
        path.write_text(kind_rta(n))
        code, out, wall, peak = timed_process([sys.executable, "-m", "tactl.cli", "check", str(path),
                                               "--json", "--timeout", str(timeout_s)])
        try:
            verdicts = {p["verdict"] for p in json.loads(out)["properties"]}
            verdict = "/".join(sorted(verdicts)) or "none"
        except (ValueError, KeyError):
            verdict = f"exit {code}"
        ok &= code in (0, 1)
        print(f"{'kind_rta(' + str(n) + ')':<18} {n:>5} {verdict:<10} {wall:>8.2f} {peak:>8.1f}", flush=True)
    return ok
