/* Crashed processes that keep a local bit the properties read, in the style of nbacr.pml
   (written for tests/translation/test_pml_crash_readings.py): a process may crash anywhere
   (`pc != CRASH`), with no crash counter; a crash at YES or NO cuts its vote short (nsntYesF,
   nsntNoF). The
   failure-detector bit `flag` is chosen anew at every step that receives, and a crashed process
   keeps it: the crash location is one per value of `flag`. A crashed process has no step (the
   file's step has no option at CRASH); with -D STEP it keeps stepping and choosing `flag`. */
#define YES 0
#define NO 1
#define SEND 2
#define DONE 3
#define CRASH 4

symbolic int N;
int nsntYes, nsntNo, nsntYesF, nsntNoF;

assume(N > 1);

atomic all_done = all(Proc:pc == DONE || Proc:pc == CRASH);
atomic all_flagged = all(Proc:flag == 1);
atomic in_transit_yes = some(Proc:nrcvdYes < nsntYes);
atomic in_transit_no = some(Proc:nrcvdNo < nsntNo);

active[N] proctype Proc() {
    byte pc = 0, next_pc = 0;
    byte flag = 0, next_flag = 0;
    int nrcvdYes = 0, next_nrcvdYes = 0;
    int nrcvdNo = 0, next_nrcvdNo = 0;

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
                    assume(nrcvdYes <= next_nrcvdYes && next_nrcvdYes <= nsntYes + nsntYesF);
                    havoc(next_nrcvdNo);
                    assume(nrcvdNo <= next_nrcvdNo && next_nrcvdNo <= nsntNo + nsntNoF);
                    if
                        :: next_flag = 0;
                        :: next_flag = 1;
                    fi;
                :: else ->
                    next_nrcvdYes = nrcvdYes;
                    next_nrcvdNo = nrcvdNo;
                    next_flag = flag;
            fi;
            if
                :: pc == YES || pc == NO -> next_pc = SEND;
                :: pc == SEND && (next_nrcvdYes + next_nrcvdNo >= N || next_flag == 1) -> next_pc = DONE;
                :: (pc == SEND && next_nrcvdYes + next_nrcvdNo < N && next_flag == 0) || pc == DONE -> next_pc = pc;
#ifdef STEP
                :: pc == CRASH -> next_pc = pc;
#endif
                :: pc != CRASH -> next_pc = CRASH;
            fi;
            if
                :: next_pc == SEND && pc == YES -> nsntYes++;
                :: next_pc == SEND && pc == NO -> nsntNo++;
                :: next_pc == CRASH && pc == YES -> nsntYesF++;
                :: next_pc == CRASH && pc == NO -> nsntNoF++;
                :: else;
            fi;
            pc = next_pc;
            nrcvdYes = next_nrcvdYes;
            nrcvdNo = next_nrcvdNo;
            flag = next_flag;
            next_pc = 0;
            next_nrcvdYes = 0;
            next_nrcvdNo = 0;
            next_flag = 0;
        }
    od;
}

ltl fairness { []<>(!in_transit_yes && !in_transit_no) }
ltl termination { <>[]all_flagged -> <>all_done }
