\* error: 7:25: unexpected character '$'
---- MODULE syntax ----
CONSTANTS Processes, NbOfCorrProc, N, T, F
ASSUME NbOfCorrProc = N - F /\ N > 3 * T
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A", "B"}]
Init == x = 0 /\ x >= 0 $ 1
====
