"""The lock-step engine's questions about one property (tactl/engines/lockstep.py): the bounded
search for a violation up to the diameter's depth, whether an initial configuration satisfies its
antecedent, whether a run meets its hypothesis.
"""

from __future__ import annotations

import z3

from tactl.engines import minimal_params
from tactl.engines.lockstep_certificate import in_rounds, obligation
from tactl.engines.lockstep_encoding import initial, invariants, parameters, path, rc, solver, state_formula, undecided
from tactl.engines.lockstep_property import SyncProperty, clean_formula
from tactl.engines.lockstep_sim import Run
from tactl.engines.result import Obligation
from tactl.ir.expr import Expr, to_text
from tactl.ir.linear import first_unsatisfiable
from tactl.passes.rta_to_sync.sync_ta import SyncTA


def bmc(sta: SyncTA, prop: SyncProperty, depth: int, fixed: dict[str, int] | None = None, *,
        after: int | None = None, asked: list[Obligation] | None = None) -> tuple[str, Run | None, int, str]:
    """Search a violation on paths of at most ``depth`` rounds (for a property with a
    hypothesis: up to ``depth`` rounds before the clean round and ``after`` after it, ``depth``
    unless given), for the ``--param`` values ``fixed`` if given. ("violated", run, k, ""),
    ("none", None, queries, "") or ("unknown", None, queries, why). Each query z3 answers
    ``unsat`` is appended to ``asked`` (what a HOLDS rests on)."""
    queries = 0
    after = depth if after is None else after
    # fewest rounds first: the first violation found is a shortest one (then its parameters are
    # minimised lexicographically, tactl.engines.minimal_params)
    shapes = [(None, k) for k in range(prop.min_rounds, depth + 1 + prop.min_rounds)] \
        if not prop.clean_round else sorted(((j, j + 1 + m) for j in range(depth + 1) for m in range(after + 1)),
                                            key=lambda shape: (shape[1], shape[0]))
    for clean, length in shapes:
        params = parameters(sta)
        p = path(sta, length, "b", params)
        s = solver()
        s.add(rc(sta, params, fixed), *p.constraints, initial(sta, p.kappa[0]))
        if prop.init is not None:
            s.add(state_formula(sta, prop.init, p.kappa[0], params))
        if clean is not None:
            s.add(clean_formula(sta, prop, p.kappa[clean]))
        s.add(z3.Not(state_formula(sta, prop.safe, p.kappa[length], params)))
        queries += 1
        answer = s.check()
        if answer == z3.unknown:
            return "unknown", None, queries, undecided(s)
        if answer == z3.unsat and asked is not None:
            asked.append(obligation(_shape(clean, length), s, f"a violation of {prop.name} after "
                                    f"{in_rounds(length)}"
                                    + (f", round {clean + 1} meeting its hypothesis" if clean is not None else "")
                                    + "; unsat: there is none"))
        if answer == z3.sat:
            m = s.model()
            if minimal_params.enabled():
                lex = minimal_params.minimise_terms(s, s.check, m, list(params.items()))
                queries += lex.queries
                m = lex.model
                minimality = ("fewest rounds, then the lexicographically smallest parameters "
                              "(each smaller valuation refuted by z3)" if lex.proved else
                              f"fewest rounds; parameters not shown minimal: {lex.why}")
            val = lambda v: m.eval(v, model_completion=True).as_long()  # noqa: E731
            run = Run({q: val(v) for q, v in params.items()},
                      [{l: val(v) for l, v in k.items()} for k in p.kappa],
                      [{r: val(v) for r, v in lam.items()} for lam in p.lam], clean)
            return "violated", run, queries, minimality if minimal_params.enabled() else ""
    return "none", None, queries, ""


def _shape(clean: int | None, length: int) -> str:
    where = "" if clean is None else f", hypothesis in round {clean + 1}"
    return f"bounded check, {in_rounds(length)}{where}"


def initial_configuration(sta: SyncTA, init: Expr | None,
                          fixed: dict[str, int] | None = None) -> tuple[bool | None, str]:
    """Whether some parameter values (satisfying the RC and ``fixed``) have an initial
    configuration (satisfying ``init``, a property's antecedent); with why not, by layer."""
    params = parameters(sta)
    kappa = {l: z3.Int(f"i_{l}") for l in sta.locations}
    layers = (("the resilience condition is unsatisfiable", [rc(sta, params)]),
              ("no parameter values given by --param satisfy the resilience condition",
               [rc(sta, params, fixed)] if fixed else []),
              ("no initial configuration satisfies the invariants",
               [invariants(sta, kappa, params), initial(sta, kappa)]),
              ("no initial configuration satisfies the property's antecedent "
               f"({to_text(init) if init is not None else ''})",
               [state_formula(sta, init, kappa, params)] if init is not None else []))
    s = solver()
    exists, why = first_unsatisfiable(s, layers)
    return (None, undecided(s)) if exists is None else (exists, why)


def hypothesis_met(sta: SyncTA, prop: SyncProperty, depth: int,
                   fixed: dict[str, int] | None = None) -> tuple[bool | None, str]:
    """Whether some run (from an initial configuration satisfying Init) has a round of the
    property's hypothesis within ``depth`` rounds — with a diameter, at all."""
    params = parameters(sta)
    p = path(sta, depth, "h", params)
    s = solver()
    s.add(rc(sta, params, fixed), *p.constraints, initial(sta, p.kappa[0]),
          z3.Or(*[clean_formula(sta, prop, k) for k in p.kappa]))
    if prop.init is not None:
        s.add(state_formula(sta, prop.init, p.kappa[0], params))
    answer = s.check()
    return (None, undecided(s)) if answer == z3.unknown else (answer == z3.sat, "")
