\* error: 9:11: IF over the state is not in the fragment
---- MODULE state_if ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME NbOfCorrProc = N - F /\ N > 3 * T
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == ProcessesLocations \in [Processes -> {"A"}] /\ x = 0
Rule0(p) == ProcessesLocations[p] = "A"
    /\ IF x > T THEN x >= 1 ELSE x >= 2
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "B"]
    /\ x' = x + 1
Next == \E p \in Processes: Rule0(p)
====
