"""The checker (``check``) and its engines: ``parametric`` (SMT, all parameter values),
``explicit`` and ``explicit_ltl`` (fixed values), ``lockstep`` (synchronous rounds), ``spin``,
``spin_process`` and ``nusmv`` (external checkers at fixed values); the independent replayers of
their counterexamples (``simulate``, ``lockstep_sim``), ``schedule``, ``result`` and
``result_json``, and ``checkers`` (where SPIN and NuSMV are)."""
