/* Two phases: echo, then ready; accept on 2T + 1 readies (a cut-down Bracha agreement, written for
   tests/translation/test_pml_fairness_reading.py). Under the file's fairness corr is violated with
   F >= 1 (a process that has every message may stop at EC); with F == 0 (-D NOFAULTS) it holds. */
#define V1 1
#define EC 2
#define RD 3
#define AC 4

symbolic int N, T, F;
int nsnte, nsntr;

assume(N > 3 * T);
assume(F >= 0);
assume(T >= 1);
assume(F <= T);
#ifdef NOFAULTS
assume(F == 0);
#endif

atomic prec_corr = all(Proc:pc == V1);
atomic ex_acc = some(Proc:pc == AC);
atomic in_transite = some(Proc:nrcvde < nsnte);
atomic in_transitr = some(Proc:nrcvdr < nsntr);

active[N - F] proctype Proc() {
    byte pc = 0, next_pc = 0;
    int nrcvde = 0, next_nrcvde = 0;
    int nrcvdr = 0, next_nrcvdr = 0;

    if
        :: pc = V1;
    fi;
end:
    do
        :: atomic {
            havoc(next_nrcvde);
            assume(nrcvde <= next_nrcvde && next_nrcvde <= nsnte + F);
            havoc(next_nrcvdr);
            assume(nrcvdr <= next_nrcvdr && next_nrcvdr <= nsntr + F);
            if
                :: pc == V1 -> next_pc = EC;
                :: (pc == EC) && (next_nrcvde >= 2 * T + 1 || next_nrcvdr >= T + 1) -> next_pc = RD;
                :: (pc == RD) && (next_nrcvdr >= 2 * T + 1) -> next_pc = AC;
                :: else -> next_pc = pc;
            fi;
            if
                :: (pc == V1) && (next_pc == EC) -> nsnte++;
                :: (pc == EC) && (next_pc == RD) -> nsntr++;
                :: else;
            fi;
            pc = next_pc;
            nrcvde = next_nrcvde;
            nrcvdr = next_nrcvdr;
            next_pc = 0;
            next_nrcvde = 0;
            next_nrcvdr = 0;
        }
    od;
}

ltl fairness { []<>(!in_transite) && []<>(!in_transitr) }
ltl corr { (prec_corr -> <>(ex_acc)) }
