"""The machine-readable outputs for CI of ``check`` and ``verify``: ``--itf`` (counterexamples as
ITF traces, tactl/report/itf.py), ``--sarif`` (SARIF 2.1.0, tactl/report/sarif.py) and
``--junit`` (verify: JUnit XML, tactl/report/junit.py), and the ITF files of verify's report
folder. Each path is refused before any work when it cannot take the output (a directory, a
missing directory, the input itself: exit 2); each file is written atomically
(tactl/util/fsutil.py) after the verdicts are printed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional, Sequence

import typer

from tactl.cli.app import info, usage_error
from tactl.util.fsutil import is_stdout, make_directory, output_file_problem, write_output

ItfOption = Annotated[Optional[Path], typer.Option(
    "--itf", metavar="FILE", help="Also write each counterexample as an ITF trace (the Informal "
    "Trace Format of Apalache and Quint; a lasso with its loop index), one file per violated "
    "property, beside FILE: --itf cex.itf.json writes cex.PROPERTY.itf.json. Nothing is "
    "written when nothing is violated.")]
SarifOption = Annotated[Optional[Path], typer.Option(
    "--sarif", metavar="FILE", help="Also write the verdicts as SARIF 2.1.0 (code scanning): each "
    "violated, unknown, unsupported or vacuous property a result at the line where it is "
    "written, a violation's run as a code flow over the source lines of its steps.")]
JunitOption = Annotated[Optional[Path], typer.Option(
    "--junit", metavar="FILE", help="Also write the verdicts as JUnit XML: a test suite per "
    "algorithm, a test case per property (VIOLATED: failure; unknown, unsupported, vacuous: "
    "error).")]


def refuse_bad_outputs(inputs: Sequence[Path], itf: Path | None = None, sarif: Path | None = None,
                       junit: Path | None = None) -> None:
    """A usage error (exit 2) before any work for an output path that cannot be written."""
    if itf is not None and is_stdout(itf):
        raise usage_error(itf, "--itf writes one file per counterexample: give a file name, not '-'")
    for option, path in (("--itf", itf), ("--sarif", sarif), ("--junit", junit)):
        if path is None:
            continue
        problem = output_file_problem(path, tuple(inputs))
        if problem:
            raise usage_error(path, f"{option}: {problem}")
    named = [p for p in (sarif, junit) if p is not None and not is_stdout(p)]
    if len(named) == 2 and Path(named[0]).resolve() == Path(named[1]).resolve():
        raise usage_error(named[0], "--sarif and --junit name the same file")


def write_check_outputs(file: Path, report: Any, text: str, itf: Path | None, sarif: Path | None) -> None:
    """``check``'s ``--itf`` and ``--sarif`` files, after its report is printed."""
    if sarif is not None:
        import json  # lazy: only with --sarif
        from tactl.report.sarif import Checked, sarif_document  # lazy: only with --sarif

        document = sarif_document([Checked(report.path, report.ta, report.results, text)], report.exit_code)
        write_output(sarif, json.dumps(document, indent=2) + "\n")
        info(f"tactl: wrote {sarif} (SARIF 2.1.0: {_results(document)})", err=True)
    if itf is not None:
        write_traces(itf, report.ta, report.results, report.path, inputs=(file,))


def write_traces(out: Path, ta: Any, results: Sequence[Any], source: str,
                 inputs: Sequence[Path] = (), say: bool = True) -> dict[str, str]:
    """The ITF trace of every counterexample in ``results``, one file each (named by
    :func:`tactl.report.itf.trace_path`); the paths written, by property."""
    from tactl.report.itf import itf_text, trace_path, traces  # lazy: only with --itf or verify's report

    written: dict[str, str] = {}
    found = traces(ta, results, source)
    if found:
        make_directory(out.parent)  # verify's itf/ folder, made only when it gets a trace
    for trace in found:
        path = trace_path(out, trace.property)
        problem = output_file_problem(path, tuple(inputs))
        if problem:
            raise usage_error(path, f"--itf: {problem}")
        write_output(path, itf_text(trace.document))
        written[trace.property] = str(path)
        if say:
            shape = f"a lasso, loop at state {trace.document['loop']}" if trace.lasso else "a finite run"
            info(f"tactl: wrote {path} (ITF: {trace.property}, {trace.states} states, {shape})", err=True)
    if say and not found:
        info("tactl: --itf: no property is violated, so there is no counterexample to write; "
             "nothing written", err=True)
    return written


def write_verify_outputs(result: Any, sarif: Path | None, junit: Path | None) -> None:
    """``verify``'s ``--sarif`` and ``--junit`` files, after its table is printed."""
    if sarif is not None:
        import json  # lazy: only with --sarif
        from tactl.report.sarif import checked_run, sarif_document  # lazy: only with --sarif

        document = sarif_document([checked_run(a) for a in result.algorithms], result.exit_code)
        write_output(sarif, json.dumps(document, indent=2) + "\n")
        info(f"tactl: wrote {sarif} (SARIF 2.1.0: {_results(document)})", err=True)
    if junit is not None:
        from tactl.report.junit import junit_xml  # lazy: only with --junit

        write_output(junit, junit_xml(result))
        cases = sum(len(a.verdicts) for a in result.algorithms)
        info(f"tactl: wrote {junit} (JUnit XML: {len(result.algorithms)} suite"
             f"{'' if len(result.algorithms) == 1 else 's'}, {cases} test case{'' if cases == 1 else 's'})", err=True)


def report_traces(result: Any, report_dir: Path, document: dict[str, Any]) -> None:
    """verify's report folder: ``itf/ALGORITHM.PROPERTY.itf.json`` for every counterexample,
    each linked from its property in ``document`` (report.json; the HTML page reads it) as
    ``itf``, relative to the folder."""
    folder = report_dir / "itf"
    for a, shown in zip(result.algorithms, document.get("algorithms", [])):
        written = write_traces(folder / f"{a.name}.itf.json", getattr(a.loaded, "ta", None),
                               [v.result for v, _ in a.verdicts], a.path, say=False)
        for prop in shown.get("properties", []):
            if prop.get("name") in written:
                prop["itf"] = Path(written[prop["name"]]).relative_to(report_dir).as_posix()


def _results(document: dict[str, Any]) -> str:
    results = document["runs"][0]["results"]
    return f"{len(results)} result{'' if len(results) == 1 else 's'}"
