\* error: 7:1: 'TypeOk' is defined twice (first at line 6)
---- MODULE defined_twice ----
CONSTANTS Processes, NbOfCorrProc, N
ASSUME NbOfCorrProc = N
VARIABLES ProcessesLocations, x
TypeOk == x \in Nat /\ ProcessesLocations \in [Processes -> {"A"}]
TypeOk == x \in Nat
Init == x = 0
====
