"""Compiling and evaluating CEL expressions with celpy, worded as cel-go.

A compiled program is cached by its text and the names it may use. Compiling parses, then checks
that every free name is a declared variable or a macro's own variable, and every function or method
is known (cel-go's "undeclared reference" issue). Evaluation uses cel-go's semantics where celpy
differs: equality across numeric types and between values of different types (false, not an error),
ordering across numeric types, and cel-go's error texts.
"""
from __future__ import annotations

import functools
import threading
from typing import Any

import celpy
import lark
from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError, base_functions

from kubelite.server.cel import CompileError, EvalError, library

_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_BUILTIN_NAMES = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type",
                            "type", "dyn", "duration", "timestamp"})
_FUNCTION_MACROS = frozenset({"has", "dyn"})


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, (bool, celtypes.BoolType))


def _category(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, celtypes.BoolType) or isinstance(value, bool):
        return "bool"
    if _is_number(value):
        return "number"
    if isinstance(value, (celtypes.StringType, str)):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, type):
        return "type"
    return type(value).__name__


def equal(a, b) -> bool:
    """cel-go's heterogeneous equality: numbers compare by value whatever their type, values of
    different types are unequal, lists and maps compare element by element."""
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return False
    if ca == "null":
        return True
    if ca == "number":
        return _plain(a) == _plain(b)
    if isinstance(a, type) and isinstance(b, type):
        return issubclass(a, b) or issubclass(b, a)
    if ca == "list":
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if ca == "map":
        if len(a) != len(b):
            return False
        for key in a:
            match = next((k for k in b if equal(k, key)), _MISSING)
            if match is _MISSING or not equal(a[key], b[match]):
                return False
        return True
    return bool(a == b)


_MISSING = object()


def _plain(value):
    """A number as Python's own type (celpy's refuse to compare across types)."""
    return float(value) if isinstance(value, float) else int(value)


def _eq(a, b):
    return celtypes.BoolType(equal(a, b))


def _ne(a, b):
    return celtypes.BoolType(not equal(a, b))


def _ordered(op, fallback):
    def compare(a, b):
        if _is_number(a) and _is_number(b):
            return celtypes.BoolType(op(_plain(a), _plain(b)))
        if isinstance(a, (celtypes.BoolType, bool)) != isinstance(b, (celtypes.BoolType, bool)):
            raise TypeError("no such overload")
        return fallback(a, b)
    return compare


def _index(container, key):
    if isinstance(container, list):
        if not _is_number(key) or (isinstance(key, float) and not float(key).is_integer()):
            raise TypeError("no such overload")
        i = int(key)
        if i < 0 or i >= len(container):
            return library.error(f"index '{i}' out of range in list size '{len(container)}'")
        return container[i]
    if isinstance(container, dict):
        try:
            return container[key]
        except KeyError:
            return library.error(f"no such key: {key}")
        except TypeError:
            return library.error(f"no such key: {key}")
    raise TypeError("no such overload")


def _propagating(function):
    """An error given as an argument is the result (celpy checks only some call paths)."""
    @functools.wraps(function)
    def call(*args):
        for arg in args:
            if isinstance(arg, CELEvalError):
                return arg
        return function(*args)
    return call


def _functions() -> dict:
    import operator

    functions = dict(library.FUNCTIONS)
    functions.update({
        "_==_": _eq, "_!=_": _ne, "_[_]": _index,
        "_<_": _ordered(operator.lt, base_functions["_<_"]),
        "_<=_": _ordered(operator.le, base_functions["_<=_"]),
        "_>_": _ordered(operator.gt, base_functions["_>_"]),
        "_>=_": _ordered(operator.ge, base_functions["_>=_"]),
    })
    return {name: _propagating(function) for name, function in functions.items()}


_lock = threading.Lock()
_state: dict[str, Any] = {}


def _environment():
    env = _state.get("env")
    if env is None:
        env = _state["env"] = celpy.Environment()
        _state["functions"] = _functions()
    return env


def _known_function(name: str) -> bool:
    return name in _state["functions"] or name in base_functions or name in _BUILTIN_NAMES


# -- compiling -----------------------------------------------------------------------------------

def _issue(text: str, line: int, column: int, message: str) -> str:
    """One cel-go issue, as its ToDisplayString prints it (column is 1-based here)."""
    lines = text.splitlines() or [""]
    snippet = lines[line - 1] if 0 < line <= len(lines) else ""
    snippet = snippet.replace("\t", " ")
    return f"ERROR: <input>:{line}:{column}: {message}\n | {snippet}\n | {'.' * (column - 1)}^"


def _syntax_message(err: CELParseError) -> str:
    """cel-go's wording where lark's exception says enough (the expected tokens are not listed)."""
    cause = err.__context__
    token = getattr(cause, "token", None)
    if isinstance(token, lark.Token):
        value = "<EOF>" if token.type == "$END" else str(token)
        return f"Syntax error: mismatched input '{value}'"
    char = getattr(cause, "char", None)
    if char:
        return f"Syntax error: token recognition error at: '{char}'"
    return "Syntax error"


def _parse(text: str):
    env = _environment()
    try:
        return env.compile(text)
    except CELParseError as err:
        line = err.line or 1
        column = err.column or (len((text.splitlines() or [""])[-1]) + 1)
        if err.line is None:
            line = max(len(text.splitlines()), 1)
        raise CompileError(_issue(text, line, column, _syntax_message(err))) from None
    except RecursionError:
        raise CompileError("ERROR: <input>:1:1: expression nested too deeply") from None


def _bound_names(tree) -> set[str]:
    """Names that comprehension macros (all, exists, map, ...) declare anywhere in the tree."""
    names = set()
    for node in tree.iter_subtrees():
        if node.data == "member_dot_arg" and len(node.children) == 3 and str(node.children[1]) in _MACROS:
            exprlist = node.children[2]
            first = exprlist.children[0] if isinstance(exprlist, lark.Tree) and exprlist.children else None
            for sub in (first.iter_subtrees() if isinstance(first, lark.Tree) else ()):
                if sub.data == "ident":
                    names.add(str(sub.children[0]))
                    break
    return names


def _check_names(text: str, tree, variables: frozenset[str]) -> frozenset[str]:
    """The declared variables the expression uses; CompileError for undeclared names."""
    bound = _bound_names(tree)
    issues = []
    used = set()
    for node in tree.iter_subtrees_topdown():
        token = None
        if node.data == "ident":
            token = node.children[0]
            if str(token) in variables:
                used.add(str(token))
            if str(token) in variables or str(token) in bound or str(token) in _BUILTIN_NAMES:
                continue
        elif node.data == "ident_arg":
            token = node.children[0]
            if str(token) in _FUNCTION_MACROS or _known_function(str(token)):
                continue
        elif node.data == "member_dot_arg":
            token = node.children[1]
            if str(token) in _MACROS or _known_function(str(token)):
                continue
        else:
            continue
        issues.append((token.line, token.column, f"undeclared reference to '{token}' (in container '')"))
    if issues:
        issues.sort()
        raise CompileError("\n".join(_issue(text, *issue) for issue in issues))
    return frozenset(used)


class Program:
    """One compiled expression."""

    def __init__(self, text: str, runner, uses: frozenset[str] = frozenset()):
        self.text = text
        self.uses = uses  # the declared variables it refers to (a CRD rule using oldSelf is a transition rule)
        self._runner = runner

    def evaluate(self, activation: dict[str, Any]):
        """The CEL value of the expression for `activation` (name to CEL value); EvalError with
        cel-go's text when evaluation fails."""
        try:
            result = self._runner.evaluate(activation)
        except CELEvalError as err:
            raise EvalError(runtime_message(err)) from None
        except RecursionError:
            raise EvalError("max recursion depth exceeded") from None
        except (TypeError, AttributeError, ValueError, KeyError, IndexError, ZeroDivisionError) as err:
            raise EvalError(f"no such overload: {err}") from None
        if isinstance(result, CELEvalError):
            raise EvalError(runtime_message(result))
        return result


@functools.lru_cache(maxsize=2048)
def _compiled(text: str, variables: frozenset[str]) -> Program:
    with _lock:
        tree = _parse(text)
        uses = _check_names(text, tree, variables)
        runner = _environment().program(tree, functions=_state["functions"])
    return Program(text, runner, uses)


def compile_expression(text: str, variables: frozenset[str]) -> Program:
    return _compiled(text, variables)


# -- runtime errors ------------------------------------------------------------------------------

def runtime_message(err: CELEvalError) -> str:
    """cel-go's words for a celpy runtime error."""
    message = str(err.args[0]) if err.args else "error"
    cause = err.args[1] if len(err.args) > 1 else None
    if message.startswith("no such member in mapping: "):
        return "no such key: " + message[len("no such member in mapping: "):].strip("'\"")
    if message.startswith("found no matching overload") or message == "no such overload" or \
            message.endswith("does not support field selection"):
        return "no such overload"
    if message == "modulus or divide by zero":
        return "division by zero"
    if message == "return error for overflow":
        return "integer overflow"
    if message.startswith("Attempt to reduce an empty sequence"):
        return "min called on empty list"
    if message.startswith("undeclared reference to"):
        return message.split(" (in activation", 1)[0] + " (in container '')"
    if cause is KeyError and message == "no such key":
        args = err.args[2] if len(err.args) > 2 else ()
        return f"no such key: {args[0] if args else ''}"
    return message
