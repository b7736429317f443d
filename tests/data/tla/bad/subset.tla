\* error: 7:15: 'SUBSET' is TLA+ outside the fragment tactl reads
---- MODULE subset ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME NbOfCorrProc = N - F /\ N > 3 * T
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == x \in SUBSET {1}
====
