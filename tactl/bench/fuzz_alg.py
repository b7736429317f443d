"""Random well-formed ``.alg`` programs for differential fuzzing of the pseudocode front end.

Why: every engine checks the automaton the front end translated, so a translation mistake is
shared by all of them and no engine-against-engine comparison sees it. ``make fuzz`` checks each
program generated here with tactl's parametric engine (restricted with ``--param`` to one small
valuation) and with a *reference* that reads the program another way (the source interpreter,
``--engine source``, when the installed tactl has it), per property (``tactl.bench.fuzz``).

A program is built from one of a few *families* (the shapes the corpus's papers have: an event
loop, a sequence of waits, a lock-step round, a phase with a coordinator, repeated rounds, an
asynchronous round's coordinator, a DBFT-like set round), each filled with random choices among
the constructs of docs/alg.md, and every choice *tags* the program with the construct it uses, so
the harness can count outcomes per construct. The choices respect the documented rules (domains,
irrevocable decisions, where hypotheses, coordinators and waits may stand, fault models a timing
refuses), so a refusal of a generated program is a finding, not noise. Programs are small (2–4
variables, 1–3 message types, a few statements): an exploration at n <= 5 takes seconds.

Deterministic: program ``index`` of ``seed`` depends on nothing else (its own ``random.Random``),
so one program of a long run is regenerated alone by ``generate(seed, index)``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

# Every construct the generator can use; the default test asserts each is generated.
CONSTRUCTS: tuple[str, ...] = (
    # thresholds
    "thr_t_plus_1", "thr_n_minus_t", "thr_more_than_frac", "thr_ceil", "thr_floor", "thr_at_most",
    "thr_exactly", "thr_fewer_than", "thr_coeff", "recv_count_arith",
    # messages
    "msg_plain", "msg_payload", "msg_tagged", "msg_one_instance", "msg_several_instances",
    "msg_star",
    # sets
    "set_var", "set_builder", "set_ops", "set_card", "set_minmax", "for_each", "quorum_choice",
    # control
    "for_some_w", "wait_until", "wait_for", "loop_forever", "upon", "toplevel_handlers", "if_elif",
    "decide", "next_round", "skip", "round_block", "phases", "rounds_carrying", "oracle", "coin",
    "int_range", "enum_bot", "named_domain",
    # coordinators and hypotheses
    "coordinator_sync", "coordinator_async", "hyp_clean_round", "hyp_at_most_k_crashes",
    "hyp_correct_coordinator",
    # fault models and timing
    "fault_byzantine", "fault_crash", "fault_omission", "fault_symmetric", "fault_clean_crash",
    "fault_hybrid", "timing_sync", "timing_async",
    # properties
    "prop_safety", "prop_initially", "prop_liveness", "prop_count", "prop_sent", "prop_done",
    "prop_crashed",
)


@dataclass(frozen=True)
class Program:
    """One generated program: its text, what it uses, and the valuation to check it at."""

    seed: int
    index: int
    family: str
    text: str
    tags: frozenset[str]
    params: tuple[tuple[str, int], ...]
    suffix: str = ".alg"
    note: str = ""  # what the program is (an edit of a public file: which)

    @property
    def name(self) -> str:
        return f"fz{self.seed}_{self.index}_{self.family}"


@dataclass(frozen=True)
class Faults:
    """A fault model as the header writes it, its parameters and resilience, and one valuation."""

    tag: str
    line: str
    parameters: tuple[str, ...]
    resilience: str
    valuation: tuple[tuple[str, int], ...]
    crashes: bool  # the model has a crash location (``crashed`` is a predicate)


@dataclass
class _Gen:
    """The random source and the tags of the program being built."""

    rng: random.Random
    k: int = 0  # which instance of its family the program is (index // number of families)
    family_no: int = 0  # the family's place in FAMILIES (shifts the threshold cycles)
    tags: set[str] = field(default_factory=set)
    turns: dict[str, int] = field(default_factory=dict)

    def tag(self, *names: str) -> None:
        assert all(n in CONSTRUCTS for n in names), names
        self.tags.update(names)

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def rot(self, key: str, options, per_program: int = 1, offset: int = 0):
        """A choice that *rotates* over the family's instances instead of being drawn.

        Why: rare choices drawn at random need dozens of programs before each has appeared, and
        the default test can afford about two programs per family. Rotating the choices that
        decide which constructs a program has (fault model, threshold, optional parts) makes
        every construct appear within the first two instances of each family, while the rest
        of each program stays random. ``per_program``: how many calls one program makes, so
        successive programs continue the cycle where the last one stopped.
        """
        options = list(options)
        turn = self.turns.get(key, 0)
        self.turns[key] = turn + 1
        return options[(offset + self.k * per_program + turn) % len(options)]

    def flip(self, key: str) -> bool:
        """True in every other instance of the family (first: True)."""
        return self.rot(key, (True, False))

    # -------------------------------------------------------------------------- fault models

    def faults(self, order: tuple[str, ...]) -> Faults:
        """A fault model (rotating over ``order``), its resilience and one valuation inside it.

        Each family gives the models it can have in the order its instances take them: omission
        is refused in lock-step rounds (passes/rta_to_ta/env.py), the lock-step engine builds crash and
        byzantine only, coordinators are byzantine.
        """
        model = self.rot("faults", order)
        self.tag(f"fault_{model}")
        f = self.pick((0, 1, 1))
        if model == "byzantine":
            n = self.pick((4, 4, 5))
            return Faults(model, "byzantine(f)", ("n", "t", "f"), "n > 3t, t >= f, f >= 0",
                          (("n", n), ("t", 1), ("f", f)), False)
        if model in ("crash", "omission"):
            n = self.pick((3, 4))
            return Faults(model, f"{model}(f)", ("n", "t", "f"), "n > 2t, t >= f, f >= 0",
                          (("n", n), ("t", 1), ("f", f)), model == "crash")
        if model in ("symmetric", "clean_crash"):
            # symmetric(fp[, fs]) and clean_crash(fc[, fnc]): the second parameter, when
            # written, bounds a subset of the first (fs send, fnc lose their broadcast).
            second = {"symmetric": "fs", "clean_crash": "fnc"}[model]
            n = self.pick((3, 4))
            if self.chance(0.5):
                return Faults(model, f"{model}(f)", ("n", "t", "f"), "n > 2t, t >= f, f >= 0",
                              (("n", n), ("t", 1), ("f", f)), model == "clean_crash")
            return Faults(model, f"{model}(f, {second})", ("n", "t", "f", second),
                          f"n > 2t, t >= f, f >= {second}, {second} >= 0",
                          (("n", n), ("t", 1), ("f", f), (second, f)), model == "clean_crash")
        fb, fc = self.pick(((1, 0), (0, 1), (1, 0)))
        return Faults(model, "hybrid(fb, fc)", ("n", "t", "fb", "fc"),
                      "n > 3t, t >= fb + fc, fb >= 0, fc >= 0",
                      (("n", 4), ("t", 1), ("fb", fb), ("fc", fc)), True)

    # ---------------------------------------------------------------------------- thresholds

    def threshold(self, strong: bool = False) -> str:
        """``K`` of ``received M from K processes``: a qualified linear threshold.

        ``strong`` asks for a quorum (at least a majority of the correct processes), which
        liveness-minded families use where a weak one would make every run trivial.
        """
        weak = [("t + 1", "thr_t_plus_1"), ("exactly t + 1", "thr_exactly"),
                ("at most t", "thr_at_most"), ("fewer than n - t", "thr_fewer_than"),
                ("2t + 1", "thr_coeff"), ("more than t", "thr_t_plus_1"), ("at least 1", None)]
        # n - t twice: the rational ones are often imprecise as a complement (a parity
        # condition), which makes the whole file unknown, so they come less often.
        quorum = [("n - t", "thr_n_minus_t"), ("n - t", "thr_n_minus_t"), ("more than (n + t)/2", "thr_more_than_frac"),
                  ("at least ⌈(n + t + 1)/2⌉", "thr_ceil"), ("more than ⌊n/2⌋", "thr_floor"),
                  ("at least ceil((n + 1)/2)", "thr_ceil"), ("more than n/2", "thr_more_than_frac")]
        # Each family starts the cycles elsewhere, so together they meet every threshold in
        # their first two instances (the set round draws two weak thresholds per program:
        # positions 0-3; the waits one: 4 and 6; the event loop one or two: 5 and 7, 8).
        text, tag = (self.rot("quorum", quorum, 3, 4 * self.family_no) if strong
                     else self.rot("weak", weak + quorum[:2], 2,
                                   {0: 5, 1: 4, 6: 0}.get(self.family_no, 0)))
        if tag:
            self.tag(tag)
        return text


# ------------------------------------------------------------------------------------ helpers


def _header(name: str, fm: Faults, sync: bool, g: _Gen, extra_rc: str = "") -> list[str]:
    g.tag("timing_sync" if sync else "timing_async")
    # t >= 1 as the corpus's Ben-Or files assume: with t = 0 and n odd, "no value has more than
    # n/2" is a parity condition no linear guard states, and tactl refuses it as imprecise.
    rc = fm.resilience + ", t >= 1" + (f", {extra_rc}" if extra_rc else "")
    return [f"algorithm {name}", f"parameters {', '.join(fm.parameters)}", f"resilience {rc}",
            f"faults {fm.line}", f"timing {'sync' if sync else 'async'}", ""]


def _indent(lines: list[str], k: int = 1) -> list[str]:
    return [("  " * k + ln) if ln else ln for ln in lines]


def _props(lines: list[str]) -> list[str]:
    return ["", "properties", *_indent(lines)]


# ------------------------------------------------------------------------------------ families


def _event_loop(g: _Gen, name: str) -> tuple[list[str], Faults]:
    """STRB/Bracha-like: handlers over ECHO/READY counts in ``loop forever`` or at top level."""
    fm = g.faults(("omission", "hybrid", "byzantine", "crash", "symmetric", "clean_crash"))
    lines = _header(name, fm, False, g)
    payload = g.flip("payload")
    two = not g.flip("two")
    if payload:
        g.tag("msg_payload")
        msgs = "(E, {0, 1})" + (", READY" if two else "")
    else:
        g.tag("msg_plain")
        msgs = "ECHO" + (", READY" if two else "")
    if two:
        g.tag("msg_plain")
    lines += [f"messages {msgs}", "", "variables", "  v: {0, 1} = input",
              "  accept: bool = false"]
    counter = g.flip("counter")
    if counter:
        g.tag("int_range")
        lines.append("  x: int[0..2] = 0")
    lines.append("")
    body: list[str] = []
    if payload:
        # (E, v) with v an input never assigned: one instance per process (a kind); the echo
        # of any value received from t + 1 makes several instances per process (no kind).
        body += ["if v == 1 or v == 0:", "  send (E, v) to all"]
        if g.flip("several"):
            g.tag("msg_several_instances", "for_some_w", "upon")
            body += [f"upon receiving (E, w) from {g.threshold()} distinct processes for some w:",
                     "  send (E, w) to all"]
        else:
            g.tag("msg_one_instance")
        count = g.pick(["(E, *)", "(E, 1)", "(E, 0)"])
        if count == "(E, *)":
            g.tag("msg_star")
        g.tag("upon")
        body += [f"upon receiving {count} from {g.threshold(strong=True)} distinct processes:",
                 "  accept := true"]
    else:
        g.tag("msg_one_instance", "upon")
        body += ["if v == 1:", "  send ECHO to all",
                 f"upon receiving ECHO from {g.threshold()} distinct processes:", "  v := 1"]
        body += [f"upon receiving ECHO from {g.threshold(strong=True)} distinct processes:",
                 "  accept := true"]
    if two:
        g.tag("upon")
        body += ["upon accept:", "  send READY to all",
                 f"upon receiving READY from {g.threshold()} distinct processes:", "  accept := true"]
        if g.chance(0.4):
            g.tag("recv_count_arith")
            first = "(E, *)" if payload else "ECHO"
            if payload:
                g.tag("msg_star")
            body += [f"upon received {first} + received READY >= n - t:", "  accept := true"]
    if counter:
        g.tag("if_elif")
        body += ["if accept and x == 0:", "  x := 1", "elif x == 1 and received READY >= 1:"
                 if two else "elif x == 1:", "  x := 2"]
    if g.chance(0.3):
        g.tag("oracle")
        lines.insert(lines.index("  accept: bool = false") + 1, "  susp: bool = false")
        body += ["if not susp:", "  susp := oracle"]
    if not g.flip("toplevel"):
        g.tag("loop_forever")
        lines += ["loop forever:", *_indent(body)]
    else:
        g.tag("toplevel_handlers")
        lines += body
    props = []
    g.tag("prop_safety", "prop_initially")
    props.append("unforg: initially (no v == 1) -> always (no accept)")
    props.append("safe: always (no accept)")
    if counter:
        props.append("cnt: always (no x == 2)")
    if g.flip("count"):
        g.tag("prop_count")
        props.append("few: always (count (accept) <= t)")
    if g.flip("sent"):
        g.tag("prop_sent")
        props.append("nosend: always (no sent READY)" if two else
                     ("nosend: always (no sent (E, 1))" if payload else
                      "nosend: always (no sent ECHO)"))
    if fm.crashes:
        g.tag("prop_crashed")
        props.append("uniform: always ((some accept) -> (all accept or some crashed))")
    if g.chance(0.7):
        g.tag("prop_liveness")
        props.append("corr: initially (all v == 1) -> eventually (some accept)")
        props.append("relay: always ((some accept) -> eventually (all accept))")
    return lines + _props(props), fm


def _waits(g: _Gen, name: str) -> tuple[list[str], Faults]:
    """Ben-Or-like: send, wait for a quorum, choose by a threshold ``for some w``, decide."""
    fm = g.faults(("crash", "clean_crash", "byzantine", "symmetric", "omission", "hybrid"))
    lines = _header(name, fm, False, g)
    g.tag("msg_payload", "msg_tagged", "msg_one_instance")
    lines += ["messages (R, {0, 1}), (P, {0, 1}, D), (P, ?)", "", "variables",
              "  v: {0, 1} = input"]
    named = g.flip("named")
    if named:
        g.tag("named_domain", "enum_bot")
        lines.insert(lines.index("messages (R, {0, 1}), (P, {0, 1}, D), (P, ?)"),
                     "domain mood = {calm, bold}")
        lines += ["  m: mood = calm", "  est: {0, 1, ⊥} = ⊥"]
    lines.append("")
    body = ["send (R, v) to all"]
    g.tag("msg_star")
    if not g.flip("wait_for"):
        g.tag("wait_until")
        body.append(f"wait until received (R, *) from {g.threshold(strong=True)} processes")
    else:
        g.tag("wait_for")
        body.append("wait for n - t messages (R, *)")
        g.tag("thr_n_minus_t")
    g.tag("for_some_w", "if_elif")
    body += [f"if received (R, w) from {g.threshold(strong=True)} processes for some w:",
             "  send (P, w, D) to all"]
    if named:
        body += ["  est := w", "  m := bold"]
    body += ["else:", "  send (P, ?) to all"]
    if not g.flip("skip"):
        g.tag("skip")
        body.append("  skip")
    body.append(f"wait until received (P, *) from {g.threshold(strong=True)} processes")
    g.tag("wait_until", "decide")
    body += [f"if received (P, w, D) from {g.threshold(strong=True)} processes for some w:",
             "  v := w", "  decide w",
             f"elif received (P, w, D) from {g.threshold()} processes for some w:", "  v := w"]
    tail = g.rot("tail", ["next", "coin", "oracle", "skip"])
    body.append("else:")
    if tail == "coin":
        g.tag("coin")
        body.append("  v := " + g.pick(["coin", "coin toss"]))
    elif tail == "oracle":
        g.tag("oracle")
        body.append("  v := oracle")
    elif tail == "next":
        g.tag("next_round")
        body.append("  next round")
    else:
        g.tag("skip")
        body.append("  skip")
    if tail == "next" or g.chance(0.5):
        g.tag("round_block")
        lines += ["round:", *_indent(body)]
    else:
        lines += body
    g.tag("prop_safety", "prop_initially", "prop_liveness", "prop_done")
    props = ["agreement: always not (some decided == 0 and some decided == 1)",
             "validity0: initially (all v == 0) -> always (no decided == 1)",
             "termination: eventually (all done)"]
    if named:
        props.append("calm: initially (all v == 0) -> always (no est == 1)")
    if g.chance(0.3):
        g.tag("prop_sent")
        props.append("nod: always not (some sent (P, 0, D) and some sent (P, 1, D))")
    if fm.crashes:
        g.tag("prop_crashed")
        props.append("nocrash: always (no crashed) -> eventually (all done)")
    return lines + _props(props), fm


def _sync_round(g: _Gen, name: str) -> tuple[list[str], Faults]:
    """FloodSet/FloodMin-like lock-step round: sets, set-builders, ``for each``, hypotheses."""
    fm = g.faults(("crash", "crash", "byzantine"))
    lines = _header(name, fm, True, g)
    g.tag("round_block", "msg_payload")
    use_set = g.flip("set")
    props: list[str] = []
    if use_set:
        g.tag("set_var", "for_each", "set_builder", "set_ops", "msg_several_instances")
        lines += ["messages (M, {0, 1})", "", "variables",
                  "  W: set of {0, 1} = " + g.pick(["{input}", "{input}", "input"])]
        lines += ["", "round:", "  for each w in W:", "    send (M, w) to all",
                  f"  W := W ∪ {{w : received (M, w) from {g.pick(['at least 1', 'more than t', 't + 1'])} process}}"]
        if g.chance(0.4):
            g.tag("set_card", "if_elif")
            lines += ["  if |W| == 2:", "    W := W ∩ {0}" if g.chance(0.5) else "    W := W ∖ {1}"]
        props += ["validity0: initially (no 0 in W) -> always (no 0 in W)",
                  "validity1: initially (no 1 in W) -> always (no 1 in W)"]
        agree = "always not (some W == {1} and some 0 in W)"
    else:
        g.tag("msg_one_instance", "set_minmax", "set_builder", "set_ops")
        lines += ["messages (M, {0, 1, 2})", "", "variables", "  best: {0, 1, 2} = input", "",
                  "round:", "  send (M, best) to all",
                  f"  best := {g.pick(['min', 'max'])}({{best}} ∪ {{w : received (M, w) from at least 1 process}})"]
        if g.chance(0.4):
            g.tag("recv_count_arith", "if_elif")
            lines += ["  if received (M, 0) > received (M, 1) + received (M, 2):", "    best := 0"]
        props += ["validity0: initially (no best == 0) -> always (no best == 0)",
                  "validity2: initially (no best == 2) -> always (no best == 2)"]
        agree = "always (no best == 0 or no best == 1 or no best == 2)"
    g.tag("prop_safety", "prop_initially")
    if fm.tag == "crash":
        if g.flip("clean"):
            g.tag("hyp_clean_round")
            props.append(f"agreement assuming clean round: {agree}")
        else:
            g.tag("hyp_at_most_k_crashes")
            props.append(f"k2 assuming round with at most 1 crash: {agree}")
    else:
        props.append(f"agreement: {agree}")
    return lines + _props(props), fm


def _phases(g: _Gen, name: str) -> tuple[list[str], Faults]:
    """Phase-queen-like: numbered lock-step rounds, a coordinator message, its hypothesis."""
    fm = g.faults(("byzantine",))
    lines = _header(name, fm, True, g)
    g.tag("phases", "coordinator_sync", "msg_payload", "msg_one_instance", "hyp_correct_coordinator",
          "for_some_w", "if_elif")
    lines += ["messages (M, {0, 1}), (Q, {0, 1}) from coordinator", "", "variables",
              "  v: {0, 1} = input", "  maj: {0, 1} = 0", "  strong: bool = false", ""]
    first = g.rot("first", ["cmp", "thr"])
    lines += ["round 1:", "  send (M, v) to all"]
    if first == "cmp":
        g.tag("recv_count_arith")
        lines += ["  if received (M, 1) > received (M, 0):", "    maj := 1", "  else:",
                  "    maj := 0"]
    else:
        lines += [f"  if received (M, w) from {g.threshold(strong=True)} processes for some w:",
                  "    maj := w", "  else:", "    maj := v"]
    lines += ["  strong := false",
              f"  if received (M, maj) from {g.pick(['more than n/2 + t', 'n - t', '2t + 1'])} processes:",
              "    strong := true", "", "round 2:", "  v := maj", "  if coordinator:",
              "    send (Q, maj) to all", "  elif not strong:",
              "    if received (Q, w) from coordinator for some w:", "      v := w"]
    g.tag("prop_safety", "prop_initially")
    props = ["validity0: initially (no v == 1) -> always (no v == 1)",
             "agreement assuming correct coordinator: always (no v == 0 or no v == 1)"]
    return lines + _props(props), fm


def _rounds(g: _Gen, name: str) -> tuple[list[str], Faults]:
    """``rounds carrying v:``: a Ben-Or round whose obligations tactl generates itself."""
    fm = g.faults(("byzantine", "crash"))
    extra = ""
    if fm.tag == "byzantine":
        fm = Faults(fm.tag, fm.line, fm.parameters, "n > 5t, t >= f, f >= 0",
                    (("n", 6), ("t", 1), ("f", dict(fm.valuation)["f"])), False)
    lines = _header(name, fm, False, g, extra)
    g.tag("rounds_carrying", "msg_payload", "msg_tagged", "msg_star", "wait_until", "for_some_w",
          "decide", "coin", "if_elif", "msg_one_instance")
    maj = "more than (n + t)/2" if fm.tag == "byzantine" else "more than n/2"
    g.tag("thr_more_than_frac")
    lines += ["messages (R, {0, 1}), (P, {0, 1}, D), (P, ?)", "", "variables",
              "  v: {0, 1} = input", "", "rounds carrying v:", "  send (R, v) to all",
              "  wait until received (R, *) from n - t processes",
              f"  if received (R, w) from {maj} processes for some w:",
              "    send (P, w, D) to all", "  else:", "    send (P, ?) to all",
              "  wait until received (P, *) from n - t processes"]
    dec = maj if fm.tag == "byzantine" else g.pick(["more than t", "t + 1"])
    adopt = "t + 1" if fm.tag == "byzantine" else g.pick(["at least 1", "1"])
    lines += [f"  if received (P, w, D) from {dec} processes for some w:", "    v := w",
              "    decide w", f"  elif received (P, w, D) from {adopt} processes for some w:",
              "    v := w", "  else:", "    v := " + g.pick(["coin toss", "coin"])]
    g.tag("thr_n_minus_t")
    return lines, fm


def _async_coordinator(g: _Gen, name: str) -> tuple[list[str], Faults]:
    """A Tendermint-like round: the proposer's message ``from coordinator``, oracles, votes."""
    fm = g.faults(("byzantine",))
    lines = _header(name, fm, False, g)
    g.tag("coordinator_async", "msg_payload", "oracle", "for_some_w", "wait_until", "decide",
          "if_elif", "enum_bot", "msg_one_instance")
    lines += ["messages (PROP, {0, 1}) from coordinator, (VOTE, {0, 1, ⊥})", "", "variables",
              "  v: {0, 1} = input", "  ok: bool = false", "", "if coordinator:",
              "  send (PROP, v) to all", "wait until received (PROP, *) from coordinator",
              "ok := oracle", "if ok and received (PROP, w) from coordinator for some w:",
              "  send (VOTE, w) to all", "else:", "  send (VOTE, ⊥) to all",
              f"wait until received (VOTE, *) from {g.threshold(strong=True)} processes",
              f"if received (VOTE, w) from {g.threshold(strong=True)} processes for some w:",
              "  decide w"]
    g.tag("msg_star", "prop_safety", "prop_initially")
    props = ["agreement: always not (some decided == 0 and some decided == 1)",
             "validity0: initially (all v == 0) -> always (no decided == 1)"]
    if g.chance(0.5):
        g.tag("hyp_correct_coordinator", "prop_liveness", "prop_done")
        props.append("term assuming correct coordinator: eventually (all done)")
    return lines + _props(props), fm


def _set_round(g: _Gen, name: str) -> tuple[list[str], Faults]:
    """DBFT-like: bin_values, ``for each`` echo, ``w in S for some w``, quorum choice."""
    fm = g.faults(("symmetric", "clean_crash", "byzantine", "crash"))
    lines = _header(name, fm, False, g)
    g.tag("set_var", "for_each", "set_builder", "set_ops", "quorum_choice", "msg_payload",
          "loop_forever", "msg_several_instances", "for_some_w", "enum_bot", "decide", "if_elif")
    lines += ["messages (B, {0, 1}), (AUX, {0, 1})", "", "variables", "  est: {0, 1} = input",
              "  bins: set of {0, 1} = ∅", "  aux: {0, 1, ⊥} = ⊥", "  ended: bool = false", "",
              "round:", "  send (B, est) to all", "  loop forever:",
              f"    for each w in {{w : received (B, w) from {g.threshold()} distinct processes}}:",
              "      send (B, w) to all",
              f"    bins := bins ∪ {{w : received (B, w) from {g.threshold()} distinct processes}}",
              "    if aux == ⊥ and w in bins for some w:", "      aux := w",
              "      send (AUX, w) to all",
              f"    if not ended and aux != ⊥ and received (AUX, vals) from {g.threshold(strong=True)} "
              f"distinct processes for some {'nonempty ' if g.chance(0.5) else ''}vals ⊆ bins:",
              "      ended := true", "      if vals == {v} for some v:", "        est := v",
              "        decide v"]
    if g.flip("card"):
        g.tag("set_card")
        lines += ["      elif |vals| == 2:", "        est := 0"]
    g.tag("prop_safety", "prop_initially", "prop_liveness")
    props = ["just0: initially (no est == 0) -> always (no 0 in bins)",
             "agreement: always not (some decided == 0 and some decided == 1)",
             "term: eventually (all ended)"]
    return lines + _props(props), fm


FAMILIES = {
    "loop": _event_loop, "waits": _waits, "sync": _sync_round, "phases": _phases,
    "rounds": _rounds, "coord": _async_coordinator, "sets": _set_round,
}


def generate(seed: int, index: int) -> Program:
    """Program ``index`` of the stream ``seed``: the families in turn, the rest random."""
    rng = random.Random(f"tactl-fuzz-alg:{seed}:{index}")
    families = list(FAMILIES)
    family = families[index % len(families)]
    g = _Gen(rng, index // len(families), index % len(families))
    name = f"Fz{seed}x{index}"
    lines, fm = FAMILIES[family](g, name)
    text = "\n".join(lines) + "\n"
    return Program(seed, index, family, text, frozenset(g.tags), fm.valuation)


def programs(seed: int, count: int) -> list[Program]:
    return [generate(seed, i) for i in range(count)]


def uncovered(progs: list[Program]) -> list[str]:
    """The constructs none of ``progs`` uses, in :data:`CONSTRUCTS` order."""
    used = set().union(*(p.tags for p in progs)) if progs else set()
    return [c for c in CONSTRUCTS if c not in used]
