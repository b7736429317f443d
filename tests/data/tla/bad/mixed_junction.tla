\* error: 14:32: '/\' and '\/' mixed without parentheses
---- MODULE mixed_junction ----
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
\* TLA+ gives /\ and \/ the same precedence: this needs parentheses
prop == [](NumInB = 0 /\ x = 0 \/ x > 0)
====
