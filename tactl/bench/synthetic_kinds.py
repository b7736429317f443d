"""Synthetic receive TAs with one large message kind: how the Env grows with a kind's size.

``kind_rta(n)`` is a Byzantine asynchronous ``.rta`` whose kind ``K`` has ``n`` message types
``M0 … M{n-1}``. Every type is sent by the processes starting in its own initial location, and a
rule "wait for n - t messages of the kind" is guarded by the sum of all the kind's receive
counters — the guard that made the old all-subsets Env (one bound per subset of the kind)
exponential. A second rule needs a strict majority of ``M0`` among them, a third ``t + 1`` of
``M0`` and of ``M1`` at once (one faulty sender counts once for the kind), so the translation
also exercises per-type atoms and a proper subset of the kind.

Used by the tests (tests/translation/test_translate.py) and by benchmarks::

    from tactl.bench.synthetic_kinds import kind_rta
    Path("k10.rta").write_text(kind_rta(10))   # then: tactl translate k10.rta
"""

from __future__ import annotations


def kind_rta(n_types: int) -> str:
    """The ``.rta`` text of a Byzantine async automaton with one kind of ``n_types`` types."""
    if n_types < 2:
        raise ValueError("a kind needs at least two message types")
    types = [f"M{i}" for i in range(n_types)]
    starts = [f"S{i}" for i in range(n_types)]
    total = " + ".join(f"received({m})" for m in types)
    rules = [f"    {i}: {s} -> W send {m};" for i, (s, m) in enumerate(zip(starts, types))]
    k = n_types
    rules += [
        f"    {k}: W -> D when ({total} >= n - t);",
        f"    {k + 1}: W -> A when ({total} >= n - t && 2 * received(M0) >= n + t + 1);",
        f"    {k + 2}: W -> B when (received(M0) >= t + 1 && received(M1) >= t + 1);",
        f"    {k + 3}: D -> D;",
    ]
    return "\n".join([
        f"/* synthetic: one kind of {n_types} message types (tactl.bench.synthetic_kinds.kind_rta) */",
        f"rta Kind{n_types} {{",
        "  parameters n, t, f;",
        "  assumptions (3) { n > 3 * t; t >= f; f >= 0; }",
        "  faults byzantine(f);",
        "  timing async;",
        f"  kind K: {', '.join(types)};",
        f"  locations {', '.join(starts)}, W, D, A, B;",
        f"  initial {', '.join(starts)};",
        f"  rules ({len(rules)}) {{",
        *rules,
        "  }",
        "  specifications (1) {",
        "    safe: S0 == 0 -> [](A == 0);",
        "  }",
        "}",
    ]) + "\n"
