\* error: 7:13: 'CHOOSE' is TLA+ outside the fragment tactl reads
---- MODULE choose_expression ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME NbOfCorrProc = N - F /\ N > 3 * T
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == x = CHOOSE y \in Nat : y > 0
====
