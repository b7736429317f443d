/* Two phases with two initial locations, one message of each type per step (a cut-down Bracha
   agreement, written for tests/translation/test_pml_antecedent_pruning.py). A process starting
   at IT echoes once it has 2T + 1 echoes or T + 1 readies; one starting at RI echoes at once.
   corr starts every process at RI: no process is ever at IT, and the file's justice proves corr
   only on the automaton without IT's rules. noit asks the same from any point where IT is
   empty; processes may have left IT before, so nothing is pruned for it. */
#define IT 0
#define RI 1
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
#ifdef BRACHA
assume(N >= 3 * T + 2);
#define ECHOES (2 * next_nrcvde >= N + T + 1)
#else
#define ECHOES (next_nrcvde >= 2 * T + 1)
#endif

atomic all_ri = all(Proc:pc == RI);
atomic no_it = all(Proc:pc != IT);
atomic ex_acc = some(Proc:pc == AC);
atomic all_acc = all(Proc:pc == AC);
atomic in_transite = some(Proc:nrcvde < nsnte);
atomic in_transitr = some(Proc:nrcvdr < nsntr);

active[N - F] proctype Proc() {
    byte pc = 0, next_pc = 0;
    int nrcvde = 0, next_nrcvde = 0;
    int nrcvdr = 0, next_nrcvdr = 0;

    if
        :: pc = IT;
        :: pc = RI;
    fi;
end:
    do
        :: atomic {
            if
                :: (nrcvde < nsnte + F) -> next_nrcvde = nrcvde + 1;
                :: next_nrcvde = nrcvde;
            fi;
            if
                :: (nrcvdr < nsntr + F) -> next_nrcvdr = nrcvdr + 1;
                :: next_nrcvdr = nrcvdr;
            fi;
            if
                :: pc == RI -> next_pc = EC;
                :: (pc == IT) && (ECHOES || next_nrcvdr >= T + 1) -> next_pc = EC;
                :: (pc == EC) && (ECHOES || next_nrcvdr >= T + 1) -> next_pc = RD;
                :: (pc == RD) && (next_nrcvdr >= 2 * T + 1) -> next_pc = AC;
                :: else -> next_pc = pc;
            fi;
            if
                :: ((pc == IT) || (pc == RI)) && (next_pc == EC) -> nsnte++;
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

ltl fairness { []<>(!in_transite && !in_transitr) }
ltl corr { [](all_ri -> <>(ex_acc)) }
ltl noit { [](no_it -> <>(ex_acc)) }
ltl agreement { [](ex_acc -> <>(all_acc)) }
