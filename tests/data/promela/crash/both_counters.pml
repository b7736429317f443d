/* Crashes counted by the file itself *and* broadcasts cut short counted apart, in the style of
   c1cs.pml (written for tests/translation/test_pml_crash_readings.py): at most F processes die
   (`nfaulty < F`), at any location; one that dies at V0, where its step would broadcast, counts
   that broadcast in nsntF. A decided process keeps stepping and forgets what it received
   (`next_nrcvd = 0` at D), so under the file's fairness no run goes on for ever once a message was
   sent: `decide` holds vacuously there, and is violated under the derived justice (a crash).
   With -D KEEP the decided process keeps its count, and a crash violates `decide` in both. */
#define V0 0
#define S 1
#define D 2
#define CR 3

symbolic int N, T, F;
int nsnt, nsntF, nfaulty;

assume(N > 2 * T);
assume(T >= 1);
assume(F <= T);
assume(F >= 0);

atomic all_d = all(Proc:pc == D);
atomic all_d_or_cr = all(Proc:pc == D || Proc:pc == CR);
atomic in_transit = some(Proc:nrcvd < nsnt);

active[N] proctype Proc() {
    byte pc = 0, next_pc = 0;
    int nrcvd = 0, next_nrcvd = 0;

    if
        :: pc = V0;
    fi;
end:
    do
        :: atomic {
            if
                :: pc == V0 || pc == S ->
                    havoc(next_nrcvd);
                    assume(nrcvd <= next_nrcvd && next_nrcvd <= nsnt + nsntF);
#ifdef KEEP
                :: pc == D || pc == CR -> next_nrcvd = nrcvd;
#else
                :: pc == D || pc == CR -> next_nrcvd = 0;
#endif
            fi;
            if
                :: pc == V0 -> next_pc = S;
                :: pc == S && next_nrcvd >= N - T -> next_pc = D;
                :: nfaulty < F -> nfaulty++; next_pc = CR;
                :: (pc == S && next_nrcvd < N - T) || pc == D -> next_pc = pc;
            fi;
            if
                :: pc == V0 && next_pc == S -> nsnt++;
                :: pc == V0 && next_pc == CR -> nsntF++;
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
ltl decide { <>all_d }
ltl termination { <>all_d_or_cr }
