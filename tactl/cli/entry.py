"""The console entry point: :func:`main` runs the app and maps every outcome (a usage error, an
input error, a timeout, an interrupt, memory or stack exhausted, an internal error) to one line
and an exit status; :func:`run`, the ``tactl`` script, ends the process with it."""

from __future__ import annotations

import atexit
import copy
import os
import sys
import threading
import traceback

import typer

from tactl.cli.app import (EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, EXIT_UNKNOWN,
                           EXIT_USAGE, app)
from tactl.ir.errors import TactlError
from tactl.util import deadline


class _NeverRaised(Exception):
    """Stands for an exception class whose module was never loaded (so nothing raised it)."""


def _certificate_error() -> type[Exception]:
    """The translation's CertificateError if its module is loaded, else a class nothing raises.
    Never an import: main() evaluates this in an ``except`` clause for every exception, and an
    import there, while a MemoryError still holds the memory, raised a second MemoryError that
    escaped main with a traceback and exit status 1."""
    module = sys.modules.get("tactl.driver.translation")
    return getattr(module, "CertificateError", _NeverRaised)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: runs the app and maps every outcome to an exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in args
    try:
        # standalone: usage errors print and exit 2 by themselves
        only_command(app, args)(args=args, prog_name="tactl")
    except SystemExit as e:
        if e.code in (EXIT_INTERRUPTED, EXIT_TERMINATED):  # Typer turns Ctrl-C into a silent exit 130
            typer.echo("tactl: interrupted", err=True)
            return deadline.interrupted_status()  # 143 if it was SIGTERM
        return e.code if isinstance(e.code, int) else (EXIT_OK if e.code is None else EXIT_USAGE)
    except (MemoryError, RecursionError) as e:  # first: the clauses below may allocate or import
        return _exhausted(e, debug)
    except TactlError as e:
        typer.echo(e.render(), err=True)
        return EXIT_USAGE
    except _certificate_error() as e:  # evaluated only when an exception gets here
        typer.echo(e.render(), err=True)
        return e.exit_code
    except deadline.DeadlineExceeded:
        typer.echo(f"tactl: timeout: the --timeout of {deadline.seconds():g} s passed before the "
                   "command finished; nothing was decided and nothing was written", err=True)
        return EXIT_UNKNOWN
    except KeyboardInterrupt:
        typer.echo("tactl: interrupted", err=True)
        return deadline.interrupted_status()
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback for users
        if deadline.interruption(e) is not None or (
                type(e).__name__ == "ArgumentError" and "KeyboardInterrupt" in str(e)):
            # the consequence of a stop signal (a cancelled z3 call, an interrupt ctypes wrapped)
            typer.echo("tactl: interrupted", err=True)
            return deadline.interrupted_status()
        if debug:
            traceback.print_exc()
        else:
            typer.echo(f"tactl: internal error: {type(e).__name__}: {e} (run with --debug for details)",
                       err=True)
        return EXIT_INTERNAL
    finally:
        deadline.cancel()
    return EXIT_OK


def only_command(full: typer.Typer, args: list[str]) -> typer.Typer:
    """The app with only the command ``args`` name (global options may come first), else the whole
    app (no command, a misspelt one, shell completion). Typer turns every registered command's
    signature into Click options before running any, work that only the command a process runs
    needs."""
    name = next((a for a in args if not a.startswith("-")), None)
    chosen = [c for c in full.registered_commands
              if (c.name or c.callback.__name__.lower().replace("_", "-")) == name]
    if len(chosen) != 1 or any(k.startswith("_TACTL") for k in os.environ):
        return full
    one = copy.copy(full)
    one.registered_commands, one.registered_groups = chosen, []
    return one


def _exhausted(error: MemoryError | RecursionError, debug: bool) -> int:
    """Out of memory or stack: free what the failed computation holds (its frames live on in the
    traceback) before saying so in one line, written without Typer (which allocates)."""
    if debug:
        traceback.print_exception(error)
    error.__traceback__ = None
    error.__context__ = error.__cause__ = None
    what = "out of memory" if isinstance(error, MemoryError) else str(error) or "recursion too deep"
    _last_words(f"tactl: internal error: {type(error).__name__}: {what}"
                + ("" if debug else " (run with --debug for details)"))
    return EXIT_INTERNAL


def _last_words(line: str) -> None:
    """One line on stderr even when Python's streams cannot be used (out of memory, closed)."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the stream failed: the file descriptor remains
        try:
            os.write(2, line.encode("utf-8", "replace") + b"\n")
        except OSError:
            pass


def run() -> None:
    """The ``tactl`` console script. main() maps every outcome to a status; should its own
    handling fail (memory still exhausted while reporting a MemoryError, an interrupt while
    reporting), the status is still 4 (or the interrupt's), never Python's 1 with a traceback."""
    try:
        code = main()
    except KeyboardInterrupt:
        _last_words("tactl: interrupted")
        os._exit(deadline.interrupted_status())
    except BaseException as e:  # noqa: BLE001 - the handler of the last line of defence failed
        _last_words(f"tactl: internal error: {type(e).__name__} while reporting an error")
        os._exit(EXIT_INTERNAL)
    _exit(code)


def _exit(code: int) -> None:
    """End the process with ``code``. When the command left no other thread (but daemons) and
    started no worker processes, the interpreter's teardown is skipped (streams flushed and ``atexit``
    handlers run first, as a normal exit does): freeing z3's terms one by one at shutdown is a
    noticeable part of a small ``tactl check``, and nothing needs it."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if others or "multiprocessing" in sys.modules:
        sys.exit(code)  # the normal exit joins these threads and worker processes
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (tactl check | head): nothing left to say
            pass
    atexit._run_exitfuncs()
    os._exit(code)
