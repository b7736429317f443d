"""Parametric Promela (``.pml``) → receive threshold automaton: processes, faults, crashes, havoc, several process types.

Installed as ``tactl.passes.pml_to_rta`` (the folder is ``passes/pml_to_rta/`` at the top of the
repository). The entry point is ``translation.translate_promela``; its stages, in pipeline order,
are functions over one typed record, ``state.TranslationState``:

1. ``declarations`` — macros, parameters, shared counters, assumptions, the proctype's locals,
   initial ``if``, initialisation and step (value widths checked by ``widths``);
2. ``receives`` — the receive variables and the message types they count (found by ``multi``
   and ``havoc``; none, and guards over the shared counters themselves: ``direct``), then the
   fault model (``faults``, or the crash shapes of ``crash``, with ``running`` for the copy count
   ``N - F`` and ``partial`` for the crash steps' partial messages);
3. ``explore`` — the step walked (``walk``) from every reachable location: locations, the crash
   location (``crash``; crash locations that keep the state, ``crash_copies``), obligations,
   invariants and receive rules (a ``next_*`` the step need not reset: ``temporaries``);
4. ``properties`` — the ``ltl`` blocks as specifications over the propositions (``propositions``),
   and the note comparing the file's fairness with the derived justice; the self-loops that mark
   where the file lets a process wait (``waiting``);
5. ``translation`` — the receive automaton assembled, refusals turned into input errors.

Below the stages: ``values`` (the walk's values, markers and refusal), ``expressions`` (Promela
expressions evaluated over a path) and ``solving`` (the z3 questions on path conditions).
"""
