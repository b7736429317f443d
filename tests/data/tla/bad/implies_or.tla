\* error: 13:12: a disjunction next to '=>' without parentheses
---- MODULE implies_or ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME NbOfCorrProc = N - F /\ N > 3 * T
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == ProcessesLocations \in [Processes -> {"A"}] /\ x = 0
Rule0(p) == ProcessesLocations[p] = "A"
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "B"]
    /\ x' = x + 1
Next == \E p \in Processes: Rule0(p)
NumInB == Cardinality({p \in Processes : ProcessesLocations[p] = "B"})
prop == [](x = 0 \/ x = 1 => NumInB = 0)
====
