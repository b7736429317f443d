"""Synthesis of a threshold automaton's unknown coefficients (``tactl synthesize``).

``space`` reads the candidate space (the unknowns, their ranges), ``region`` turns a refuted
candidate's counterexample into the set of candidates it refutes, ``cegis`` runs the
counterexample-guided loop over the checker (tactl/engines/check.py), ``result`` holds what it
found. Between the engines and the driver in the layering: it calls ``check_automaton``, and the
driver's ``synthesize`` command calls it.
"""
