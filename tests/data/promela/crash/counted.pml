/* Crashes counted by the file itself, in the style of cond-consensus2 (written for
   tests/translation/test_pml_crash_fairness.py): at most F processes die (`nfaulty < F`), at any
   location; a dead process keeps taking the `else` step, which changes nothing. Under the file's
   fairness `termination` is violated: one process dies and the others are never scheduled (nothing
   is sent, so every process has every message). Under the derived justice it holds. */
#define V0 0
#define P 1
#define AC 2
#define CR 3

symbolic int N, T, F;
int nsnt, nfaulty;

assume(N > 2 * T);
assume(T >= 1);
assume(F <= T);
assume(F >= 1);

atomic all_acc_or_cr = all(Proc:pc == AC || Proc:pc == CR);
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
                :: pc == P ->
                    havoc(next_nrcvd);
                    assume(nrcvd <= next_nrcvd && next_nrcvd <= nsnt);
                :: else -> next_nrcvd = nrcvd;
            fi;
            if
                :: pc == V0 -> next_pc = P;
                :: pc == P && next_nrcvd >= N - T -> next_pc = AC;
                :: nfaulty < F && pc != CR -> nfaulty++; next_pc = CR;
                :: else -> next_pc = pc;
            fi;
            if
                :: pc == V0 && next_pc == P -> nsnt++;
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
ltl termination { <>all_acc_or_cr }
