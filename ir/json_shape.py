"""One schema-like check of a JSON document's shape, run before any IR is built from it.

``json.loads`` accepts anything; the IR constructors accept more than they should (a string is an
iterable of one-letter names, ``{}`` an empty list of rules, ``True`` an integer). So each JSON
form (``ir/ta/json_form.py``, ``ir/rta/json_form.py``) declares its shape here once — objects
with required and optional fields, lists, names, integers, expressions of a given sort — and
:func:`check` walks the document against it, reporting the first problem with its JSON path
(``rules[3].guard.args[1]: expected a term, found true``). Expressions are checked without
recursion and refused deeper than the text readers allow, so building the IR afterwards (which
recurses) is safe and sees only well-sorted trees: terms where numbers are meant, formulas where
truth values are meant, exactly as the text readers' sort checks guarantee.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tactl.ir.names import IDENTIFIER, identifier_problem

# The same limit as the text readers' (ir.validate.MAX_NESTING): no deeper tree reaches a pass.
MAX_NESTING = 200

TERM, FORMULA = "term", "formula"
_TERM_OPS = {"neg": (1, 1), "sum": (2, None), "*": (2, 2)}
_DIVISION_OPS = {"/": (2, 2)}  # floor division by a positive constant: tactl.ta only (division=True)
_FORMULA_OPS = {"!": (1, 1), "[]": (1, 1), "<>": (1, 1), "&&": (2, None), "||": (2, None),
                "->": (2, 2)}
_COMPARE_OPS = ("<", "<=", "==", "!=", ">=", ">")


class ShapeError(ValueError):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path, self.message = path, message


Shape = Callable[[Any, str], None]


def check(doc: Any, shape: Shape) -> None:
    """Raise :class:`ShapeError` for the first place where ``doc`` does not have ``shape``."""
    shape(doc, "")


def _found(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        text = repr(value)
        return f"the string {text if len(text) <= 40 else text[:37] + '…'}"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _at(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


# ------------------------------------------------------------------------------------ shapes


def name(value: Any, path: str) -> None:
    problem = identifier_problem(value)
    if problem:
        raise ShapeError(path, problem)


def integer(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ShapeError(path, f"expected an integer, found {_found(value)}")


def natural(value: Any, path: str) -> None:
    integer(value, path)
    if value < 0:
        raise ShapeError(path, f"expected a non-negative integer, found {value}")


def string(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise ShapeError(path, f"expected a string, found {_found(value)}")


def one_of(*choices: str) -> Shape:
    def shape(value: Any, path: str) -> None:
        if value not in choices or not isinstance(value, str):
            raise ShapeError(path, f"expected one of {', '.join(map(repr, choices))}, found {_found(value)}")
    return shape


def optional(inner: Shape) -> Shape:
    """``inner`` or JSON null."""
    def shape(value: Any, path: str) -> None:
        if value is not None:
            inner(value, path)
    return shape


def list_of(item: Shape) -> Shape:
    def shape(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise ShapeError(path, f"expected a list, found {_found(value)}")
        for i, v in enumerate(value):
            item(v, _at(path, i))
    return shape


def values_of(item: Shape) -> Shape:
    """An object with any keys, each value of shape ``item``."""
    def shape(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise ShapeError(path, f"expected an object, found {_found(value)}")
        for k, v in value.items():
            item(v, _at(path, k))
    return shape


@dataclass(frozen=True)
class Obj:
    """An object with these required fields and these optional ones, and no others."""

    required: dict[str, Shape]
    optional: dict[str, Shape] = field(default_factory=dict)

    def __call__(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise ShapeError(path, f"expected an object, found {_found(value)}")
        for key, shape in self.required.items():
            if key not in value:
                raise ShapeError(path, f"missing field '{key}'")
            shape(value[key], _at(path, key))
        for key, shape in self.optional.items():
            if key in value:
                shape(value[key], _at(path, key))
        extra = [k for k in value if k not in self.required and k not in self.optional]
        if extra:
            raise ShapeError(path, f"unexpected field {extra[0]!r} (expected "
                             f"{', '.join(map(repr, [*self.required, *self.optional]))})")


# ------------------------------------------------------------------------------- expressions


def _expression_name(value: Any, path: str, receive: bool, unknowns: bool = False) -> None:
    if unknowns and isinstance(value, str) and value.startswith("?") and IDENTIFIER.fullmatch(value[1:]):
        return  # an unknown coefficient (ir/unknowns.py)
    if receive and isinstance(value, str) and value.startswith("received(") and value.endswith(")"):
        inner = value[len("received("):-1]
        if IDENTIFIER.fullmatch(inner):
            return
    name(value, path)


def expression(sort: str, receive: bool = False, division: bool = False, unknowns: bool = False) -> Shape:
    """An expression of ``sort`` (term or formula); ``receive`` admits ``received(M)`` names,
    ``unknowns`` the names ``?a`` of unknown coefficients, ``division`` the term operator ``"/"``
    (whose divisor the validator checks, as for text)."""
    term_ops = {**_TERM_OPS, **_DIVISION_OPS} if division else _TERM_OPS

    def shape(value: Any, path: str) -> None:
        stack = [(value, path, sort, 0)]
        while stack:
            node, where, want, depth = stack.pop()
            if depth > MAX_NESTING:
                raise ShapeError(where, f"expression nested more than {MAX_NESTING} levels deep")
            if isinstance(node, bool):
                if want != FORMULA:
                    raise ShapeError(where, f"expected a term (a number-valued expression), found {_found(node)}")
                continue
            if isinstance(node, int):
                if want != TERM:
                    raise ShapeError(where, f"expected a formula (a truth value), found {_found(node)}")
                continue
            if not isinstance(node, dict):
                raise ShapeError(where, f"expected an expression, found {_found(node)}")
            if "name" in node:
                Obj({"name": lambda v, p: _expression_name(v, p, receive, unknowns)})(node, where)
                if want != TERM:
                    raise ShapeError(where, f"expected a formula, found the name '{node['name']}' "
                                     "(compare it with something)")
                continue
            op = node.get("op")
            known = (term_ops if want == TERM else {**_FORMULA_OPS, **{c: (2, 2) for c in _COMPARE_OPS}})
            if not isinstance(op, str) or op not in known:
                other = _FORMULA_OPS.keys() | set(_COMPARE_OPS) if want == TERM else term_ops.keys()
                if isinstance(op, str) and op in other:
                    raise ShapeError(where, f"expected a {want}, found the "
                                     f"{'formula' if want == TERM else 'term'} operator {op!r}")
                raise ShapeError(where, f"expected an expression object with \"name\" or a known "
                                 f"\"op\", found op {_found(op) if op is not None else 'missing'}")
            fields: dict[str, Shape] = {"op": string, "args": list_of(lambda v, p: None)}
            if op == "sum":
                fields["signs"] = list_of(one_of("+", "-"))
            Obj(fields)(node, where)
            args = node["args"]
            low, high = known[op]
            if len(args) < low or (high is not None and len(args) > high):
                count = str(low) if low == high else f"at least {low}"
                raise ShapeError(where, f"operator {op!r} takes {count} argument(s), found {len(args)}")
            if op == "sum":
                if len(node["signs"]) != len(args) - 1:
                    raise ShapeError(where, f"a sum of {len(args)} terms has {len(args) - 1} signs, "
                                     f"found {len(node['signs'])}")
                if isinstance(args[0], dict) and args[0].get("op") == "sum":
                    raise ShapeError(_at(_at(where, "args"), 0), "the first term of a sum cannot be a "
                                     "sum (write the terms into the outer sum)")
            arg_sort = TERM if want == TERM or op in _COMPARE_OPS else FORMULA
            for i, a in enumerate(args):
                stack.append((a, _at(_at(where, "args"), i), arg_sort, depth + 1))

    return shape
