/* Crash-stop broadcast in the style of Fisman, Kupferman and Lustig (written for
   tests/translation/test_pml_crash_fairness.py): a process at V1 broadcasts and accepts, or dies
   while broadcasting (the message counted in nsntF: some receivers may get it); a process at V0
   accepts on one message, may die likewise, or keeps stepping in place. A dead process (CR) has no
   step at all; with -D STUTTER it keeps taking a step that changes nothing (and receives).
   Under the file's fairness a V0 process that has every message may keep stepping in place
   forever: `settle` is violated there and holds under the derived justice. */
#define V0 0
#define V1 1
#define AC 2
#define CR 3

symbolic int N;
int nsnt, nsntF;

assume(N > 1);

atomic prec_corr = all(Proc:pc == V1);
atomic ex_acc = some(Proc:pc == AC);
atomic all_acc = all(Proc:pc == AC || Proc:pc == CR);
atomic all_crash = all(Proc:pc == CR);
atomic in_transit = some(Proc:nrcvd < nsnt);

active[N] proctype Proc() {
    byte pc = V0;
    int nrcvd = 0, next_pc = 0, next_nrcvd = 0;

    if
        :: pc = V0;
        :: pc = V1;
    fi;
end:
    do
        :: atomic {
            havoc(next_nrcvd);
            assume(nrcvd <= next_nrcvd && next_nrcvd <= nsnt + nsntF);
            if
                :: pc == V1 -> next_pc = AC;
                :: pc == V1 -> next_pc = CR;
                :: pc == V0 && next_nrcvd >= 1 -> next_pc = AC;
                :: pc == V0 && next_nrcvd >= 1 -> next_pc = CR;
#ifdef STUTTER
                :: pc == V0 || pc == AC || pc == CR -> next_pc = pc;
#else
                :: pc == V0 || pc == AC -> next_pc = pc;
#endif
            fi;
            if
                :: (pc == V0 || pc == V1) && next_pc == AC -> nsnt++;
                :: (pc == V0 || pc == V1) && next_pc == CR -> nsntF++;
                :: else;
            fi;
            pc = next_pc;
            nrcvd = next_nrcvd;
            next_pc = 0;
            next_nrcvd = 0;
        }
    od;
}

ltl fairness { <>[](!in_transit) }
ltl corr { ((prec_corr && []!all_crash) -> <>ex_acc) }
ltl settle { <>[](!ex_acc || all_acc) }
