---------------------------- MODULE counters ----------------------------------
(* A counter system (tactl's own example): a counter per location, a message
   counter per value, bulleted lists, \E over values, LET and IF. *)
EXTENDS Integers

CONSTANTS N, T, F

ASSUME N > 3 * T /\ T >= F /\ F >= 0

Locs == { "init", "voted", "done0", "done1" }
Values == { "0", "1" }

VARIABLES
    counters, \* a counter for every location
    votes     \* the votes sent, per value

Init ==
    /\ counters = [ l \in Locs |-> IF l = "init" THEN N - F ELSE 0 ]
    /\ votes = [ v \in Values |-> 0 ]

Vote(v) ==
    /\ counters["init"] > 0
    /\ votes' = [votes EXCEPT ![v] = @ + 1]
    /\ counters' = [ counters EXCEPT !["init"] = @ - 1, !["voted"] = @ + 1 ]

Decide(v) ==
    /\ votes[v] + F >= N - T
    /\ LET target == IF v = "0" THEN "done0" ELSE "done1"
       IN
       /\ counters["voted"] > 0
       /\ counters' = [ counters EXCEPT !["voted"] = @ - 1, ![target] = @ + 1 ]
       /\ UNCHANGED <<votes>>

Next ==
    \/ \E v \in Values: Vote(v)
    \/ \E v \in Values: Decide(v)
    \/ UNCHANGED <<counters, votes>>

\* holds (a state predicate: checked as an invariant): two decisions need more votes than sent
Agreement == counters["done0"] = 0 \/ counters["done1"] = 0
\* violated: a decision is reachable
NoDecision == [](counters["done0"] = 0)
\* holds: a decision needs votes from correct processes
NoEarlyDecision == [](votes["0"] + votes["1"] = 0 => counters["done0"] + counters["done1"] = 0)
================================================================================
