"""Synthetic large automata in the shape ByMC prints for automata it derives from Promela.

The public Promela-derived benchmarks (150–2200 rules) are not available here, so the tests and
``make bench`` generate automata of that size and style: generated location names, several local
values per location (some -1), fully parenthesised terms, ``(-)`` for unary minus, guards ``1``,
no ``;`` after the last action, ``name = formula;`` specifications, and long location sums.
"""

from __future__ import annotations

import random


def promela_style_ta(n_locations: int, n_rules: int, n_shared: int = 8, seed: int = 7) -> str:
    rng = random.Random(seed)
    shared = [f"nsnt{i}" for i in range(n_shared)]
    locs = [f"loc{i}_{rng.randint(0, 3)}_{'X' if i % 11 == 0 else rng.randint(0, 1)}" for i in range(n_locations)]
    initial = locs[: max(2, n_locations // 10)]
    lines = ["skel Proc {", "  local pc, a, b;", f"  shared {', '.join(shared)};", "  parameters N, T, F;",
             "  assumptions (2) {", "    (N > (3 * T));", "    (T >= F);", "  }",
             f"  locations ({len(locs)}) {{"]
    lines += [f"    {name}: [{i}; {rng.randint(-1, 2)}; {rng.randint(0, 1)}];" for i, name in enumerate(locs)]
    lines += ["  }", f"  inits ({len(locs) - len(initial) + 1 + n_shared}) {{",
              f"    (({' + '.join(initial)}) == (N - F));"]
    lines += [f"    ({name} == 0);" for name in locs[len(initial):]]
    lines += [f"    ({x} == 0);" for x in shared] + ["  }", f"  rules ({n_rules}) {{"]
    for r in range(n_rules):
        src, dst = rng.choice(locs), rng.choice(locs)
        atoms = [f"({rng.choice(shared)}  >=  ((T + {rng.randint(0, 3)}) + ((-)F)))"
                 for _ in range(rng.randint(1, 4))]
        guard = "  &&  ".join(atoms) if r % 5 else "1"
        x = rng.choice(shared)
        actions = f"{x}' == ({x} + 1)" + ("" if x == shared[0] else f"; {shared[0]}' == {shared[0]}")
        lines += [f"  {r}: {src} -> {dst}", f"      when ({guard})", f"      do {{ {actions} }};"]
    lines += ["  }", "  specifications (1) {",
              f"    safe = (({locs[0]} == 0) -> []({locs[-1]} == 0));", "  }", "} /* Proc */"]
    return "\n".join(lines) + "\n"


def scaled_ta(n_locations: int, n_rules: int, seed: int = 11) -> str:
    """A valid automaton with ``n_locations`` locations and ``n_rules`` rules, for scaling tests.

    Written the way large hand-written or generated files are: short location lines, a long
    initial sum over the first tenth of the locations, a few locations pinned to zero, the others
    left unconstrained (so every one of them is a candidate initial location), macros in guards,
    and a property over the first and last locations. Deterministic for a given seed.
    """
    rng = random.Random(seed)
    n = max(2, n_locations)
    locs = [f"l{i}" for i in range(n)]
    initial = locs[: max(2, n // 10)]
    pinned = locs[len(initial):][::97]
    lines = ["skel Scaled {", "  local pc;", "  shared x, y, z;", "  parameters N, T, F;",
             "  define THR == T + 1 - F;", "  define MAJ == N - T - F;",
             "  assumptions (2) {", "    N > 3 * T;", "    T >= F;", "    F >= 0;", "  }",
             f"  locations ({n}) {{"]
    lines += [f"    {name}: [{i % 3}];" for i, name in enumerate(locs)]
    lines += ["  }", "  inits {", f"    {' + '.join(initial)} == N - F;"]
    lines += [f"    {name} == 0;" for name in pinned]
    lines += ["    x == 0;", "    y == 0;", "    z == 0;", "  }", f"  rules ({n_rules}) {{"]
    shared = ("x", "y", "z")
    for r in range(n_rules):
        src, dst = rng.choice(locs), rng.choice(locs)
        v = shared[r % 3]
        guard = ("true", "x >= THR", "y >= MAJ && z < THR", f"x + y >= T + {r % 5}")[r % 4]
        lines.append(f"    {r}: {src} -> {dst} when ({guard}) do {{ {v}' == {v} + 1; unchanged({', '.join(w for w in shared if w != v)}); }};")
    lines += ["  }", "  specifications (1) {",
              f"    safe: ({locs[0]} == 0) -> [](({locs[-1]} == 0) || (x >= THR));", "  }", "}"]
    return "\n".join(lines) + "\n"


#: The chain lengths ``make bench`` (``--only chain``) and ``make bench-peers`` measure: up to 1024,
#: where the curve's slope shows (below 256 process start dominates) and the table, ByMC included,
#: still takes about a minute of CPU.
CHAIN_SIZES = (8, 16, 32, 64, 128, 256, 512, 1024)


def chain_ta(k: int) -> str:
    """ISOLA'18's STRB (Srikanth & Toueg's reliable broadcast, ``skel Proc`` style, so that ByMC reads
    it too) with ``k`` relay stages ``locR1 … locRk`` between having the value and sending ECHO.

    A process that starts with 1, or has seen ``T + 1 - F`` ECHOs, enters the first stage; every
    stage passes to the next unguarded and, once ``N - T - F`` ECHOs are there, may accept at once
    (sending its ECHO); the last stage sends ECHO. No stage has a self-loop, so the justice of
    ``corr`` asks every stage to empty. The guards stay STRB's two while the automaton grows by one
    location and two rules per stage: how a checker's time grows with the automaton rather than
    with its thresholds. ``unforg`` (safety) and ``corr`` (liveness) hold for every ``k >= 1``."""
    if k < 1:
        raise ValueError("a chain needs at least one relay stage")
    stages = [f"locR{i}" for i in range(1, k + 1)]
    locs = ["loc0", "loc1", *stages, "locSE", "locAC"]
    accept = "nsnt >= THRESH2 - F"
    rules = [("loc1", stages[0], "true", False), ("loc0", stages[0], "nsnt >= THRESH1 - F", False)]
    rules += [(a, b, "true", False) for a, b in zip(stages, stages[1:])]
    rules += [(stages[-1], "locSE", "true", True)]
    rules += [(src, "locAC", accept, True) for src in ("loc0", "loc1", *stages)]
    rules += [("locSE", "locAC", accept, False)] + [(loc, loc, "true", False) for loc in ("loc0", "locSE", "locAC")]
    inits = ["(loc0 + loc1) == N - F;", *(f"{loc} == 0;" for loc in locs[2:]), "nsnt == 0;"]
    justice = ["(nsnt < THRESH1 || loc0 == 0)", "(nsnt < THRESH2 || loc0 == 0)",
               "(nsnt < THRESH2 || locSE == 0)", "(loc1 == 0)", *(f"({s} == 0)" for s in stages)]
    lines = [f"/* STRB with {k} relay stages (tactl.bench.synthetic.chain_ta) */", f"skel Chain{k} {{",
             "  local pc;", "  shared nsnt;", "  parameters N, T, F;",
             "  define THRESH1 == T + 1;", "  define THRESH2 == N - T;",
             "  assumptions (3) {", "    N > 3 * T;", "    T >= F;", "    T >= 1;", "  }",
             f"  locations ({len(locs)}) {{", *(f"    {loc}: [{i}];" for i, loc in enumerate(locs)), "  }",
             f"  inits ({len(inits)}) {{", *(f"    {x}" for x in inits), "  }",
             f"  rules ({len(rules)}) {{"]
    for i, (src, dst, guard, send) in enumerate(rules):
        lines.append(f"  {i}: {src} -> {dst} when ({guard}) do {{ nsnt' == nsnt{' + 1' if send else ''}; }};")
    lines += ["  }", "  specifications (2) {", "    unforg: (loc1 == 0) -> [](locAC == 0);",
              "    corr: <>[](" + "\n        && ".join(justice) + ")\n        -> ((loc0 == 0) -> <>(locAC != 0));",
              "  }", "}"]
    return "\n".join(lines) + "\n"
