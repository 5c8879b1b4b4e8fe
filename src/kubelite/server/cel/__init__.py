"""The Common Expression Language, as kube-apiserver evaluates it.

Three users: ValidatingAdmissionPolicies (`server/webhooks/policies.py`), the
`x-kubernetes-validations` rules of CustomResourceDefinitions (`admission/crd.py`) and the
matchConditions of admission webhooks (`webhooks/matching.py`).

The interpreter is cel-python (`celpy`, cloud-custodian's pure-Python CEL, RE2 regular expressions
like Kubernetes). It is imported on first use, so that nothing pays for it unless an expression is
evaluated. `engine` compiles (a cache keyed by the expression's text), checks the names an
expression uses, evaluates, and words errors as cel-go does; `values` converts JSON values to CEL
values and back; `library` holds the Kubernetes CEL libraries (strings, lists, regex, url,
quantity).

What cel-go does and this does not: static type checking (a rule that compiles in kube-apiserver
but is ill-typed fails here only when evaluated, with a runtime error), optional types (`?.`,
`optional.of`), the `sets`, `ip`/`cidr`, `format` and `authorizer` libraries, and cost budgets.
"""
from __future__ import annotations

from typing import Any


class CompileError(Exception):
    """The expression does not compile; `str()` is cel-go's issue text (`ERROR: <input>:1:5: ...`)."""


class EvalError(Exception):
    """Evaluation failed; `str()` is cel-go's runtime error text (`no such key: x`)."""


def compile_expression(text: str, variables: frozenset[str] | tuple[str, ...]):
    """The compiled program for `text`, whose free names must be among `variables`
    (raises CompileError). Programs are cached by text and variables."""
    from kubelite.server.cel import engine

    return engine.compile_expression(text, frozenset(variables))


def to_cel(value: Any, schema: dict | None = None):
    from kubelite.server.cel import values

    return values.to_cel(value, schema)


def from_cel(value: Any) -> Any:
    from kubelite.server.cel import values

    return values.from_cel(value)


def lazy_map(callbacks: dict):
    """A CEL map whose entries are computed on first access (the `variables` of a policy)."""
    from kubelite.server.cel import values

    return values.LazyMap(callbacks)


__all__ = ["CompileError", "EvalError", "compile_expression", "to_cel", "from_cel", "lazy_map"]
