/* Processes that go round A -> B -> A (no step of A or B changes nothing), written for
   tests/translation/test_pml_file_cycles.py. A process at A may accept once it has N - T echoes.
   Under the file's fairness corr is violated: every process may keep going round with every
   message, never choosing to accept. With -D UNTIL a process leaves A for B only while it has
   fewer than N - T echoes, so once it has every message (N - F >= N - T) its only step accepts:
   corr holds, and a run that goes round without receiving is not fair. */
#define V1 1
#define A 2
#define B 3
#define AC 4

symbolic int N, T, F;
int nsnte;

assume(N > 3 * T);
assume(F >= 0);
assume(T >= 1);
assume(F <= T);

atomic prec_corr = all(Proc:pc == V1);
atomic ex_acc = some(Proc:pc == AC);
atomic in_transite = some(Proc:nrcvde < nsnte);

active[N - F] proctype Proc() {
    byte pc = 0, next_pc = 0;
    int nrcvde = 0, next_nrcvde = 0;

    if
        :: pc = V1;
    fi;
end:
    do
        :: atomic {
            havoc(next_nrcvde);
            assume(nrcvde <= next_nrcvde && next_nrcvde <= nsnte + F);
            if
                :: pc == V1 -> next_pc = A;
                :: (pc == A) && (next_nrcvde >= N - T) -> next_pc = AC;
#ifdef UNTIL
                :: (pc == A) && (next_nrcvde < N - T) -> next_pc = B;
#else
                :: pc == A -> next_pc = B;
#endif
                :: pc == B -> next_pc = A;
                :: pc == AC -> next_pc = AC;
            fi;
            if
                :: (pc == V1) && (next_pc == A) -> nsnte++;
                :: else;
            fi;
            pc = next_pc;
            nrcvde = next_nrcvde;
            next_pc = 0;
            next_nrcvde = 0;
        }
    od;
}

ltl fairness { []<>(!in_transite) }
ltl corr { (prec_corr -> <>(ex_acc)) }
