\* error: 8:1: Step takes a process from "a" without requiring counters["a"] > 0
---- MODULE unguarded_step ----
CONSTANTS N, T, F
ASSUME N > 3 * T
Locs == { "a", "b" }
VARIABLES counters, x
Init == counters = [ l \in Locs |-> IF l = "a" THEN N - F ELSE 0 ] /\ x = 0
Step ==
    /\ counters' = [ counters EXCEPT !["a"] = @ - 1, !["b"] = @ + 1 ]
    /\ x' = x + 1
Next == Step
Safe == counters["b"] = 0
====
