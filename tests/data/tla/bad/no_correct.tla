\* error: 3:22: no ASSUME NbOfCorrProc = ...
---- MODULE no_correct ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME N > 3 * T
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == ProcessesLocations \in [Processes -> {"A"}] /\ x = 0
Rule0(p) == ProcessesLocations[p] = "A"
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "B"]
    /\ x' = x + 1
Next == \E p \in Processes: Rule0(p)
====
