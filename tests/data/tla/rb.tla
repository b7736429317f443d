------------------------------- MODULE rb -------------------------------------
(* Reliable broadcast in TACO's fragment of TLA+ (tactl's own example): correct
   processes start in V0 or V1, echo once, accept after n - t echoes. *)
EXTENDS Integers, FiniteSets

CONSTANTS Processes, NbOfCorrProc, N, T, F

ASSUME NbOfCorrProc = N - F
    /\ N > 3 * T
    /\ T >= F
    /\ F >= 0

VARIABLES ProcessesLocations, nsnt

TypeOk == nsnt \in Nat
    /\ ProcessesLocations \in [Processes -> {"V0", "V1", "SE", "AC"}]

Init == ProcessesLocations \in [Processes -> {"V0", "V1"}]
    /\ nsnt = 0
--------------------------------------------------------------------------------
Rule0(p) == ProcessesLocations[p] = "V1"
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "SE"]
    /\ nsnt' = nsnt + 1

Rule1(p) == ProcessesLocations[p] = "V0"
    /\ nsnt >= T + 1 - F
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "SE"]
    /\ nsnt' = nsnt + 1

Rule2(p) == ProcessesLocations[p] = "SE"
    /\ nsnt >= N - T - F
    /\ ProcessesLocations' = [ProcessesLocations EXCEPT ![p] = "AC"]
    /\ UNCHANGED << nsnt >>

Next == \E p \in Processes: Rule0(p) \/ Rule1(p) \/ Rule2(p)

Spec == Init /\ [][Next]_<< ProcessesLocations, nsnt >>
--------------------------------------------------------------------------------
NumInV1 == Cardinality({p \in Processes : ProcessesLocations[p] = "V1"})
NumInAC == Cardinality({p \in Processes : ProcessesLocations[p] = "AC"})
NumEarly == Cardinality({p \in Processes : ProcessesLocations[p] = "V0" \/ ProcessesLocations[p] = "V1"})

\* holds: without a V1 process nobody accepts
unforg == NumInV1 = 0 => [](NumInAC = 0)
\* violated: a V1 process makes every correct process accept
noAccept == [](NumInAC = 0)
\* a state predicate: checked as an invariant
notAllEarly == NumEarly >= 0
================================================================================
