"""CEL in admission: the variables an admission expression sees, and conditions.

Shared by ValidatingAdmissionPolicies (validations, matchConditions, variables) and the
matchConditions of admission webhooks. The variables are kube-apiserver's: `object` and
`oldObject` (null when absent: oldObject on create, object on delete), `request` (the
AdmissionRequest without its objects, as JSON with Go's omitempty), `params`, `namespaceObject`
and `variables` for policies. `authorizer` is not offered: an expression using it does not compile.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubelite.server.admissionrequest import request_fields
from kubelite.server.cel import CompileError, EvalError, compile_expression, to_cel

_NAMESPACE_META = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation",
                   "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                   "annotations", "finalizers")


def request_value(attr, group: str, version: str, resource: str, kind: str) -> dict:
    """The AdmissionRequest CEL sees: matched kind/resource, the request's own, no objects."""
    return request_fields(attr, group, version, resource, kind)


def namespace_value(namespace: dict | None) -> dict | None:
    """`namespaceObject`: the namespace's metadata (the fields kube-apiserver keeps), spec, status."""
    if namespace is None:
        return None
    meta = namespace.get("metadata") or {}
    out: dict[str, Any] = {"metadata": {k: meta[k] for k in _NAMESPACE_META if meta.get(k) not in (None, "", [], {})}}
    for key in ("spec", "status"):
        if namespace.get(key):
            out[key] = namespace[key]
    return out


def expression_error(expression: str, err: Exception) -> str:
    """kube-apiserver's text for an expression that failed (compiling or evaluating)."""
    if isinstance(err, CompileError):
        return f"compilation error: compilation failed: {err}"
    return f"expression '{expression}' resulted in error: {err}"


def aggregate(messages: list[str]) -> str:
    """Go's utilerrors.NewAggregate(...).Error(): one message as is, several in brackets."""
    seen: list[str] = []
    for message in messages:
        if message not in seen:
            seen.append(message)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


@dataclass
class Compiled:
    """An expression compiled for a variable set: its program, or why it does not compile."""

    expression: str
    program: Any = None
    error: CompileError | None = None

    @classmethod
    def of(cls, expression: str, variables: frozenset[str]) -> "Compiled":
        try:
            return cls(expression, compile_expression(expression, variables))
        except CompileError as err:
            return cls(expression, error=err)

    def evaluate(self, activation: dict):
        """The CEL value; CompileError or EvalError raised."""
        if self.error is not None:
            raise self.error
        return self.program.evaluate(activation)


def conditions_match(conditions: list[tuple[str, Compiled]], activation: dict) -> tuple[bool, str | None]:
    """matchConditions as kube-apiserver's matcher decides: (False, None) as soon as one is false;
    else (True, None) when none failed, or (False, the errors) when some could not be evaluated
    (the caller applies its failure policy)."""
    errors = []
    for _name, compiled in conditions:
        try:
            value = compiled.evaluate(activation)
        except (CompileError, EvalError) as err:
            errors.append(expression_error(compiled.expression, err))
            continue
        if isinstance(value, int) and type(value).__name__ == "BoolType" and not value:
            return False, None
    if errors:
        return False, aggregate(errors)
    return True, None


def activation(obj: dict | None, old: dict | None, request: dict, **more: Any) -> dict:
    """The CEL values of an admission expression's variables (already-CEL values pass as they are)."""
    out = {"object": to_cel(obj), "oldObject": to_cel(old), "request": to_cel(request)}
    for name, value in more.items():
        out[name] = value if hasattr(value, "_callbacks") else to_cel(value)
    return out
