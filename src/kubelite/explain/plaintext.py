"""The `plaintext` layout of kubectl 1.32's explain, walked over an OpenAPI v3 document.

The document is plain JSON (dicts/lists). Truthiness follows Go templates, which for JSON values
is Python's: empty strings, maps, lists, 0, false and null are all "absent".
"""
from __future__ import annotations

from kubelite.explain.wordwrap import wrap

_METHODS = ("get", "post", "put", "patch", "delete")


class ExplainError(Exception):
    """kubectl's error line; `partial` is what kubectl already printed to stdout before failing."""

    def __init__(self, message: str, partial: str = ""):
        super().__init__(message)
        self.partial = partial


def render(document: dict, group: str, version: str, resource: str, field_path: list[str],
           recursive: bool = False) -> str:
    gvk = _find_gvk(document, group, version, resource)
    if not gvk:
        raise ExplainError(f"error: GVR ({_gvr_string(group, version, resource)}) not found in OpenAPI schema")
    header = ""
    if isinstance(gvk, dict) and gvk.get("group"):
        header += f"GROUP:      {_go(gvk['group'])}\n"
    header += f"KIND:       {_go(_get(gvk, 'kind'))}\n"
    header += f"VERSION:    {_go(_get(gvk, 'version'))}\n\n"
    walker = _Walker(document, recursive)
    for schema in _schemas_of(document, gvk):
        body = walker.output(schema, None, list(field_path))
        if not body:
            raise ExplainError(f'error: field "{field_path[-1]}" does not exist', header)
        return header + body + "\n"
    raise ExplainError(f"error: GVK {_go(gvk)} not found in OpenAPI schema", header)


def _gvr_string(group: str, version: str, resource: str) -> str:
    return f"{group}/{version}, Resource={resource}"


def _find_gvk(document: dict, group: str, version: str, resource: str):
    """The kind of the resource, from its operations; the last path and method examined wins,
    as in kubectl's template (each examined method overwrites what was found before)."""
    prefix = "/api" if not group else f"/apis/{group}"
    searches = (f"{prefix}/{version}/{resource}", f"{prefix}/{version}/{resource}/{{name}}",
                f"{prefix}/{version}/namespaces/{{namespace}}/{resource}",
                f"{prefix}/{version}/namespaces/{{namespace}}/{resource}/{{name}}")
    paths = _get(document, "paths")
    gvk = None
    for search in searches:
        element = _get(paths, search)
        if not element:
            continue
        for method in _METHODS:
            operation = _get(element, method)
            if not operation:
                continue
            gvk = _get(operation, "x-kubernetes-group-version-kind")
            if gvk:
                break
    return gvk


def _schemas_of(document: dict, gvk) -> list:
    schemas = _get(_get(document, "components"), "schemas")
    if not isinstance(schemas, dict):
        return []
    for name in sorted(schemas):
        schema = schemas[name]
        kinds = _get(schema, "x-kubernetes-group-version-kind")
        if isinstance(kinds, list) and gvk in kinds:
            return [schema]
    return []


def _get(value, key):
    return value.get(key) if isinstance(value, dict) else None


def _is_map(value) -> bool:
    return bool(value) and isinstance(value, dict)


def _indent(amount: int, text: str) -> str:
    pad = " " * amount
    return pad + text.replace("\n", "\n" + pad)


def _go(value) -> str:
    """A JSON value as Go's fmt prints it inside a template."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go(v) for v in value) + "]"
    return str(value)


def _go_float(value: float) -> str:
    # Go's %v for float64 is %g with the shortest representation, exponent from 21 digits on
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        digits = exp.lstrip("+-").rjust(2, "0")
        return f"{mantissa}e{sign}{digits}"
    return text


class _Walker:
    def __init__(self, document: dict, recursive: bool):
        self.document = document
        self.recursive = recursive

    def resolve(self, ref) -> dict | None:
        """The schema a local `#/...` reference points to, or None."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        current = self.document
        for part in ref[1:].split("/"):
            if not part:
                continue
            current = current.get(part) if isinstance(current, dict) else None
            if not isinstance(current, dict):
                return None
        return current

    def resolved(self, schema) -> dict:
        found = self.resolve(_get(schema, "$ref"))
        return found or (schema if isinstance(schema, dict) else {})

    # -- one field after another ----------------------------------------------------------------

    def output(self, schema, history: dict | None, path: list[str]) -> str:
        ref = _get(schema, "$ref") or ""
        next_history = {**(history or {}), ref: 1}
        resolved = self.resolved(schema)
        if not path:
            text = "DESCRIPTION:\n" + _indent(4, wrap(self.description(resolved) or "<empty>", 76)) + "\n"
            fields = self.field_list(resolved, 1, None)
            return text + ("FIELDS:\n" + fields if fields else "")
        if ref and (history or {}).get(ref):
            return ""  # a cycle
        properties = _get(resolved, "properties")
        if _is_map(properties) and properties.get(path[0]):
            sub = properties[path[0]]
            text = ""
            if len(path) == 1:
                text = f"FIELD: {path[0]} <{self.type_guess(sub)}>\n" + self.enum(sub, True, -1, 0) + "\n\n"
            return text + self.output(sub, {}, path[1:])
        if _get(resolved, "items"):
            return self.output(resolved["items"], next_history, path)
        additional = _get(resolved, "additionalProperties")
        if _is_map(additional):
            return self.output(additional, next_history, path)
        for sub in _list(_get(resolved, "allOf")):
            text = self.output(sub, next_history, path)
            if text:
                return text
        return ""

    # -- the FIELDS list ------------------------------------------------------------------------

    def field_list(self, schema, level: int, history: dict | None) -> str:
        ref = _get(schema, "$ref") or ""
        if ref and (history or {}).get(ref):
            return ""
        next_history = {**(history or {}), ref: 1}
        resolved = self.resolved(schema)
        parts: list[str] = []
        properties = _get(resolved, "properties")
        if isinstance(properties, dict):
            for name in sorted(properties):
                parts.append(self.field_detail(name, resolved, level))
                if self.recursive:
                    parts.append(self.field_list(properties[name], level + 1, next_history))
        for sub in _list(_get(resolved, "allOf")):
            parts.append(self.field_list(sub, level, next_history))
        if _get(resolved, "items"):
            parts.append(self.field_list(resolved["items"], level, next_history))
        additional = _get(resolved, "additionalProperties")
        if _is_map(additional):
            parts.append(self.field_list(additional, level, next_history))
        return "".join(parts)

    def field_detail(self, name: str, schema: dict, level: int) -> str:
        indent = level * 2
        field = schema["properties"][name]
        text = _indent(indent, name) + f"\t<{self.type_guess(field)}>"
        required = schema.get("required")
        if isinstance(required, list) and name in required:
            text += " -required-"
        text += self.enum(field, False, 4, indent) + "\n"
        if not self.recursive:
            description = _get(field, "description") or "<no description>"
            text += _indent(indent + 2, wrap(_go(description), max(78 - indent, 0))) + "\n\n"
        return text

    # -- pieces -----------------------------------------------------------------------------------

    def description(self, schema) -> str:
        resolved = self.resolve(_get(schema, "$ref")) or schema
        if not _is_map(resolved):
            return ""
        text = ""
        if resolved.get("description"):
            text += _go(resolved["description"]) + "\n"
        for sub in _list(resolved.get("allOf")):
            text += self.description(sub)
        if resolved.get("items"):
            text += self.description(resolved["items"])
        if _is_map(resolved.get("additionalProperties")):
            text += self.description(resolved["additionalProperties"])
        return text

    def type_guess(self, schema) -> str:
        if not _is_map(schema):
            raise ExplainError("error: expected schema argument to subtemplate 'typeguess'")
        if schema.get("items"):
            return "[]" + self.type_guess(schema["items"])
        if _is_map(schema.get("additionalProperties")):
            return "map[string]" + self.type_guess(schema["additionalProperties"])
        all_of = schema.get("allOf")
        if all_of and not schema.get("properties") and isinstance(all_of, list) and len(all_of) == 1:
            return self.type_guess(all_of[0])
        ref = schema.get("$ref")
        if ref:
            target = self.resolve(ref)
            if not target or not target.get("type") or target.get("type") == "object":
                name = str(ref).split("/")[-1]
                return name.split(".")[-1] or "Object"
            return _go(target["type"])
        kind = schema.get("type")
        if kind == "object":
            return "Object"
        return _go(kind) if kind else "Object"

    def enum(self, schema, long_view: bool, limit: int, indent: int) -> str:
        values = _get(schema, "enum")
        if not values or not isinstance(values, list):
            return ""
        text = "ENUM:" if long_view else "\n" + " " * indent + "enum: "
        for index, value in enumerate(values):
            if limit > -1 and index >= limit:
                text += ", ...."
                break
            if index > 0 and not long_view:
                text += ", "
            elif long_view:
                text += "\n    "
            text += '""' if value == "" else _go(value)
        return text


def _list(value) -> list:
    return value if isinstance(value, list) else []
