"""The NuSMV engine: the counter system at fixed parameters, checked by NuSMV (BDD, or SAT-based
bounded model checking), every counterexample replayed by tactl's simulator.

The model is ``passes/emit/smv.py``'s, with the property asked about (:func:`check`), or with
several (:func:`check_many`: the model is built once). NuSMV runs a command script — build the
model, check each property (``check_invar``/``check_ltlspec -P name``, or
``check_ltlspec_bmc -k K``; an echoed marker before each, so the output splits by property),
then report reachable states and the BDD and memory statistics — and its answer is read back:

* ``holds`` (BDD only): for the parameter values given (or every valuation up to ``bound``
  satisfying the resilience condition, when the parameters are ``FROZENVAR``s), not for all n;
  with ``bmc`` no "holds" is ever claimed: no counterexample up to K steps is ``unknown``;
* ``violated``: only after the trace — "``-> State: 1.k <-``" blocks listing the variables that
  changed, ``-- Loop starts here`` before the state a lasso returns to — has been turned into an
  initial configuration, a schedule of rules (the model's ``rule`` variable names the rule fired
  to reach each state) and, for liveness, the loop's steps, and the simulator has replayed it
  (``tactl.engines.simulate.replay`` for reachability, ``replay_run`` otherwise). A trace that does not
  replay gives ``unknown`` with the reason, never ``violated``;
* a crash, a parse failure or a timeout of NuSMV gives ``unknown``.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tactl.engines.checkers import CheckerMissing, require
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, PropertyResult
from tactl.engines.simulate import Configuration, Replay, Step, replay, replay_run
from tactl.ir.eltl.formula import TemporalQuery, lasso_reason, reach_question
from tactl.ir.expr import Eventually, Expr, disj
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.emit.smv import SmvError, SmvModel, build_smv, check_parameters, initial_exists
from tactl.util import deadline

ENGINE = "nusmv"

_VERDICT = re.compile(r"^-- (specification|invariant) (.*?)\s+is (true|false)\s*$")
_STATE = re.compile(r"^-> State: (\d+)\.(\d+) <-\s*$")
_INPUT = re.compile(r"^-> Input: (\d+)\.(\d+) <-\s*$")
_ASSIGN = re.compile(r"^\s+(\S+) = (.*?)\s*$")
_REACHABLE = re.compile(r"^reachable states: (\S+)")
_DIAMETER = re.compile(r"^system diameter: (\d+)")
_BDD_NODES = re.compile(r"^BDD nodes allocated: (\d+)")
_MAX_RSS = re.compile(r"^Maximum resident size\s*=\s*(\d+)K")
_USER = re.compile(r"^User time\s+([\d.]+) seconds")
_SYSTEM = re.compile(r"^System time\s+([\d.]+) seconds")
_NO_CEX = re.compile(r"^-- no counterexample found with bound (\d+)")


@dataclass
class NusmvOutput:
    """What one NuSMV run said."""

    verdict: bool | None = None                       # the property: True holds, False violated
    states: list[dict[str, str]] = field(default_factory=list)   # full valuations, in order
    loop_starts: list[int] = field(default_factory=list)         # indices into ``states``
    details: dict[str, object] = field(default_factory=dict)
    bmc_depth: int | None = None                     # deepest bound BMC searched without a cex
    errors: list[str] = field(default_factory=list)


def parse_output(text: str) -> NusmvOutput:
    """NuSMV's answer for one specification: the verdict, the counterexample's
    states (each a full valuation: NuSMV prints only what changed), the loop markers, and the
    statistics it printed."""
    out = NusmvOutput()
    verdicts = 0
    in_trace = False
    current: dict[str, str] = {}
    for line in text.splitlines():
        m = _VERDICT.match(line)
        if m:
            verdicts += 1
            out.verdict = m.group(3) == "true"
            in_trace = not out.verdict
            continue
        if in_trace:
            m = _STATE.match(line)
            if m:
                current = dict(current)
                out.states.append(current)
                continue
            if _INPUT.match(line):
                continue
            if line.startswith("-- Loop starts here"):
                out.loop_starts.append(len(out.states))  # the state that comes next
                continue
            m = _ASSIGN.match(line)
            if m and out.states:
                current[m.group(1)] = m.group(2)
                continue
            if line.startswith(("Trace Description", "Trace Type", "-- as demonstrated")):
                continue
            if line.strip():
                in_trace = False  # the next command's output
        for pattern, key, conv in ((_REACHABLE, "states", _number), (_DIAMETER, "diameter", int),
                                   (_BDD_NODES, "bdd_nodes", int), (_MAX_RSS, "memory_kb", int),
                                   (_USER, "nusmv_user_s", float), (_SYSTEM, "nusmv_system_s", float)):
            m = pattern.match(line)
            if m:
                out.details[key] = conv(m.group(1))
        m = _NO_CEX.match(line)
        if m:
            out.bmc_depth = int(m.group(1))
        if line.startswith(("aborting", "file ", "ERROR", "Error", "error")):
            out.errors.append(line.strip())
    if verdicts > 1:
        out.errors.append(f"{verdicts} verdicts for one specification")
        out.verdict = None
    # a loop marker after the last state points past the end: drop it
    out.loop_starts = [i for i in out.loop_starts if i < len(out.states)]
    return out


def _number(text: str) -> int | float | str:
    try:
        value = float(text)
    except ValueError:
        return text
    return int(value) if value.is_integer() and abs(value) < 2**63 else value


# --------------------------------------------------------------------------- running NuSMV


def nusmv_binary() -> Path:
    """The NuSMV executable, or :class:`CheckerMissing` (also for a ``TACTL_NUSMV`` that names
    no executable file)."""
    binary = require("nusmv")
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise CheckerMissing("nusmv")
    return binary


MARK = "@@tactl"  # echoed before each check, so that the output splits by specification


def _script(model_file: str, specs, bmc: int | None) -> str:
    """NuSMV commands: build the model, check each specification (each announced by an echoed
    marker and followed by the CPU time it took), then the statistics."""
    lines = ["set on_failure_script_quits", f"read_model -i {model_file}",
             "go" if bmc is None else "go_bmc", "time"]
    for i, spec in enumerate(specs):
        lines.append(f"echo {MARK} {i}")
        if bmc is None:
            lines.append(("check_invar" if spec.keyword == "INVARSPEC" else "check_ltlspec")
                         + f" -P {spec.name}")
        elif spec.keyword == "INVARSPEC":  # plain BMC of G(invariant): no induction, no proof
            lines.append(f'check_ltlspec_bmc -k {bmc} -p "G ({spec.formula})"')
        else:
            lines.append(f"check_ltlspec_bmc -k {bmc} -P {spec.name}")
        lines.append("time")
    lines.append(f"echo {MARK} end")
    if bmc is None:
        lines.append("print_reachable_states")
    lines += ["print_usage", "quit"]
    return "\n".join(lines) + "\n"


def run_nusmv(model: str, script: str, timeout_s: float | None,
              keep: Path | None = None) -> tuple[str, str, int | None]:
    """NuSMV's stdout, stderr and exit status (None: killed at the timeout) on ``model``."""
    binary = nusmv_binary()
    with tempfile.TemporaryDirectory(prefix="tactl-nusmv-") as tmp:
        work = Path(keep) if keep is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        (work / "model.smv").write_text(model)
        (work / "check.cmd").write_text(script)
        try:
            done = subprocess.run([str(binary), "-s", "-source", "check.cmd"], cwd=work,
                                  capture_output=True, text=True, timeout=timeout_s,
                                  errors="replace")
            out, err, code = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err, code = "", None
        except OSError as e:  # not an executable after all, say
            out, err, code = "", f"cannot run {binary}: {e}", -1
        if keep is not None:
            (work / "nusmv.out").write_text(out + ("\n--- stderr\n" + err if err else ""))
        return out, err, code


_ELAPSE = re.compile(r"^elapse: ([\d.]+) seconds")


def split_output(text: str, count: int) -> tuple[list[str | None], str, float | None]:
    """The output of each of ``count`` checks (None: it did not finish — no marker after it),
    what came before the first and after the last (model building, statistics), and the CPU
    seconds model building took."""
    parts: list[list[str]] = [[]]
    labels: list[str] = ["head"]
    for line in text.splitlines():
        if line.startswith(MARK + " "):
            labels.append(line[len(MARK) + 1:].strip())
            parts.append([])
        else:
            parts[-1].append(line)
    sections: list[str | None] = [None] * count
    for k, label in enumerate(labels):
        if label.isdigit() and int(label) < count and k + 1 < len(labels):  # finished
            sections[int(label)] = "\n".join(parts[k])
    head = "\n".join(parts[0])
    tail = "\n".join(parts[-1]) if labels[-1] == "end" else ""
    m = next((m for m in map(_ELAPSE.match, parts[0]) if m), None)
    return sections, head + "\n" + tail, float(m.group(1)) if m else None


# --------------------------------------------------------------------------- the engine


def check(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None, *,
          bmc: int | None = None, timeout_s: float | None = None, bound: int | None = None,
          initial_cap: int | None = None, keep: Path | None = None) -> PropertyResult:
    """Decide ``query`` with NuSMV for the fixed ``parameters`` (each parameter of ``ta``, values
    satisfying the resilience condition; else :class:`SmvError`). Without ``parameters``,
    ``bound`` B checks every valuation with each parameter <= B in one run (FROZENVARs).
    ``bmc`` K: SAT-based bounded model checking up to K steps (never "holds").
    ``initial_cap``: a shared variable the inits let start at any value starts at most at this
    one (the explicit engine caps such values at its --bound; the scope says so); without it
    such an automaton is unsupported (no finite model).
    ``keep``: a directory to leave the model, the command script and NuSMV's output in.
    Raises :class:`tactl.engines.checkers.CheckerMissing` when NuSMV is not installed."""
    return check_many(ta, [query], parameters, bmc=bmc, timeout_s=timeout_s, bound=bound,
                      initial_cap=initial_cap, keep=keep)[0]


def check_many(ta: ThresholdAutomaton, queries: list[TemporalQuery],
               parameters: dict[str, int] | None, *, bmc: int | None = None,
               timeout_s: float | None = None, bound: int | None = None,
               initial_cap: int | None = None, keep: Path | None = None) -> list[PropertyResult]:
    """:func:`check` for several properties with one NuSMV run (the model is built once; each
    result's ``time_s`` is its share of the run, its details say how many shared it). On a
    timeout, the properties NuSMV finished keep their verdicts; the others are unknown."""
    start = time.perf_counter()
    frozen = parameters is None or (not parameters and bool(ta.parameters) and bound is not None)
    if frozen:  # every valuation up to the bound, in one run
        if bound is None:
            raise SmvError("NuSMV checks fixed parameter values: give a value for each of "
                           f"{', '.join(ta.parameters)} (--param), or a bound for them")
        parameters = None
    else:
        check_parameters(ta, parameters)
    if bmc is not None and bmc < 0:
        raise SmvError("the BMC bound must be a natural number")
    nusmv_binary()

    results: list[PropertyResult | None] = [None] * len(queries)

    def result(q: TemporalQuery, verdict: str, elapsed: float, **kw) -> PropertyResult:
        return PropertyResult(q.property, q.kind, verdict, ENGINE, elapsed, 0,
                              formula_class=q.formula_class.value, **kw)

    todo = []
    no_infinite_run = (not any(r.is_self_loop and ta.increments(r) == {} for r in ta.rules)
                       and lasso_reason(ta) is None)  # acyclic but for self-loops, none of them idle
    for i, q in enumerate(queries):
        initial = disj(*(b.initial for b in q.branches))
        if q.infinite and no_infinite_run:
            results[i] = result(q, UNKNOWN, 0.0, reason="vacuous: the automaton has no self-loop "
                                "that updates nothing, so it has no infinite run (tactl adds no "
                                "stuttering) and every liveness property would hold vacuously: "
                                "nothing was checked")
        elif initial_exists(ta, parameters, bound, initial_cap, (initial,)) is False:
            results[i] = result(q, UNKNOWN, 0.0, reason="vacuous: no initial configuration "
                                "satisfies the inits and the property's antecedent with these "
                                "parameters, so the property holds vacuously: nothing was checked")
        else:
            todo.append(i)
    if todo:
        try:
            model = build_smv(ta, [queries[i] for i in todo], parameters, bound,
                              initial_cap=initial_cap)
        except SmvError as e:
            for i in todo:
                results[i] = result(queries[i], UNSUPPORTED, time.perf_counter() - start,
                                    reason=f"no finite SMV model for NuSMV: {e}")
            return results  # type: ignore[return-value]
        limit = timeout_s
        left = deadline.remaining()
        if left is not None:
            limit = left if limit is None else min(limit, left)
        stdout, stderr, code = run_nusmv(model.text, _script("model.smv", model.specs, bmc), limit,
                                         keep)
        share = (time.perf_counter() - start) / len(todo)
        sections, rest, build_s = split_output(stdout, len(todo))
        shared = {"method": "bdd" if bmc is None else "bmc", **parse_output(rest).details}
        if bmc is not None:
            shared["bmc_length"] = bmc
        if model.bounds is not None:
            shared["processes"] = model.bounds.processes
        if build_s is not None:
            shared["nusmv_build_cpu_s"] = build_s
        if len(todo) > 1:
            shared["properties_in_run"] = len(todo)
        scope = _scope(ta, model, bound)
        for k, i in enumerate(todo):
            results[i] = _verdict(ta, queries[i], model, model.specs[k], sections[k], stdout,
                                  stderr, code, limit, bmc, scope, dict(shared),
                                  lambda verdict, **kw: result(queries[i], verdict, share, **kw))
    return results  # type: ignore[return-value]


def _verdict(ta, query, model, spec, section, stdout, stderr, code, limit, bmc, scope, details,
             result) -> PropertyResult:
    if section is None:  # NuSMV did not finish this check
        if code is None:
            return result(UNKNOWN, details=details,
                          reason=f"timeout: NuSMV did not answer within {limit:g} s")
        errors = parse_output(stdout).errors
        why = "; ".join(errors[:3]) or (stderr.strip().splitlines() or [f"exit status {code}"])[-1]
        return result(UNKNOWN, details=details, reason=f"NuSMV gave no verdict ({why})")
    parsed = parse_output(section)
    m = next((m for m in map(_ELAPSE.match, section.splitlines()) if m), None)
    if m:
        details["nusmv_check_cpu_s"] = float(m.group(1))
    if parsed.verdict is None and bmc is not None and parsed.bmc_depth is not None \
            and not parsed.errors:
        return result(UNKNOWN, details=details,
                      reason=f"no counterexample up to {parsed.bmc_depth} steps (bounded model "
                      "checking proves nothing beyond its bound)")
    if parsed.verdict is None:
        why = "; ".join(parsed.errors[:3]) or "no verdict line in its output"
        return result(UNKNOWN, details=details, reason=f"NuSMV gave no verdict ({why})")
    if parsed.verdict:
        if bmc is not None:  # never claimed by bounded model checking
            return result(UNKNOWN, details=details,
                          reason=f"no counterexample up to {bmc} steps (bounded model checking)")
        return result(HOLDS, scope=scope, details=details)
    if not parsed.states:
        return result(UNKNOWN, details=details, reason="NuSMV reported a violation without a trace")
    cex, problem = counterexample(ta, query, model, parsed)
    if cex is None:
        return result(UNKNOWN, details=details,
                      reason=f"NuSMV reported a violation whose trace could not be read: {problem}")
    details["trace_states"] = len(parsed.states)
    if not cex.replayed:
        return result(UNKNOWN, details=details, counterexample=cex,
                      reason="NuSMV reported a violation that tactl's simulator does not "
                      f"replay ({cex.replay.message}); not reported as violated")
    return result(VIOLATED, details=details, counterexample=cex, scope=scope)


def _scope(ta: ThresholdAutomaton, model: SmvModel, bound: int | None) -> str:
    capped = ""
    if model.bounds is not None and model.bounds.capped:
        capped = (f", initial values of {', '.join(model.bounds.capped)} (unbounded by the inits) "
                  f"<= {model.bounds.cap}")
    if model.parameters is not None:
        values = ", ".join(f"{p}={v}" for p, v in model.parameters.items())
        return (f"only the parameter valuation {values or '(no parameters)'}{capped} (NuSMV; not "
                "a proof for all n)")
    return (f"every parameter valuation with each parameter <= {bound} satisfying the resilience "
            f"condition{capped}, in one NuSMV run (not a proof for all n)")


# ------------------------------------------------------------------- traces → counterexamples


def counterexample(ta: ThresholdAutomaton, query: TemporalQuery, model: SmvModel,
                   parsed: NusmvOutput) -> tuple[Counterexample | None, str]:
    """The trace as tactl's counterexample (replayed), or None and why it cannot be read."""
    locs = [loc.name for loc in ta.locations]
    states = parsed.states
    try:
        first = states[0]
        counters = {x: int(first[model.names[x]]) for x in locs}
        shared = {x: int(first[model.names[x]]) for x in ta.shared}
        if model.parameters is not None:
            params = dict(model.parameters)
        else:
            params = {p: int(first[model.names[p]]) for p in ta.parameters}
    except (KeyError, ValueError) as e:
        return None, f"the first state does not give a value for {e}"
    rules: list[int | None] = []  # the rule fired to reach states[i] (None: stutter)
    for i, s in enumerate(states[1:], 2):
        name = s.get(model.rule_var)
        if name == model.stutter:
            rules.append(None)
        elif name in model.rule_constants:
            rules.append(model.rule_constants[name])
        else:
            return None, f"state 1.{i} was reached by an unknown rule '{name}'"
    init = Configuration.of(counters, shared)
    if query.infinite:
        if not parsed.loop_starts:
            return None, "a liveness counterexample without a loop"
        prefix, cycle = _lasso(states, parsed.loop_starts, rules, model)
        schedule = _merge([Step(r, 1) for r in prefix if r is not None])
        loop_steps = [Step(r, 1) for r in cycle if r is not None]
        check = replay_run(ta, query.negation, True, params, init, schedule, cycle=loop_steps)
        return Counterexample(params, init, schedule, check, cycle=loop_steps), ""
    fired = [r for r in rules if r is not None]
    if parsed.loop_starts:  # an LTL lasso for a finite-prefix class: unroll its loop
        prefix, cycle = _lasso(states, parsed.loop_starts, rules, model)
        fired = [r for r in prefix if r is not None]
        loop = [r for r in cycle if r is not None]
        fired += loop * max(1, _eventually_depth(query.negation))
    schedule = _merge([Step(r, 1) for r in fired])
    question = reach_question(query)
    if question is not None:
        check: Replay = replay(ta, question, params, init, schedule)
    else:
        check = replay_run(ta, query.negation, False, params, init, schedule)
    return Counterexample(params, init, schedule, check), ""


def _lasso(states: list[dict[str, str]], loop_starts: list[int], rules: list[int | None],
           model: SmvModel) -> tuple[list[int | None], list[int | None]]:
    """(rules of the prefix, rules of the loop). NuSMV closes a loop either by printing the
    loop's first state again at the end, or (as BMC may) by leaving the back edge implicit."""
    last = states[-1]
    for j in reversed(loop_starts):
        if j < len(states) - 1 and states[j] == last:
            return rules[:j], rules[j:]
    j = loop_starts[-1]
    back = states[j].get(model.rule_var)
    back_rule = None if back == model.stutter else model.rule_constants.get(back)
    return rules[:j], rules[j:] + [back_rule]


def _merge(steps: list[Step]) -> list[Step]:
    out: list[Step] = []
    for s in steps:
        if out and out[-1].rule == s.rule:
            out[-1] = Step(s.rule, out[-1].factor + s.factor)
        else:
            out.append(s)
    return out


def _eventually_depth(e: Expr) -> int:
    """The most ``<>`` nested on one path of ``e``: how often a lasso's loop must be unrolled so
    that every witness of a finite-prefix formula lies on the unrolled run."""
    def depth(node: Expr) -> int:
        inner = max((depth(c) for c in node.children()), default=0)
        return inner + (1 if isinstance(node, Eventually) else 0)

    return depth(e)


