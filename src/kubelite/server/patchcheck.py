"""Decoding a patched built-in object the way kube-apiserver's patch handler does.

kube-apiserver applies a JSON or merge patch to the JSON of the stored object and decodes the
result into the Go type; a strategic merge patch is applied to a map which the unstructured
converter then copies into the Go type. A wrongly typed result (`"replicas": "x"`), a kind the
endpoint does not serve, or (under fieldValidation=Strict) an unknown field is refused with a
422 whose single cause quotes, as the field `patch`:

- json/merge patches: the patched JSON as the patch library marshalled it. Containers the
  patch walked through were re-marshalled from Go maps (sorted keys); the rest keeps the bytes
  of the stored object (struct order) or of the patch;
- strategic patches: the decoded patch printed with Go's `%+v` (`map[spec:map[replicas:x]]`).

The messages differ too: encoding/json's `json: cannot unmarshal ...` for json/merge, the
converter's `unrecognized type: int32` / `cannot restore struct from: string` for strategic.
"""
from __future__ import annotations

import json

from kubelite.schema.model import ANY, LIST, MAP, OBJECT
from kubelite.server import errors

_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def invalid_patch(rendered: str, detail: str) -> errors.StatusError:
    """422 ` "" is invalid: patch: Invalid value: "<rendered>": <detail>` (an empty GroupKind)."""
    from kubelite.server.admission.field import go_quote

    message = f"Invalid value: {go_quote(rendered)}: {detail}"
    return errors.StatusError(422, "Invalid", f' "" is invalid: patch: {message}',
                              causes=[{"reason": "FieldValueInvalid", "message": message, "field": "patch"}],
                              has_details=True)


def review(r, patch_type: str, original: dict, patch: bytes, patched: dict, validation: str) -> list[str]:
    """Decode `patched` as the patch handler does: raise its 422 for a wrongly typed result or
    (Strict) unknown fields, drop unknown fields, and return them as warnings (Warn).
    `original` is the stored object in served key order, the patch's starting point."""
    from kubelite.server.patching import JSON_PATCH, STRATEGIC_PATCH
    from kubelite.server.pruning import prune_object

    from kubelite.server.handlers.jsonbody import loads

    doc = loads(patch)  # as patching.apply read it (Go's decoding rules)
    if patch_type == STRATEGIC_PATCH:
        quoted = lambda: go_print(doc)  # noqa: E731 - built only when an error needs it
        problem = None if r.crd else conversion_problem(patched, r)
    else:
        rendered = json_patch_rendering(patched, doc) if patch_type == JSON_PATCH else \
            merge_rendering(patched, doc, original)
        quoted = lambda: go_compact(rendered)  # noqa: E731
        problem = custom_metadata_problem(rendered) if r.crd else decode_problem(rendered, r)
    if problem:
        raise invalid_patch(quoted(), problem)
    unknown = prune_object(r, patched)
    if not unknown or validation == "Ignore":
        return []
    if patch_type == STRATEGIC_PATCH:
        unknown = sorted(unknown)
    problems = [f'unknown field "{p}"' for p in unknown]
    if validation == "Strict":
        raise invalid_patch(quoted(), "strict decoding error: " + ", ".join(problems))
    return problems


# -- json and merge patches: the patched JSON ------------------------------------------------------


def go_compact(value) -> str:
    """encoding/json's compact form, with its HTML-safe escapes, keys in the given order."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in _GO_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def merge_rendering(patched: dict, patch: dict, original: dict) -> dict:
    """`patched` (merge patch `patch` applied to `original`, both in served order) with its keys
    in the order the merge-patch library marshals them: every level the patch merged into is a
    re-marshalled map (sorted), values the patch brought in whole are sorted throughout unless
    they replaced an object, the rest keeps the original's order."""
    out = {}
    for key in sorted(patched):
        value = patched[key]
        if key not in patch:
            out[key] = value
            continue
        change = patch[key]
        before = original.get(key) if isinstance(original, dict) else None
        if isinstance(before, dict) and isinstance(change, dict) and isinstance(value, dict):
            out[key] = merge_rendering(value, change, before)
        elif isinstance(before, dict):
            out[key] = value  # an object replaced by a non-object: the patch's bytes
        else:
            out[key] = _sorted_deep(value)
    return out


def json_patch_rendering(patched, ops: list) -> object:
    """`patched` with the containers the operations' paths walked through re-marshalled as maps
    (sorted keys); other values keep their order."""
    walked: set[tuple[str, ...]] = {()}
    for op in ops:
        if not isinstance(op, dict):
            continue
        for field in ("path", "from"):
            pointer = op.get(field)
            if isinstance(pointer, str) and pointer.startswith("/"):
                parts = tuple(p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/"))
                for end in range(len(parts)):
                    walked.add(parts[:end])
    return _sort_walked(patched, (), walked)


def _sort_walked(value, path: tuple[str, ...], walked: set) -> object:
    if path not in walked:
        return value
    if isinstance(value, dict):
        return {key: _sort_walked(value[key], path + (key,), walked) for key in sorted(value)}
    if isinstance(value, list):
        return [_sort_walked(item, path + (str(i),), walked) for i, item in enumerate(value)]
    return value


def _sorted_deep(value):
    if isinstance(value, dict):
        return {key: _sorted_deep(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_deep(item) for item in value]
    return value


def decode_problem(rendered: dict, r) -> str | None:
    """What decoding the patched JSON into the endpoint's Go type reports, or None. A changed
    kind decodes into that kind's type (when the group-version has it) and then fails to
    convert."""
    from kubelite import schema as schemas
    from kubelite.server import typecheck

    kind = rendered.get("kind")
    target = kind if isinstance(kind, str) and kind else r.kind
    schema = schemas.for_kind(r.api_version, target)
    if schema is not None:
        try:
            typecheck.check(rendered, schema)
        except typecheck.DecodeError as err:
            return str(err)
    if target != r.kind:
        from kubelite.server.core import _decode_kind_error

        return _decode_kind_error(r, target)
    return None


def custom_metadata_problem(rendered) -> str | None:
    """A custom resource decodes into unstructured data, but its metadata into an ObjectMeta
    (apiextensions' schema coercion): what encoding/json says when that fails, or None."""
    from kubelite import schema as schemas
    from kubelite.server import typecheck

    if not isinstance(rendered, dict) or rendered.get("metadata") is None:
        return None
    object_meta = schemas.for_kind("v1", "ConfigMap").field("metadata")  # any kind's ObjectMeta
    try:
        typecheck.check(rendered["metadata"], object_meta)
    except typecheck.DecodeError as err:
        return str(err)
    return None


# -- strategic merge patches: the converter and Go's %+v ------------------------------------------


def go_print(value) -> str:
    """fmt's `%+v` of a decoded JSON value (maps with sorted keys, slices in brackets)."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{go_print(value[key])}" for key in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_print(item) for item in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_v_float(value)
    return str(value)


def _go_v_float(value: float) -> str:
    """%v of a float64: shortest digits, exponent form below 1e-4 or from 1e21."""
    from kubelite.manifest._gonum import shortest_digits

    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    digits, point = shortest_digits(abs(value))
    sign = "-" if value < 0 else ""
    exponent = point - 1
    if exponent < -4 or exponent >= 21:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


class ConversionError(Exception):
    """The unstructured converter's message for a value it cannot copy into the Go type."""


def conversion_problem(patched: dict, r) -> str | None:
    """The first error DefaultUnstructuredConverter.FromUnstructured meets copying `patched`
    into the endpoint's Go type (struct fields in declaration order), or None."""
    from kubelite import schema as schemas
    from kubelite.schema import goorder

    schema = schemas.for_kind(r.api_version, r.kind)
    if schema is None:
        return None
    ordered = goorder.order(patched, r.api_version, r.kind)
    try:
        _convert(ordered, schema)
    except ConversionError as err:
        return str(err)
    return None


def _go_kind(value) -> str:
    """reflect.Kind of a decoded JSON value (kjson keeps integers as int64)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, dict):
        return "map"
    return "slice"


def _convert(value, schema) -> None:
    from kubelite.server import typecheck

    if value is None or schema is None:
        return
    name = schema.name or ""
    if name.endswith(".Quantity") or schema.int_or_string or name.endswith((".Time", ".MicroTime")) \
            or typecheck._format(schema) == "date-time":
        return _unmarshaler(value, schema)
    kind = schema.type
    if kind == ANY:
        return
    if kind == OBJECT and typecheck._is_struct(schema):
        if not isinstance(value, dict):
            raise ConversionError(f"cannot restore struct from: {_go_kind(value)}")
        for key, child in value.items():
            _convert(child, schema.field(key))
    elif kind in (MAP, OBJECT):
        if not isinstance(value, dict):
            raise ConversionError(f"cannot restore map from {_go_kind(value)}")
        for key in sorted(value):
            _convert(value[key], schema.field(key))
    elif kind == LIST:
        if not isinstance(value, list):
            raise ConversionError(f"cannot restore slice from {_go_kind(value)}")
        items = schema.items()
        for child in value:
            _convert(child, items)
    else:
        _primitive(value, typecheck.go_type(schema))


def _primitive(value, target: str) -> None:
    source = _go_kind(value)
    if target == "[]uint8":
        if isinstance(value, str):
            problem = _base64(value)
            if problem:
                raise ConversionError(f"error decoding from json: {problem}")
            return
        if not isinstance(value, list):
            raise ConversionError(f"cannot restore slice from {source}")
        return
    numeric = ("int32", "int64", "float32", "float64")
    if source == target or (source == "int64" and target in numeric):
        return
    if source == "float64" and target in numeric:
        if target.startswith("float") or value == int(value):
            return
        raise ConversionError(f"cannot convert float64 to {target}")
    if source == "int64" and target == "string":
        raise ConversionError("cannot convert int64 to string")  # Go converts ints to strings, JSON does not
    raise ConversionError(f"unrecognized type: {target}")


def _unmarshaler(value, schema) -> None:
    """Types with their own UnmarshalJSON receive the value re-marshalled to JSON."""
    from kubelite.server import typecheck

    name = schema.name or ""
    if name.endswith(".Quantity"):
        try:
            typecheck._quantity(value)
        except typecheck._Abort as err:
            raise ConversionError(str(err)) from None
    elif schema.int_or_string:
        if not isinstance(value, str):
            problem = typecheck._scalar_problem(value, "int32")
            if problem:
                raise ConversionError(f"json: cannot unmarshal {problem} into Go value of type int32")
    elif not isinstance(value, str):
        raise ConversionError(
            f"json: cannot unmarshal {typecheck._json_type(value)} into Go value of type string")


def _base64(text: str) -> str | None:
    from kubelite.server import typecheck

    return typecheck._base64_problem(text)
