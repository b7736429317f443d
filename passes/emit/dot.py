"""Emitter: threshold automaton → Graphviz DOT text (``tactl dot``).

Locations become nodes (initial ones drawn bold, with an entry arrow), rules become edges labelled
``id: guard`` and, when they change shared variables, ``/ x += 1``. Macros stay unexpanded so the
picture reads like the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.expr import BoolConst, to_text
from tactl.ir.ta.model import Rule, ThresholdAutomaton

from tactl.passes.emit.render import render


@dataclass(frozen=True)
class DotNode:
    id: str
    label: str
    initial: bool
    start: str


@dataclass(frozen=True)
class DotEdge:
    source: str
    target: str
    label: str
    highlight: bool = False


def quote(text: str) -> str:
    """A DOT double-quoted string (``\\n`` stays a DOT line break)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def rule_label(ta: ThresholdAutomaton, rule: Rule) -> str:
    parts = [f"{rule.id}: {to_text(rule.guard)}" if rule.guard != BoolConst(True) else f"{rule.id}"]
    changes = [ta.update_text(u) for u in rule.updates if not u.is_identity]
    if changes:
        parts.append("/ " + ", ".join(changes))
    return "\n".join(parts)


def emit_dot(ta: ThresholdAutomaton, hide_self_loops: bool = False,
             highlight: frozenset[int] = frozenset()) -> str:
    """DOT text of ``ta``; ``hide_self_loops`` drops self-loops that change nothing (stuttering),
    except those in ``highlight``: the rules (indices into ``ta.rules``) drawn thick and red,
    e.g. the steps of a counterexample, so the picture shows its path."""
    initial = set(ta.initial_locations())
    nodes = [DotNode(quote(loc.name), quote(loc.name), loc.name in initial, quote("__start_" + loc.name))
             for loc in ta.locations]
    edges = [DotEdge(quote(r.source), quote(r.target), quote(rule_label(ta, r)), i in highlight)
             for i, r in enumerate(ta.rules)
             if i in highlight
             or not (hide_self_loops and r.is_self_loop and all(u.is_identity for u in r.updates))]
    return render("dot/ta.dot.j2", name=quote(ta.name), title=quote(ta.name), nodes=nodes, edges=edges)
