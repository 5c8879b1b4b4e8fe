"""Decoding request bodies the way kube-apiserver's strict/lenient decoders do.

Unknown fields (per the kind's OpenAPI schema) and duplicate keys are dropped and reported:
as warnings (fieldValidation=Warn, the default), as a 400 (Strict), or silently (Ignore).
"""
from __future__ import annotations

import json

from kubelite.server import errors
from kubelite.server.pruning import prune_object

FIELD_VALIDATION = ("", "Ignore", "Strict", "Warn")


class _Obj(dict):
    """A decoded JSON object that remembers its duplicated keys."""

    __slots__ = ("duplicates",)


def _pairs(pairs):
    obj = _Obj()
    obj.duplicates = []
    for key, value in pairs:
        if key in obj and key not in obj.duplicates:
            obj.duplicates.append(key)
        obj[key] = value  # last one wins, as Go's decoder
    return obj


def loads_tracking(data: bytes):
    from kubelite.server.typecheck import FloatLiteral

    return json.loads(data, object_pairs_hook=_pairs, parse_float=FloatLiteral)


def decode_object(body: bytes, content_type: str, r) -> tuple[dict, list[str], list[str]]:
    """(object, unknown-field paths, duplicate-field paths)."""
    if content_type == PROTOBUF:
        value = _protobuf_object(body, r)
        return value, prune_object(r, value), []
    if content_type in ("application/yaml", "application/apply-patch+yaml"):
        import yaml

        try:
            value = yaml.load(body, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as err:
            raise errors.bad_request(f"error converting YAML to JSON: {err}") from None
        value = json.loads(json.dumps(value, default=str), object_pairs_hook=_pairs)
    else:
        if not body.strip():
            raise errors.bad_request(
                f"the object provided is unrecognized (must be of type {r.kind}): couldn't get "
                "version/kind; json parse error: unexpected end of JSON input (\u003cempty\u003e)")
        try:
            value = loads_tracking(body)
        except (ValueError, UnicodeDecodeError):
            snippet = body[:30].decode("utf-8", "replace")
            raise errors.bad_request(
                f"the object provided is unrecognized (must be of type {r.kind}): couldn't get "
                f"version/kind; json parse error: unexpected end of JSON input ({snippet} ...)") from None
    if not isinstance(value, dict):
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {r.kind}): couldn't get version/kind; "
            "json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion "
            "string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }")
    check_types(value, r)
    duplicates = _duplicates(value, "")
    unknown = prune_object(r, value)
    return _plain(value), unknown, duplicates


PROTOBUF = "application/vnd.kubernetes.protobuf"


def check_types(value: dict, r) -> None:
    """A 400 with Go's unmarshal message if a built-in object has a wrongly typed field."""
    from kubelite.server import typecheck

    message = typecheck.problem(value, r)
    if message:
        raise errors.bad_request(f"{r.kind} in version \"{r.version}\" cannot be handled as a {r.kind}: {message}")


def _protobuf_object(body: bytes, r) -> dict:
    """A protobuf body as the dict its JSON form would decode to (built-in kinds only)."""
    from kubelite.server import protobuf

    try:
        return protobuf.decode_body(body)
    except protobuf.ProtobufError as err:
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {r.kind}): {err}") from None


def field_problems(unknown: list[str], duplicates: list[str]) -> list[str]:
    return [f'duplicate field "{p}"' for p in duplicates] + [f'unknown field "{p}"' for p in unknown]


def enforce(validation: str, r, problems: list[str]) -> list[str]:
    """Warnings to send, or a 400 under Strict."""
    if not problems or validation == "Ignore":
        return []
    if validation == "Strict":
        raise errors.bad_request(
            f"{r.kind} in version \"{r.version}\" cannot be handled as a {r.kind}: strict decoding error: "
            + ", ".join(problems))
    return problems


def check_field_validation(value: str | None, options_kind: str) -> str:
    value = value or ""
    if value not in FIELD_VALIDATION:
        message = (f'Unsupported value: "{value}": supported values: "", "Ignore", "Strict", "Warn"')
        raise errors.StatusError(
            422, "Invalid", f'{options_kind}.meta.k8s.io "" is invalid: fieldValidation: {message}',
            group="meta.k8s.io", kind=options_kind,
            causes=[{"reason": "FieldValueNotSupported", "message": message, "field": "fieldValidation"}])
    return value or "Warn"


def check_field_manager(value: str, options_kind: str) -> str:
    if len(value.encode()) > 128:
        message = "Too long: may not be more than 128 bytes"
        raise errors.StatusError(
            422, "Invalid", f'{options_kind}.meta.k8s.io "" is invalid: fieldManager: {message}',
            group="meta.k8s.io", kind=options_kind,
            causes=[{"reason": "FieldValueTooLong", "message": message, "field": "fieldManager"}])
    return value


def check_dry_run(values: list[str], options_kind: str) -> bool:
    if not values:
        return False
    if all(v == "All" for v in values):
        return True
    quoted = ", ".join(json.dumps(v) for v in values)
    message = f'Unsupported value: []string{{{quoted}}}: supported values: "All"'
    raise errors.StatusError(
        422, "Invalid", f'{options_kind}.meta.k8s.io "" is invalid: dryRun: {message}',
        group="meta.k8s.io", kind=options_kind,
        causes=[{"reason": "FieldValueNotSupported", "message": message, "field": "dryRun"}])


def _duplicates(value, path: str) -> list[str]:
    found: list[str] = []
    if isinstance(value, _Obj):
        for key in value.duplicates:
            found.append(f"{path}.{key}" if path else key)
        for key, child in value.items():
            found.extend(_duplicates(child, f"{path}.{key}" if path else key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found.extend(_duplicates(child, f"{path}[{i}]"))
    return found


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
