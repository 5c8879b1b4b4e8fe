"""The `x-kubernetes-validations` rules of a CRD's structural schema, as kube-apiserver 1.32's
apiextensions-apiserver evaluates them (pkg/apiserver/schema/cel/validation.go).

Every schema node's rules run against the value there (`self`, null values are skipped), at any
depth: properties, additionalProperties, array items. A rule that uses `oldSelf` is a transition
rule: evaluated only on update when a comparable old value exists (the same property, the map's
same key, the list item with the same keys for `x-kubernetes-list-type: map` or the same value
for `set`). At the root, `self` also has apiVersion, kind, metadata.name and metadata.generateName.
As with CRD validation ratcheting (on in 1.32), a failing rule without oldSelf is not an error
when the value is unchanged from the old object. Errors carry the rule's message,
messageExpression, reason and fieldPath as kube-apiserver words them.
"""
from __future__ import annotations

from typing import Any

from kubelite.server.admission import field as _F

_MAX_MESSAGE = 5 * 1024
_ROOT_META = ("name", "generateName")


def rule_text(rule: dict) -> str:
    """kube-apiserver's ruleErrorString: the message when there is one, else the rule."""
    message = str(rule.get("message") or "").strip()
    return message or str(rule.get("rule") or "").strip()


def _default_message(rule: dict) -> str:
    message = str(rule.get("message") or "").strip()
    return message or f"failed rule: {rule_text(rule)}"


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _error_path(path: str) -> str:
    return path or "<nil>"  # kube-apiserver validates from a nil field path


def _field_path(path: str, field_path: str, schema: dict) -> str:
    """The rule's fieldPath (`.a.b`, `['a.b']`, map keys) appended to `path`, as kube-apiserver
    normalizes it; the path itself when fieldPath does not parse."""
    text, out, node, i = field_path, path, schema, 0
    while i < len(text):
        if text[i] == ".":
            j = i + 1
            while j < len(text) and text[j] not in ".[":
                j += 1
            name, i = text[i + 1:j], j
        elif text[i] == "[" and text[i + 1:i + 2] == "'":
            j = text.find("']", i + 2)
            if j < 0:
                return path
            name, i = text[i + 2:j].replace("\\'", "'"), j + 2
        else:
            return path
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and name in props:
            out, node = _join(out, name), props[name]
        elif isinstance(node, dict) and isinstance(node.get("additionalProperties"), dict):
            out, node = f"{out}[{name}]", node["additionalProperties"]
        else:
            return path
    return out


def _root_value(obj: dict) -> dict:
    meta = obj.get("metadata") or {}
    out = dict(obj)
    out["metadata"] = {k: meta[k] for k in _ROOT_META if k in meta}
    return out


def _root_schema(schema: dict) -> dict:
    out = dict(schema)
    props = dict(out.get("properties") or {})
    props.setdefault("apiVersion", {"type": "string"})
    props.setdefault("kind", {"type": "string"})
    props["metadata"] = {"type": "object", "properties": {k: {"type": "string"} for k in _ROOT_META}}
    out["properties"] = props
    return out


def _compiled(expression: str):
    from kubelite.server.cel import CompileError, compile_expression

    try:
        return compile_expression(expression, frozenset({"self", "oldSelf"})), None
    except CompileError as err:
        return None, err


def _message(rule: dict, activation: dict) -> str | None:
    """messageExpression's text, None when it fails (the rule's message is used instead)."""
    from kubelite.server.cel import EvalError

    program, err = _compiled(str(rule["messageExpression"]))
    if err is not None:
        return None
    try:
        value = program.evaluate(activation)
    except EvalError:
        return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > _MAX_MESSAGE or "\n" in text:
        return None
    return text


def _failure(rule: dict, path: str, kind: str, detail: str) -> dict:
    reason = rule.get("reason")
    where = _error_path(path)
    if reason == "FieldValueForbidden":
        return _F.forbidden(where, detail)
    if reason == "FieldValueRequired":
        return _F.required(where, detail)
    if reason == "FieldValueDuplicate":
        return _F.duplicate(where, kind)
    return _F.invalid(where, kind, detail)


def _node_errors(rules: list[dict], value: Any, old: Any, schema: dict, path: str, root: bool) -> list:
    from kubelite.server.cel import EvalError, to_cel

    kind = str(schema.get("type") or "")
    node_schema = _root_schema(schema) if root else schema
    activation = {"self": to_cel(_root_value(value) if root else value, node_schema),
                  "oldSelf": to_cel((_root_value(old) if root else old) if old is not None else None, node_schema)}
    errs = []
    for rule in rules:
        expression = str(rule.get("rule") or "")
        if not expression.strip():
            continue
        program, err = _compiled(expression)
        if err is not None:
            errs.append(_F.invalid(_error_path(path), kind, f"rule compile error: compilation failed: {err}"))
            continue
        if "oldSelf" in program.uses and old is None:
            continue  # transition rules need a comparable old value
        try:
            result = program.evaluate(activation)
        except EvalError as failure:
            text = str(failure)
            if text.startswith("no such overload"):
                detail = (f"'{text}': call arguments did not match a supported operator, function or macro "
                          f"signature for rule: {rule_text(rule)}")
            else:
                detail = f"{text} evaluating rule: {rule_text(rule)}"
            errs.append(_F.invalid(_error_path(path), kind, detail))
            continue
        if isinstance(result, int) and type(result).__name__ == "BoolType" and result:
            continue
        if "oldSelf" not in program.uses and old is not None and old == value:
            continue  # ratcheting: an unchanged value keeps passing
        where = path
        if rule.get("fieldPath"):
            where = _field_path(path, str(rule["fieldPath"]), schema)
        detail = _message(rule, activation) if rule.get("messageExpression") else None
        errs.append(_failure(rule, where, kind, detail or _default_message(rule)))
    return errs


def _list_key(item: Any, schema: dict):
    keys = schema.get("x-kubernetes-list-map-keys") or ()
    if not isinstance(item, dict):
        return None
    return tuple(repr(item.get(k)) for k in keys)


def _old_items(value: list, old: Any, schema: dict) -> list:
    """The old item each new one is compared with (None: none), by the list's type."""
    if not isinstance(old, list):
        return [None] * len(value)
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "map":
        by_key = {_list_key(item, schema): item for item in old}
        return [by_key.get(_list_key(item, schema)) for item in value]
    if list_type == "set":
        return [item if item in old else None for item in value]
    return [None] * len(value)  # atomic lists: items have no old counterpart


def rule_errors(value: Any, old: Any, schema: Any, path: str = "", root: bool = False) -> list:
    """The causes for `value` (and the `old` value it replaces, None on create) under `schema`."""
    if not isinstance(schema, dict) or value is None:
        return []
    errs = []
    rules = [r for r in schema.get("x-kubernetes-validations") or () if isinstance(r, dict)]
    if rules:
        errs += _node_errors(rules, value, old, schema, path, root)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        old_map = old if isinstance(old, dict) else {}
        for name, child_schema in props.items():  # schema order (kube-apiserver: Go's map order)
            if name in value and not (root and name in ("apiVersion", "kind", "metadata")):
                errs += rule_errors(value[name], old_map.get(name), child_schema, _join(path, name))
        if isinstance(additional, dict):
            for name, child in value.items():
                if name not in props:
                    errs += rule_errors(child, old_map.get(name), additional, f"{path}[{name}]")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, (item, old_item) in enumerate(zip(value, _old_items(value, old, schema))):
            errs += rule_errors(item, old_item, schema["items"], f"{path}[{i}]")
    return errs
