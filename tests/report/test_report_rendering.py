"""The engines decide, tactl/report/ renders: ``tactl check``'s text and JSON, the lock-step run's
text and the JSON of a property's result live in tactl/report/, the engines' modules define no
renderer, and no report module reaches for another module's private name."""

from __future__ import annotations

import ast

from conftest import REPO
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, VIOLATED
from tactl.report.counts import counts_line

RENDERERS = {"report_text", "report_json", "counterexample_json", "counterexample_table",
             "pseudocode_steps", "minimality_text", "violating_step", "run_lines", "property_json"}


def _tree(relative: str) -> ast.Module:
    return ast.parse((REPO / relative).read_text(encoding="utf-8"))


def test_the_checking_engines_define_no_renderer() -> None:
    for module in ("tactl/engines/check.py", "tactl/engines/lockstep.py"):
        defined = {n.name for n in _tree(module).body if isinstance(n, ast.FunctionDef)}
        assert not defined & RENDERERS, (module, sorted(defined & RENDERERS))


def test_no_report_module_imports_a_private_name() -> None:
    owned = sorted((REPO / "tactl" / "report").glob("*.py")) + [
        REPO / "tactl" / "engines" / name for name in ("check.py", "lockstep.py", "result.py", "result_json.py")]
    crossing = []
    for path in owned:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tactl"):
                crossing += [(path.name, node.module, a.name) for a in node.names
                             if a.name.startswith("_") and not a.name.startswith("__")]
    assert crossing == []


def test_one_tally_line_for_every_report() -> None:
    """Vacuous passes are listed only when there are some; words that are no verdict (verify's
    ``interrupted``) are left to the caller."""
    assert counts_line([HOLDS, VIOLATED, UNKNOWN]) == "1 hold, 1 violated, 1 unknown, 0 unsupported"
    assert counts_line([HOLDS, HOLDS_VACUOUSLY, "interrupted"]) == \
        "1 hold, 1 hold vacuously, 0 violated, 0 unknown, 0 unsupported"
    assert counts_line([]) == "0 hold, 0 violated, 0 unknown, 0 unsupported"
