\* error: 8:1: Rule0 leaves y' unconstrained
---- MODULE unconstrained ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME NbOfCorrProc = N - F /\ N > 3 * T
VARIABLES ProcessesLocations, x, y
TypeOk == x \in Nat /\ y \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == ProcessesLocations \in [Processes -> {"A"}] /\ x = 0 /\ y = 0
Rule0(p) == ProcessesLocations[p] = "A"
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "B"]
    /\ x' = x + 1
Next == \E p \in Processes: Rule0(p)
====
