"""``verify`` (algorithms end to end, through the driver's cached passes, with its three reports)
and ``cache`` (the statistics of that pass cache, or clearing it)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated, Optional

import typer

from tactl.cli.app import (EXIT_INTERNAL, EXIT_USAGE, Command, DefineOption, MinimizeOption, ParamOption, ProgressOption,
                           PropertyOption, QuietOption, VerboseOption, app, checked_defines, checked_parameters,
                           info, parse_seconds, progress_display, set_verbosity, suggestion, usage_error,
                           verbosity)
from tactl.cli.ci_outputs import JunitOption, SarifOption, refuse_bad_outputs, report_traces, write_verify_outputs
from tactl.ir.errors import InputError
from tactl.util import deadline
from tactl.util.fsutil import make_directory, write_output


def _corpus_names(incomplete: str) -> list[str]:
    """Shell completion of verify's ALGORITHM: the corpus names (files and directories are
    completed by the shell itself: the completion scripts fall back to them)."""
    from tactl.driver.inputs import CORPUS, available_names, corpus_directory  # lazy: only when completing

    return [name for name in (CORPUS, *available_names(corpus_directory())) if name.startswith(incomplete)]


@app.command(cls=Command, short_help="Verify algorithms end to end, with reports and cache.", help="Verify algorithms end to end: every pass from pseudocode (or .rta, or .ta) to a "
                  "verdict per property, each pass output cached under .tactl-cache/ "
                  "(content-addressed: a comment edit re-uses the check results), independent "
                  "property checks in parallel (-j N, or a Dask cluster), and three reports: this "
                  "table (with, under it, each violated property's parameter values, a short run "
                  "and where the whole run is written), REPORT_DIR/report.json and "
                  "REPORT_DIR/report.html (each counterexample also as an ITF "
                  "trace in REPORT_DIR/itf/; --sarif and --junit for CI).\n\n"
                  "ALGORITHM is a name from the corpus (strb means corpus/strb/: its .alg, else "
                  ".rta, else .ta; corpus means all of it, from any directory), a directory (every algorithm in it, or in its subdirectories: "
                  "tactl verify corpus/), or a file. Exit status as for check: 0 all hold, 1 a "
                  "property is violated, 2 bad input (or a report that cannot be written, after "
                  "the verdicts), 3 something unknown, unsupported or holding vacuously, 130/143 "
                  "interrupted by "
                  "Ctrl-C/SIGTERM (what was decided is printed, the rest as INTERRUPTED).")
def verify(
    algorithms: Annotated[list[str], typer.Argument(metavar="ALGORITHM...", show_default=False,
                                                   autocompletion=_corpus_names,
                                                   help="corpus names, directories or files")],
    properties: PropertyOption = None,
    engine: Annotated[str, typer.Option("--engine", metavar="E", help="parametric (all parameters) "
                                        "or explicit (--param, small instances); spin/nusmv run "
                                        "the counter model at the --param values; source runs "
                                        "the .alg program itself (the reference interpreter) "
                                        "at the --param values; chc decides safety with Horn "
                                        "clauses (z3's Spacer), resets included.")] = "parametric",
    params: ParamOption = None,
    emit: Annotated[Optional[str], typer.Option("--emit", metavar="T,...", help="Also write target "
                                                "models beside the report: promela, smtlib, nuxmv "
                                                "(comma-separated).")] = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", metavar="S", parser=parse_seconds,
                                                     help="Seconds per property check; what is "
                                                          "not decided by then is unknown (and "
                                                          "not cached).")] = None,
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=1, max=256, metavar="N", help="Property checks run in "
                                      "parallel in this many processes.")] = 1,
    executor: Annotated[Optional[str], typer.Option("--executor", metavar="dask://HOST:PORT",
                                                    help="Run the property checks on a Dask "
                                                         "distributed scheduler instead.")] = None,
    report_dir: Annotated[Path, typer.Option("--report-dir", metavar="DIR", help="Where report.json, "
                                             "report.html and --emit outputs go.")] = Path("tactl-report"),
    cache_dir: Annotated[Optional[Path], typer.Option("--cache-dir", metavar="DIR", help="The cache "
                                                      "(default: $TACTL_CACHE_DIR, else "
                                                      ".tactl-cache).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Run every pass; read and write no "
                                           "cache.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Say which passes ran, which came from "
                                          "the cache, and why.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report instead of the "
                                          "table.")] = False,
    progress: ProgressOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
    define: DefineOption = None,
    certify: Annotated[bool, typer.Option("--certify", help="parametric and chc engines: every "
                                          "SMT query behind a HOLDS re-asked of cvc5 (as check "
                                          "--certify); the HTML and JSON reports say so.")] = False,
    minimize: MinimizeOption = False,
    sarif: SarifOption = None,
    junit: JunitOption = None,
) -> None:
    # lazy: verify's driver, engines and reports load only for verify
    import json  # lazy: only the JSON report
    from tactl.engines.check import ENGINES
    from tactl.driver.executors import ExecutorError
    from tactl.driver.verify import (EMIT_TARGETS, FAILED, SOURCE_ENGINE, VerifyError, VerifyOptions, resolve,
                                     verify as run_verify)
    from tactl.report.verify import explain_lines, run_json, run_table
    from tactl.report.verify_runs import violation_lines

    if engine not in (*ENGINES, SOURCE_ENGINE):
        raise usage_error("verify", f"unknown engine '{engine}'; choose {', '.join(ENGINES)}"
                                    f" or {SOURCE_ENGINE}" + suggestion(engine, (*ENGINES, SOURCE_ENGINE)))
    if engine == SOURCE_ENGINE and emit:
        raise usage_error("verify", "--emit writes the translated automaton's models; "
                                    "--engine source translates nothing")
    if certify:
        from tactl.engines.certify import problem  # lazy: only with --certify

        if problem(engine):
            raise usage_error("verify", problem(engine))
    targets = tuple(t.strip() for t in (emit or "").split(",") if t.strip())
    for t in targets:
        if t not in EMIT_TARGETS:
            raise usage_error("verify", f"--emit: unknown target '{t}'; choose from "
                                        f"{', '.join(EMIT_TARGETS)}")
    if executor:
        # lazy: only this command needs it; --help starts without it
        from tactl.driver.executors import dask_address

        try:
            dask_address(executor)  # a malformed address is refused before any work
        except ExecutorError as e:
            raise usage_error("verify", str(e)) from None
    try:
        files = resolve(algorithms)
    except VerifyError as e:
        raise usage_error("verify", str(e)) from None
    refuse_bad_outputs(files, sarif=sarif, junit=junit)
    options = VerifyOptions(tuple(properties or ()), engine, checked_parameters(params, Path("verify")),
                            targets, timeout, jobs, executor, cache_dir, not no_cache, report_dir,
                            checked_defines(define, None), certify, minimize=minimize)
    set_verbosity(quiet, verbose, "verify")
    explain = explain or verbosity["verbose"]
    shown = progress_display(progress)
    deadline.stop_on_signals()
    try:
        result = run_verify(files, options, shown, "tactl verify " + " ".join(algorithms))
    except ExecutorError as e:
        raise usage_error("verify", str(e)) from None
    finally:
        if shown is not None:
            shown.stop()
    if not result.interrupted:
        _unknown_properties(result, options)
    for a in result.algorithms:
        if a.error:
            typer.echo(a.error, err=True)
        for w in a.warnings:  # diagnostics already name their file and position
            typer.echo(w if w.startswith(a.path) else f"tactl: warning: {a.name}: {w}", err=True)
    for w in result.warnings:
        typer.echo(f"tactl: warning: {w}", err=True)
    if explain:
        for line in explain_lines(result):
            typer.echo(line, err=True)
    if as_json:
        document = run_json(result)  # the printed form leaves the picture out
        typer.echo(json.dumps(document, indent=2))
    else:
        typer.echo(run_table(result))
        for line in violation_lines(result, report_dir, verbosity["quiet"], verbosity["verbose"]):
            typer.echo(line)
    # The verdicts are out before the reports are written: a report directory that cannot be
    # written must not hide a violation. Its failure still decides the exit status (2).
    if result.interrupted:
        typer.echo(f"tactl: interrupted: the verdicts above were decided before the "
                   f"{signal.Signals(result.interrupted).name}; the cache holds only whole entries",
                   err=True)
    failed = [(a.name, v.result) for a in result.algorithms for v, cache in a.verdicts
              if cache == FAILED]  # a worker raised or died: the run exits 4
    if failed:
        typer.echo(f"tactl: internal error: {len(failed)} check{'s' if len(failed) != 1 else ''} "
                   f"not decided ({failed[0][0]}: {failed[0][1].name}: "
                   f"{failed[0][1].reason.removeprefix('internal error: ')}); the other verdicts "
                   "above stand", err=True)
    try:
        _write_reports(result, report_dir, with_svg=not result.interrupted)
        write_verify_outputs(result, sarif, junit)
    except InputError as e:
        typer.echo(e.render(), err=True)
        typer.echo("tactl: the reports were not written; the verdicts above stand", err=True)
        raise typer.Exit(EXIT_INTERNAL if failed else EXIT_USAGE) from None
    if not as_json:
        info(f"reports: {report_dir / 'report.html'}, {report_dir / 'report.json'}", err=False)
    raise typer.Exit(result.exit_code)


def _write_reports(result, report_dir: Path, with_svg: bool = True) -> None:
    # lazy: jinja2 and the HTML report load only when verify writes its report
    import json  # lazy: only the JSON report
    from tactl.report.html import render_html
    from tactl.report.verify import run_json

    for a in result.algorithms:  # --emit outputs that could not be written
        for problem in a.unwritten:
            raise problem
    document = run_json(result, with_svg=with_svg)
    make_directory(report_dir)
    report_traces(result, report_dir, document)  # itf/*.itf.json, linked from the document
    write_output(report_dir / "report.json", json.dumps(document, indent=2) + "\n")
    write_output(report_dir / "report.html", render_html(document))


def _unknown_properties(result, options) -> None:
    """A --property that no verified algorithm has is a usage error, not a silent empty run."""
    from tactl.driver.verify import unknown_properties  # lazy: verify's driver

    problem = unknown_properties(result, options.properties)
    if problem:
        raise usage_error("verify", problem)


cache_app = typer.Typer(help="The pass cache of tactl verify: statistics, or clear it.",
                        no_args_is_help=True)
app.add_typer(cache_app, name="cache")

CacheDirOption = Annotated[Optional[Path], typer.Option("--cache-dir", metavar="DIR", help="The "
                                                       "cache (default: $TACTL_CACHE_DIR, else "
                                                       ".tactl-cache).")]


@cache_app.command("stats", cls=Command, help="Entries and bytes in the cache.")
def cache_stats(cache_dir: CacheDirOption = None) -> None:
    # lazy: only this command needs it; --help starts without it
    from tactl.driver.cache import Cache, NotACache, default_directory

    cache = Cache(cache_dir or default_directory())
    try:
        stats = cache.stats()
    except NotACache as e:
        raise usage_error(cache.root, str(e)) from None
    for k, v in stats.items():
        typer.echo(f"{k}: {v}")


@cache_app.command("clear", cls=Command, help="Delete the cache's entries: only files the cache wrote (entries, "
                                 "lineage notes, temporary files); anything else under the "
                                 "directory is kept, and symbolic links are never followed.")
def cache_clear(cache_dir: CacheDirOption = None) -> None:
    # lazy: only this command needs it; --help starts without it
    from tactl.driver.cache import Cache, NotACache, default_directory

    cache = Cache(cache_dir or default_directory())
    try:
        deleted, kept = cache.clear()
    except NotACache as e:
        raise usage_error(cache.root, f"{e}: nothing deleted") from None
    typer.echo(f"deleted {deleted} entr{'y' if deleted == 1 else 'ies'} from {cache.root}"
               + (f"; kept {kept} file{'s' if kept != 1 else ''} the cache did not write" if kept else ""))
