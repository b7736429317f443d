/* One round of Srikanth and Toueg's echo broadcast in Parametric Promela, written for
   tests/frontends/test_promela_as_cpp_reads.py, which edits it (a macro, a type, a branch) and compares the
   readings. As written: Byzantine faults (the receive bound nsnt + F), echo at T + 1, accept at
   N - T; unforg holds under N > 3T. */

#define IT 0 /* initial */
#define RI 1 /* the init message received */
#define SE 2 /* echo sent */
#define AC 3 /* accepted */

symbolic int N, T, F;

int nsnt = 0;

assume(N > 3 * T);
assume(T >= 1);
assume(F >= 0);
assume(F <= T);

atomic prec_init = all(Proc@end);
atomic prec_unforg = all(Proc:pc == IT);
atomic ex_acc = some(Proc:pc == AC);
atomic in_transit = some(Proc:nrcvd < nsnt);

active[N - F] proctype Proc() {
    byte pc = 0, next_pc = 0;
    int nrcvd = 0, next_nrcvd = 0;

    if
    :: pc = IT;
    :: pc = RI;
    fi;
end:
    do
    :: atomic {
        if
        :: next_nrcvd = nrcvd + 1;
        :: next_nrcvd = nrcvd;
        fi;
        if
        :: !(next_nrcvd <= nsnt + F) -> next_nrcvd = nrcvd;
        :: else;
        fi;
        if
        :: next_nrcvd >= N - T -> next_pc = AC;
        :: next_nrcvd < N - T && (pc == RI || next_nrcvd >= T + 1) -> next_pc = SE;
        :: else -> next_pc = pc;
        fi;
        if
        :: (pc == IT || pc == RI) && (next_pc == SE || next_pc == AC) -> nsnt++;
        :: else;
        fi;
        pc = next_pc;
        nrcvd = next_nrcvd;
        next_pc = 0;
        next_nrcvd = 0;
    }
    od;
}

ltl fairness { []<>(!in_transit) }
ltl unforg { []((prec_init && prec_unforg) -> []!ex_acc) }
