"""Custom resources: structural-schema pruning and defaulting, status
handling, and the status the apiextensions controllers give a new CRD.

``schema`` is a version's ``openAPIV3Schema`` (a plain dict).
"""

from __future__ import annotations

import copy
import re as _re

from kubelite.server.admission import field as _F

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "version_schema",
    "has_status_subresource",
    "prune",
    "apply_schema_defaults",
    "prepare_custom_resource_for_create",
    "crd_created_status",
    "crd_initial_status",
    "validate_custom_resource",
]

_ROOT_KEEP = ("apiVersion", "kind", "metadata")


def _version(crd: dict, version: str) -> dict | None:
    for item in (crd.get("spec") or {}).get("versions") or []:
        if isinstance(item, dict) and item.get("name") == version:
            return item
    return None


def version_schema(crd: dict, version: str) -> dict | None:
    """The openAPIV3Schema of ``version`` (per-version or top-level validation)."""
    item = _version(crd, version) or {}
    schema = (item.get("schema") or {}).get("openAPIV3Schema")
    if schema is None:
        schema = ((crd.get("spec") or {}).get("validation") or {}).get("openAPIV3Schema")
    return schema


def has_status_subresource(crd: dict, version: str) -> bool:
    item = _version(crd, version) or {}
    subresources = item.get("subresources") or (crd.get("spec") or {}).get("subresources") or {}
    return "status" in subresources


def _prune_value(value: Any, schema: dict | None) -> Any:
    if schema is None:
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        additional = schema.get("additionalProperties")
        preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
        out = {}
        for key, child in value.items():
            if props and key in props:
                out[key] = _prune_value(child, props[key])
            elif isinstance(additional, dict):
                out[key] = _prune_value(child, additional)
            elif preserve or additional is True:
                out[key] = child
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_prune_value(v, schema["items"]) for v in value]
    return value


def prune(obj: dict, schema: dict | None) -> dict:
    """Drop fields the structural schema does not specify (apiVersion, kind
    and metadata are always kept)."""
    if schema is None:
        return copy.deepcopy(obj)
    pruned = _prune_value({k: v for k, v in obj.items() if k not in _ROOT_KEEP}, schema)
    out = {k: copy.deepcopy(obj[k]) for k in _ROOT_KEEP if k in obj}
    out.update(pruned)
    return out


def _default_value(value: Any, schema: dict | None) -> Any:
    if schema is None:
        return value
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for key, child_schema in props.items():
            if not isinstance(child_schema, dict):
                continue
            if "default" in child_schema and (
                key not in value or (value[key] is None and not child_schema.get("nullable"))
            ):
                value[key] = copy.deepcopy(child_schema["default"])
            if key in value:
                value[key] = _default_value(value[key], child_schema)
        additional = schema.get("additionalProperties")
        if isinstance(additional, dict):
            for key in value:
                if key not in props:
                    value[key] = _default_value(value[key], additional)
        return value
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_default_value(v, schema["items"]) for v in value]
    return value


def apply_schema_defaults(obj: dict, schema: dict | None) -> dict:
    """Fill ``default`` values from the schema, top-down, into a copy of ``obj``."""
    out = copy.deepcopy(obj)
    if schema is None:
        return out
    return _default_value(out, schema)


def prepare_custom_resource_for_create(obj: dict, crd: dict) -> dict:
    """Prune, default and (with a status subresource) drop ``status``."""
    version = (obj.get("apiVersion") or "").rsplit("/", 1)[-1]
    schema = version_schema(crd, version)
    out = apply_schema_defaults(prune(obj, schema), schema)
    if has_status_subresource(crd, version):
        out.pop("status", None)
    return out


def crd_created_status(crd: dict) -> dict:
    """Status of a CRD as created, before the controllers ran: only the storage version, the
    rest as Go writes an empty status (acceptedNames' required kind and plural, no conditions)."""
    spec = crd.get("spec") or {}
    storage = [v.get("name") for v in spec.get("versions") or [] if isinstance(v, dict) and v.get("storage")]
    return {"conditions": None, "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": storage}


def crd_initial_status(crd: dict, now: str) -> dict:
    """Status of a new CRD once the naming and establishing controllers ran."""
    spec = crd.get("spec") or {}
    names = copy.deepcopy(spec.get("names") or {})
    storage = [v.get("name") for v in spec.get("versions") or [] if isinstance(v, dict) and v.get("storage")]
    return {
        "conditions": [
            {
                "type": "NamesAccepted",
                "status": "True",
                "lastTransitionTime": now,
                "reason": "NoConflicts",
                "message": "no conflicts found",
            },
            {
                "type": "Established",
                "status": "True",
                "lastTransitionTime": now,
                "reason": "InitialNamesAccepted",
                "message": "the initial names have been accepted",
            },
        ],
        "acceptedNames": names,
        "storedVersions": storage,
    }


# --- validation -------------------------------------------------------------------

_CEL_PLACEHOLDER = (
    "some validation rules were not checked because the object was invalid; "
    "correct the existing errors to complete validation"
)
_JSON_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _type_ok(value: Any, expected: str) -> bool:
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer()
        )
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    kind = _JSON_TYPES.get(expected)
    return kind is None or isinstance(value, kind)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _schema_errors(value: Any, schema: dict, path: str) -> list:
    errs: list = []
    if value is None:
        return errs
    expected = schema.get("type")
    if expected and not _type_ok(value, expected):
        return [
            _F.type_invalid(
                path, _type_name(value), f'{path} in body must be of type {expected}: "{_type_name(value)}"'
            )
        ]
    if "enum" in schema and value not in schema["enum"]:
        errs.append(_F.not_supported(path, value, [str(v) for v in schema["enum"]]))
    if isinstance(value, str):
        pattern = schema.get("pattern")
        if pattern and not _re.search(pattern, value):
            errs.append(_F.invalid(path, value, f"{path} in body should match '{pattern}'"))
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errs.append(_F.too_long(path, schema["maxLength"]))
        if "minLength" in schema and len(value) < schema["minLength"]:
            errs.append(
                _F.invalid(path, value, f"{path} in body should be at least {schema['minLength']} chars long")
            )
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema:
            if schema.get("exclusiveMinimum") and value <= schema["minimum"]:
                errs.append(_F.invalid(path, value, f"{path} in body should be greater than {schema['minimum']}"))
            elif value < schema["minimum"]:
                errs.append(
                    _F.invalid(path, value, f"{path} in body should be greater than or equal to {schema['minimum']}")
                )
        if "maximum" in schema:
            if schema.get("exclusiveMaximum") and value >= schema["maximum"]:
                errs.append(_F.invalid(path, value, f"{path} in body should be less than {schema['maximum']}"))
            elif value > schema["maximum"]:
                errs.append(
                    _F.invalid(path, value, f"{path} in body should be less than or equal to {schema['maximum']}")
                )
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in value:
                errs.append(_F.required(_join(path, name), ""))
        for name, child in props.items():
            if name in value and isinstance(child, dict):
                errs += _schema_errors(value[name], child, _join(path, name))
        additional = schema.get("additionalProperties")
        if isinstance(additional, dict):
            for name, child_value in value.items():
                if name not in props:
                    errs += _schema_errors(child_value, additional, _join(path, name))
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append(_F.too_many(path, len(value), schema["maxItems"]))
        if "minItems" in schema and len(value) < schema["minItems"]:
            errs.append(_F.invalid(path, len(value), f"{path} in body should have at least {schema['minItems']} items"))
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                errs += _schema_errors(item, items, f"{path}[{i}]")
    return errs


def _list_type_errors(value: Any, schema: dict, path: str) -> list:
    errs: list = []
    if isinstance(value, dict):
        for name, child in (schema.get("properties") or {}).items():
            if name in value and isinstance(child, dict):
                errs += _list_type_errors(value[name], child, _join(path, name))
    elif isinstance(value, list):
        list_type = schema.get("x-kubernetes-list-type")
        seen: list = []
        for i, item in enumerate(value):
            if list_type == "set":
                if item in seen:
                    errs.append(_F.duplicate(f"{path}[{i}]", item))
                seen.append(item)
            elif list_type == "map" and isinstance(item, dict):
                key = tuple(item.get(k) for k in schema.get("x-kubernetes-list-map-keys") or [])
                if key in seen:
                    errs.append(_F.duplicate(f"{path}[{i}]", _F.GoRepr(
                        "map[string]interface {}{" + ", ".join(
                            f'"{k}":{_F.go_value(v)}' for k, v in zip(schema.get("x-kubernetes-list-map-keys"), key)
                        ) + "}")))
                seen.append(key)
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                errs += _list_type_errors(item, items, f"{path}[{i}]")
    return errs


def _has_cel_rules(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    children = list((schema.get("properties") or {}).values())
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            children.append(schema[key])
    return any(_has_cel_rules(c) for c in children)


def _scale_errors(obj: dict, crd: dict, version: str) -> list:
    item = _version(crd, version) or {}
    scale = (item.get("subresources") or {}).get("scale")
    if not isinstance(scale, dict) or not scale.get("specReplicasPath"):
        return []
    path = scale["specReplicasPath"]
    target: Any = obj
    for part in path.lstrip(".").split("."):
        if not isinstance(target, dict) or part not in target:
            return []
        target = target[part]
    if isinstance(target, bool) or not isinstance(target, int):
        return [
            _F.invalid(path, 0, f"{path} accessor error: {target} is of the type {_go_type(target)}, expected int64")
        ]
    if target < 0:
        return [_F.invalid(path, target, "should be a non-negative integer")]
    return []


def _go_type(value: Any) -> str:
    return {str: "string", bool: "bool", float: "float64", list: "[]interface {}", dict: "map[string]interface {}"}.get(
        type(value), type(value).__name__
    )


def validate_custom_resource(obj: dict, crd: dict, old: dict | None = None) -> list:
    """Causes for a custom resource (replacing ``old`` on update) against its CRD (after
    pruning/defaulting).

    Order: OpenAPI schema, scale ``specReplicasPath``, list-type
    uniqueness, then the CEL rules (``crd_rules``).  kube-apiserver visits object properties in
    Go map order (random); here they follow the schema's order.
    When earlier checks fail and the schema has CEL rules, the server adds
    its ``<nil>`` "rules were not checked" cause, as here.
    """
    version = (obj.get("apiVersion") or "").rsplit("/", 1)[-1]
    schema = version_schema(crd, version)
    if not isinstance(schema, dict):
        return []
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    errs = _schema_errors(body, schema, "")
    errs += _scale_errors(obj, crd, version)
    errs += _list_type_errors(body, schema, "")
    if errs:
        if _has_cel_rules(schema):
            errs.append(_F.invalid("<nil>", "null", _CEL_PLACEHOLDER))
        return errs
    if not _has_cel_rules(schema):
        return []
    from kubelite.server.admission.crd_rules import rule_errors

    return rule_errors(obj, old, schema, "", root=True)
