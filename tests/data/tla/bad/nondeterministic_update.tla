\* error: 10:8: the primed variable x' is not in the fragment here
---- MODULE nondeterministic_update ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME NbOfCorrProc = N - F /\ N > 3 * T
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == ProcessesLocations \in [Processes -> {"A"}] /\ x = 0
Rule0(p) == ProcessesLocations[p] = "A"
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "B"]
    /\ x' \in {x + 1, x + 2}
Next == \E p \in Processes: Rule0(p)
====
