/* A vote in the style of NBAC (written for tests/translation/test_pml_crash_fairness.py): a process
   at YES or NO sends its vote and waits at SEND, or, at NO, gives up into GONE without sending; its
   first step receives nothing (the receive is the `else` branch there) and at GONE it has no step.
   Under the derived justice `decide` is violated: the others wait at SEND for a vote that never
   comes. Under the file's fairness that run is not fair: the process at GONE never receives the
   votes sent, so `in_transit_yes` holds forever. */
#define NO 0
#define YES 1
#define SEND 2
#define COMMIT 3
#define ABORT 4
#define GONE 5

symbolic int N;
int nsntYes, nsntNo;

assume(N > 1);

atomic all_decide = all(Proc:pc == COMMIT || Proc:pc == ABORT);
atomic in_transit_yes = some(Proc:nrcvdYes < nsntYes);
atomic in_transit_no = some(Proc:nrcvdNo < nsntNo);

active[N] proctype Proc() {
    byte pc = 0, next_pc = 0;
    int nrcvdYes = 0, nrcvdNo = 0, next_nrcvdYes = 0, next_nrcvdNo = 0;

    if
        :: pc = YES;
        :: pc = NO;
    fi;
end:
    do
        :: atomic {
            if
                :: pc != YES && pc != NO ->
                    havoc(next_nrcvdYes);
                    assume(nrcvdYes <= next_nrcvdYes && next_nrcvdYes <= nsntYes);
                    havoc(next_nrcvdNo);
                    assume(nrcvdNo <= next_nrcvdNo && next_nrcvdNo <= nsntNo);
                :: else ->
                    next_nrcvdYes = nrcvdYes;
                    next_nrcvdNo = nrcvdNo;
            fi;
            if
                :: pc == YES || pc == NO -> next_pc = SEND;
                :: pc == NO -> next_pc = GONE;
                :: pc == SEND && next_nrcvdNo > 0 -> next_pc = ABORT;
                :: pc == SEND && next_nrcvdNo == 0 && next_nrcvdYes >= N -> next_pc = COMMIT;
                :: (pc == COMMIT || pc == ABORT || pc == SEND)
                    && (pc != SEND || (next_nrcvdNo == 0 && next_nrcvdYes < N)) -> next_pc = pc;
            fi;
            if
                :: next_pc == SEND && pc == YES -> nsntYes++;
                :: next_pc == SEND && pc == NO -> nsntNo++;
                :: else;
            fi;
            pc = next_pc;
            nrcvdYes = next_nrcvdYes;
            nrcvdNo = next_nrcvdNo;
            next_pc = 0;
            next_nrcvdYes = 0;
            next_nrcvdNo = 0;
        }
    od;
}

ltl fairness { []<>(!in_transit_yes && !in_transit_no) }
ltl decide { <>all_decide }
