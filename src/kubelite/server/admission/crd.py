"""Custom resources: structural-schema pruning and defaulting, status
handling, and the status the apiextensions controllers give a new CRD.

``schema`` is a version's ``openAPIV3Schema`` (a plain dict).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "version_schema",
    "has_status_subresource",
    "prune",
    "apply_schema_defaults",
    "prepare_custom_resource_for_create",
    "crd_initial_status",
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
