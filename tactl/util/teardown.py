"""The interpreter's teardown stays short after any number of checks: z3's contexts are left to
the operating system at exit instead of being deleted term by term.

Why: at exit Python clears the modules and then collects what is left in reference cycles,
finalizing each cycle's objects in no particular order. When a z3 context is finalized before
the terms it made (a context is referenced only by its terms once ``z3``'s module globals are
cleared, so it ends up in the same garbage as a cycle holding them), its ``__del__`` deletes the
context while those terms are still referenced; z3 then frees the leaked terms layer by layer,
one pass over all of them per level of nesting that Python still held — quadratic in the depth of
the formulas (the step-by-step configurations of a long schedule), minutes for one large check.
tests/cli/test_teardown.py builds such a cycle and checks that the process still exits.

The console script skips the teardown altogether (tactl/cli/entry.py ends with ``os._exit``);
this covers every other way a process that ran checks ends: the tests and the bench calling the
entry point in-process, a Dask task's process (tactl/driver/executors.py), any program that
imports tactl. Verify's pool workers end with ``os._exit`` (multiprocessing's fork start) and run
no teardown. The hook is registered when tactl is imported (tactl/__init__.py); it runs after
the ``atexit`` handlers registered later and costs a few attribute writes. Nothing is lost: a
context holds no output, and the memory is returned when the process ends.
"""

from __future__ import annotations

import atexit
import sys
import weakref

# Contexts of their own that the engines create (tactl/engines/chc.py), besides z3's main one.
_private: weakref.WeakSet = weakref.WeakSet()
_registered = False


def own_context(context: object) -> object:
    """``context``, a z3 context an engine made for itself, is left alone at exit like z3's
    main one (returns it, so that ``own_context(z3.Context())`` reads as the constructor)."""
    _private.add(context)
    return context


def keep_contexts() -> None:
    """From now on no z3 context is deleted by its finalizer: the terms that outlive it are
    simply dropped by Python, and the process's end returns the memory. Meant for exit only
    (a context dropped during a run would keep its memory)."""
    core = sys.modules.get("z3.z3")
    if core is None:  # z3 never imported: nothing to keep
        return
    for context in (getattr(core, "_main_ctx", None), *list(_private)):
        if context is not None:
            # z3's Context.__del__ deletes the context only if it owns it (a context wrapped
            # from another library's pointer is not deleted either); ``ref()`` then reads None
            # once the finalizer ran, and the terms' finalizers skip their dec_ref.
            context.owner = False  # type: ignore[attr-defined]


def bound_at_exit() -> None:
    """Register :func:`keep_contexts` to run at exit (once per process)."""
    global _registered
    if not _registered:
        atexit.register(keep_contexts)
        _registered = True
