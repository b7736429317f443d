"""Exit codes cannot lie (issue 31): an internal error, a MemoryError, a RecursionError or a
worker killed by a signal ends every command with status 4 and one line ``tactl: internal
error: …`` — never 0, 1 or 3, never a traceback. Each failure is *injected*: an engine or pass
function monkeypatched to raise, in-process through ``tactl.cli.main``; a verify worker that
kills itself with SIGKILL (as the out-of-memory killer does), in a subprocess. Finding D3 (a
MemoryError traceback and exit 1) came from main's own handler importing a module while the
memory was still exhausted; the out-of-memory case runs under a real memory limit too."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap

import pytest

from conftest import CORPUS, REPO

STRB = CORPUS / "strb" / "strb.alg"
FAILURES = {"MemoryError": MemoryError(), "RecursionError": RecursionError(
    "maximum recursion depth exceeded"), "RuntimeError": RuntimeError("a bug")}


def _raising(error: BaseException):
    def raise_it(*args, **kwargs):
        raise error
    return raise_it


def _assert_internal_error(r, kind: str) -> None:
    assert r.code == 4, (r.code, r.out, r.err)
    lines = r.err.strip().splitlines()
    assert lines and lines[-1].startswith(f"tactl: internal error: {kind}"), r.err
    assert len([ln for ln in lines if ln.startswith("tactl: internal error")]) == 1
    assert "Traceback" not in r.err + r.out


# what each command runs on the way: a pass (every command reads the .alg through it) or an engine
COMMANDS = {
    "show": (("show", STRB), "tactl.passes.alg_to_rta.extract.parse_algorithm"),
    "dot": (("dot", STRB, "-o", "{tmp}/a.dot"), "tactl.passes.alg_to_rta.extract.parse_algorithm"),
    "parse": (("parse", STRB), "tactl.passes.alg_to_rta.extract.parse_algorithm"),
    "translate": (("translate", STRB, "--no-certify"), "tactl.driver.translation.run_translate"),
    "emit": (("emit", STRB, "--to", "smtlib", "-o", "{tmp}/q"), "tactl.passes.alg_to_rta.extract.parse_algorithm"),
    "check": (("check", STRB, "-p", "unforgeability"), "tactl.engines.check._check_each"),
    "verify": (("verify", STRB, "-p", "unforgeability", "--no-cache", "--report-dir", "{tmp}/r"),
               "tactl.engines.check._check_each"),
}


@pytest.mark.parametrize("kind", FAILURES)
@pytest.mark.parametrize("command", COMMANDS)
def test_an_injected_failure_exits_4_with_one_line(cli, monkeypatch, tmp_path, command, kind):
    args, target = COMMANDS[command]
    monkeypatch.setattr(target, _raising(FAILURES[kind]))
    r = cli(*(str(a).format(tmp=tmp_path) for a in args))
    _assert_internal_error(r, kind)


def test_the_out_of_memory_line_frees_the_memory_and_says_so(cli, monkeypatch):
    """MemoryError before any import of the translation: main's clauses must not import it
    (that second MemoryError was finding D3's traceback and exit 1)."""
    monkeypatch.delitem(sys.modules, "tactl.driver.translation", raising=False)
    monkeypatch.setattr("tactl.passes.alg_to_rta.extract.parse_algorithm", _raising(MemoryError()))
    r = cli("show", STRB)
    _assert_internal_error(r, "MemoryError: out of memory")
    assert "tactl.driver.translation" not in sys.modules


def _tactl(*args: str, env: dict | None = None, limit_mb: int | None = None, script: str = ""):
    """``tactl ARGS`` in a fresh interpreter through the console script's ``run()`` (its own
    exit path), optionally under an address-space limit and after ``script``."""
    code = textwrap.dedent(script) + "\nimport sys\nfrom tactl.cli import run\nsys.argv = ['tactl', *sys.argv[1:]]\nrun()\n"

    def limit():
        if limit_mb:
            resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=REPO, timeout=300, preexec_fn=limit,
                          env={**os.environ, **(env or {})})


def test_running_out_of_memory_for_real_exits_4_without_a_traceback(tmp_path):
    """A real MemoryError under a 600 MB limit (an allocation far beyond it, in the pass every
    command of an .alg goes through), through the console script's own exit path."""
    done = _tactl("show", str(STRB), limit_mb=600, script="""
        import tactl.passes.alg_to_rta.extract as P
        def hungry(*a, **k):
            hoard = []
            while True:
                hoard.append(bytearray(50 << 20))
        P.parse_algorithm = hungry
    """)
    assert done.returncode == 4, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "tactl: internal error: MemoryError: out of memory"), done.stderr
    assert "Traceback" not in done.stderr


KILLER = """
import os, signal
import tactl.driver.verify as V

REAL = V.check_task


def kill_on(payload):
    '''A test's stand-in for a verify task: the worker SIGKILLs itself (as the out-of-memory
    killer would) on the property named by KILL_PROPERTY, else runs the real task.'''
    if payload["options"]["property"] == os.environ.get("KILL_PROPERTY"):
        os.kill(os.getpid(), signal.SIGKILL)
    return REAL(payload)
"""


def test_a_verify_worker_killed_by_sigkill_exits_4_and_leaves_no_verdict_for_it(tmp_path):
    """-j 2: one worker kills itself. The checks it ran or that waited are INTERNAL ERROR
    (unknown in report.json, with the reason), the run exits 4 with one line naming SIGKILL,
    and no traceback. The stand-in task lives in its own module, so the pool's workers can
    import it whatever their start method."""
    (tmp_path / "killer_hook.py").write_text(KILLER)
    report = tmp_path / "report"
    done = _tactl("verify", str(STRB), "-j", "2", "--no-cache", "--report-dir", str(report), "-q",
                  env={"KILL_PROPERTY": "unforgeability", "PYTHONPATH": str(tmp_path)},
                  script="""
        import killer_hook, tactl.driver.verify as V
        V.check_task = killer_hook.kill_on
    """)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    [line] = [ln for ln in done.stderr.splitlines() if ln.startswith("tactl: internal error:")]
    assert "SIGKILL" in line and "unforgeability" in line
    assert "INTERNAL ERROR" in done.stdout and "HOLDS" not in done.stdout.replace("0 hold", "")
    [alg] = json.loads((report / "report.json").read_text())["algorithms"]
    assert alg["exit_code"] == 4
    killed = {p["name"]: p for p in alg["properties"]}["unforgeability"]
    assert killed["verdict"] == "unknown" and "SIGKILL" in killed["reason"]


def test_a_task_that_raises_in_a_worker_is_an_internal_error_the_others_stand(tmp_path):
    """-j 2, a task raises MemoryError in its worker (the pool survives): that check is an
    internal error, the others keep their verdicts, and the run exits 4."""
    (tmp_path / "raiser_hook.py").write_text(KILLER.replace(
        "os.kill(os.getpid(), signal.SIGKILL)", "raise MemoryError()"))
    done = _tactl("verify", str(STRB), "-j", "2", "--no-cache", "--report-dir",
                  str(tmp_path / "r"), "-q",
                  env={"KILL_PROPERTY": "unforgeability", "PYTHONPATH": str(tmp_path)},
                  script="""
        import raiser_hook, tactl.driver.verify as V
        V.check_task = raiser_hook.kill_on
    """)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    rows = {ln.split()[1]: ln for ln in done.stdout.splitlines() if ln.startswith("strb ")}
    assert "INTERNAL ERROR" in rows["unforgeability"]
    assert all("HOLDS" in row for name, row in rows.items() if name != "unforgeability")
    assert "MemoryError in the worker: out of memory" in done.stderr


def test_a_dask_task_whose_process_is_killed_is_a_failed_task_naming_the_signal():
    """The Dask executor runs each task in a fresh process (executors.in_subprocess); killed,
    it raises, and the executor yields a TaskFailed naming the signal (no cluster needed)."""
    import signal

    from tactl.driver.executors import TaskFailed, _failure, in_subprocess

    with pytest.raises(RuntimeError, match="killed by SIGKILL") as raised:
        in_subprocess(signal.raise_signal, int(signal.SIGKILL))
    failed = _failure(raised.value)
    assert isinstance(failed, TaskFailed) and "SIGKILL" in failed.reason


def test_a_failure_of_mains_own_handler_still_exits_4_with_one_line():
    """Should main() itself raise (memory still exhausted while it reports a MemoryError), the
    console script's run() says so in one line and exits 4, not Python's 1 with a traceback."""
    done = _tactl("show", str(STRB), script="""
        import tactl.cli.entry as C
        def failing(argv=None):
            raise MemoryError()
        C.main = failing
    """)
    assert done.returncode == 4, done.stderr
    assert done.stderr.strip() == "tactl: internal error: MemoryError while reporting an error"
