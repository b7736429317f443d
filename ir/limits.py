"""Limits every text reader shares. On their own so that the pseudocode reader does not import
the threshold-automaton reader for one constant."""

# Python refuses to convert longer digit strings to int (a guard against quadratic conversion).
MAX_DIGITS = 4300
