"""Pseudocode (``.alg``) → receive threshold automaton, by control-state extraction.

Installed as ``tactl.passes.alg_to_rta`` (the folder is ``passes/alg_to_rta/`` at the top of the
repository). The entry point is ``extract.parse_algorithm``; its modules, in pipeline order:

* ``rounds`` — ``rounds carrying v:``: the one-round program and its round-rigid obligations;
* ``extract`` — the entry point: runs the stages below and assembles the ``ReceiveTA``;
* ``context`` — the declarations every stage shares, and how a stage reports a problem;
* ``declarations`` — reading and checking the declarations and the resilience condition;
* ``phases`` — numbered rounds of a phase and the coordinator;
* ``sets`` — sets over a finite domain and quorum choice, used while compiling and evaluating;
* ``instructions`` — the code as instructions, liveness, stop points;
* ``thresholds`` — rational thresholds normalised to integer linear comparisons;
* ``evaluate`` — one path of a step: local values, receive conditions, message counting;
* ``guards`` — the z3 oracle under the resilience condition, and guard simplification;
* ``explore`` — every way a step can go from a location;
* ``names`` — location names and meanings;
* ``rules`` — the receive rules with their source lines;
* ``kinds`` — which message instances form a kind;
* ``predicates`` — predicates on one process's state, the variables properties read;
* ``crashes`` — crash locations and crash rules;
* ``properties`` — properties over location counters;
* ``results`` — the result and the table ``tactl parse`` prints;
* ``premises`` — the premises of the round-rigid obligations, shown on the automaton (read by
  the report).
"""
