/* An initialisation that sends one init message, then echoes (a cut-down Srikanth-Toueg broadcast
   with an initiator, written for tests/translation/test_pml_static_fairness.py). The file's
   fairness promises the echoes only: a process may never receive init, so under it corr is
   violated by a run where nobody ever moves; tactl's derived justice delivers init too, and there
   corr holds. */
#define IT 0
#define SE 1
#define AC 2

symbolic int N, T, F;
int nsnt_echo;
int nsnt_init;

assume(N > 3 * T);
assume(F >= 0);
assume(T >= 1);
assume(F <= T);

atomic prec_corr = (nsnt_init > 0);
atomic prec_init = all(Proc@end);
atomic ex_acc = some(Proc:pc == AC);
atomic in_transit = some(Proc:nrcvd_echo < nsnt_echo);

active[N - F] proctype Proc() {
    byte pc = 0, next_pc = 0;
    int nrcvd_echo = 0, next_nrcvd_echo = 0;
    int nrcvd_init = 0, next_nrcvd_init = 0;

    atomic {
        if
            :: nsnt_init == 0 -> nsnt_init++;
            :: else;
        fi
    };
end:
    do
        :: atomic {
            if
            :: next_nrcvd_echo = nrcvd_echo + 1;
            :: next_nrcvd_echo = nrcvd_echo;
            fi;
            if
            :: !(next_nrcvd_echo <= nsnt_echo + F) -> next_nrcvd_echo = nrcvd_echo;
            :: else;
            fi;
            if
            :: next_nrcvd_init = nrcvd_init + 1;
            :: next_nrcvd_init = nrcvd_init;
            fi;
            if
            :: !(next_nrcvd_init <= nsnt_init) -> next_nrcvd_init = nrcvd_init;
            :: else;
            fi;
            if
                :: pc == IT && next_nrcvd_init >= 1 -> next_pc = SE;
                :: pc == SE && next_nrcvd_echo >= N - T -> next_pc = AC;
                :: else -> next_pc = pc;
            fi;
            if
                :: (pc == IT) && (next_pc == SE) -> nsnt_echo++;
                :: else;
            fi;
            pc = next_pc;
            nrcvd_echo = next_nrcvd_echo;
            nrcvd_init = next_nrcvd_init;
            next_pc = 0;
            next_nrcvd_echo = 0;
            next_nrcvd_init = 0;
        }
    od;
}

ltl fairness { []<>(!in_transit) }
ltl corr { []((prec_init && <>prec_corr) -> <>(ex_acc)) }
