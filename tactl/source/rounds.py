"""``rounds carrying v:`` in the interpreter: the first round of the repeated algorithm, checked
against the obligations of docs/alg.md "Multi-round algorithms", as the interpreter states them
from that table (``passes/alg_to_rta/rounds.py`` is not read).

The round is the program (its end is ``done``); ``v`` starts as an input. The ghost ``tossed``
(renamed ``tossed_1``, … if the program uses the name) says that ``v``'s **current** value is a coin
outcome: the interpreter sets it where ``v := coin`` executes and clears it where any other
assignment to ``v`` executes — so a coin value overwritten afterwards does not count as a toss. For
every value ``w`` of ``v`` (``u`` over the others):

* ``validity_w``: ``initially (no v == w) -> always (no decided == w and no (done and v == w))``
* ``agreement_w``: ``always ((some decided == w) -> always (no (done and v != w) and no decided == u …))``
* ``round_termination``: ``eventually (all done)``
* ``decide_or_flip``: ``eventually (all done and (no (done and not tossed and v != w) or …))``
* ``unanimity_w``: ``initially (all v == w) -> eventually (all (done and decided == w))``

They are parsed by the ``.alg`` reader from that text, so they mean what the same property
written by a user means.
"""

from __future__ import annotations

from dataclasses import replace

from tactl.ir.alg import syntax as A
from tactl.ir.alg.reader import parse_alg


def ghost_name(alg: A.Algorithm) -> str:
    used = {v.name for v in alg.variables}
    return next(n for n in ("tossed", *(f"tossed_{i}" for i in range(1, len(used) + 2)))
                if n not in used)


def obligation_texts(v: str, domain: tuple[str, ...], tossed: str) -> list[tuple[str, str]]:
    out = []
    for w in domain:
        out.append((f"validity_{w}", f"initially (no {v} == {w}) -> always (no decided == {w} "
                                     f"and no (done and {v} == {w}))"))
    for w in domain:
        others = " and ".join(f"no decided == {u}" for u in domain if u != w)
        out.append((f"agreement_{w}", f"always ((some decided == {w}) -> always (no (done and "
                                      f"{v} != {w}){' and ' + others if others else ''}))"))
    out.append(("round_termination", "eventually (all done)"))
    flips = " or ".join(f"no (done and not {tossed} and {v} != {w})" for w in domain)
    out.append(("decide_or_flip", f"eventually (all done and ({flips}))"))
    for w in domain:
        out.append((f"unanimity_{w}", f"initially (all {v} == {w}) -> eventually (all (done and "
                                      f"decided == {w}))"))
    return out


def with_obligations(alg: A.Algorithm) -> tuple[A.Algorithm, str | None]:
    """``alg`` with the ghost variable and the obligations as its properties (after its own), and
    the ghost's name; ``alg`` itself (and None) without ``rounds carrying``."""
    carried = next((s.carrying for s in alg.program if isinstance(s, A.Round) and s.carrying), ())
    if not carried:
        return alg, None
    var = alg.variable(carried[0])
    tossed = ghost_name(alg)
    texts = obligation_texts(var.name, var.domain, tossed)
    spec = (f"algorithm Obligations\nparameters n\nresilience n >= 1\nfaults crash(n)\n"
            f"variables\n  {var.name}: {{{', '.join(var.domain)}}} = input\n"
            f"  {tossed}: bool = false\nskip\nproperties\n"
            + "".join(f"  {name}: {text}\n" for name, text in texts))
    generated = parse_alg(spec, "<obligations>").properties
    ghost = A.Variable(tossed, A.BOOL, A.FALSE)
    return replace(alg, variables=alg.variables + (ghost,),
                   properties=alg.properties + generated), tossed
