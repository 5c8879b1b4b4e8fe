"""Decoding request bodies the way kube-apiserver's strict/lenient decoders do.

Unknown fields (per the kind's OpenAPI schema) and duplicate keys are dropped and reported:
as warnings (fieldValidation=Warn, the default), as a 400 (Strict), or silently (Ignore).
"""
from __future__ import annotations

import json
import re
import threading

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


def _tracking(found: list):
    """The decoder's hook: an object with a key given twice is an _Obj (also put in `found`), any
    other a plain dict, made in C (nearly every object of nearly every body)."""
    def pairs(items):
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        obj = _pairs(items)
        found.append(obj)
        return obj
    return pairs


def loads_tracking(data: bytes, found: list | None = None):
    """A JSON body as Go decodes it, objects remembering duplicated keys (JSONBodyError if not
    JSON); those objects are also put in `found`."""
    from kubelite.server.handlers import jsonbody

    return jsonbody.loads(data, object_pairs_hook=_tracking([] if found is None else found))


def decode_object(body: bytes, content_type: str, r) -> tuple[dict, list[str], list[str]]:
    """(object, unknown-field paths, duplicate-field paths)."""
    if content_type == PROTOBUF:
        value = _protobuf_object(body, r)
        return value, prune_object(r, value), []
    found: list = []  # the objects with a key given twice
    if content_type in ("application/yaml", "application/apply-patch+yaml"):
        value = _yaml_value(body, r, found)
    else:
        value = _json_value(body, r, found)
    if not isinstance(value, dict):
        raise errors.bad_request(
            f"the object provided is unrecognized (must be of type {r.kind}): couldn't get version/kind; "
            "json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion "
            "string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }")
    looked_up: list = []
    check_types(value, r, looked_up)
    duplicates = _duplicates(value, "") if found else []
    unknown = prune_object(r, value, looked_up)
    _check_numbers(body, value, r)
    value = _plain(value) if found else value
    _JUST_DECODED.value = value
    return value, unknown, duplicates


# The object decode_object last returned on each thread: made for its caller alone.
_JUST_DECODED = threading.local()


def claim(value) -> bool:
    """Whether `value` is the object decode_object has just returned on this thread, not claimed
    yet: the one claim may change it where it is rather than copy it (a create's body)."""
    if getattr(_JUST_DECODED, "value", None) is value:
        _JUST_DECODED.value = None
        return True
    return False


def _json_value(body: bytes, r, found: list):
    from kubelite.server.handlers.jsonbody import JSONBodyError

    try:
        return loads_tracking(body, found)
    except JSONBodyError as err:
        raise unrecognized(r, f"couldn't get version/kind; json parse error: {err}", body) from None


def _yaml_value(body: bytes, r, found: list):
    """A YAML body through go-yaml's rules (aliases bounded, tags checked), then as JSON."""
    from kubelite.manifest._goyaml import DecodeError, decode_yaml
    from kubelite.server.handlers.jsonbody import JSONBodyError

    try:
        value = decode_yaml(body.decode("utf-8", "kubelite-go-replace"))
    except DecodeError as err:
        raise unrecognized(r, err.message, body) from None
    try:
        # The JSON round trip gives the same number types and duplicate tracking as a JSON body.
        return loads_tracking(json.dumps(value, ensure_ascii=False, allow_nan=False).encode(), found)
    except (ValueError, RecursionError, JSONBodyError):
        raise unrecognized(r, "error converting YAML to JSON: yaml: exceeded max depth", body) from None


def unrecognized(r, detail: str, body: bytes) -> errors.StatusError:
    """kube-apiserver's 400 for a body its decoder could not read, with its summary of the body."""
    return errors.bad_request(
        f"the object provided is unrecognized (must be of type {r.kind}): {detail} ({summarize(body)})")


def summarize(data: bytes, limit: int = 30) -> str:
    """How kube-apiserver quotes a body in a decode error: JSON objects as text, the rest in hex."""
    if not data:
        return "<empty>"
    head = data[:limit]
    more = " ..." if len(data) > limit else ""
    if data[:1] == b"{":
        return head.decode("utf-8", "replace") + more
    return head.hex() + more


def _check_numbers(body: bytes, value: dict, r) -> None:
    """A number beyond float64 that survived pruning cannot be converted: 400 as Go's decoder."""
    from kubelite.server.handlers import jsonbody

    if not jsonbody.has_huge_number(body):
        return
    text = jsonbody.find_huge_number(value)
    if text is not None:
        raise errors.bad_request(f'{r.kind} in version "{r.version}" cannot be handled as a {r.kind}: '
                                 f"json: cannot unmarshal number {text} into Go value of type float64")


PROTOBUF = "application/vnd.kubernetes.protobuf"


def check_types(value: dict, r, looked_up: list | None = None) -> None:
    """A 400 with Go's unmarshal message if a built-in object has a wrongly typed field
    (`looked_up`: as typecheck.problem's)."""
    from kubelite.server import typecheck

    message = typecheck.problem(value, r, looked_up)
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
    if isinstance(value, dict):
        for key in getattr(value, "duplicates", ()):
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


_GO_INT = re.compile(r"[+-]?[0-9]+")
_INT64_LIMIT = 1 << 63


def parse_int64(text: str) -> int:
    """A query parameter as Go's strconv.ParseInt(text, 10, 64) reads it; a 400 with its error."""
    if not _GO_INT.fullmatch(text):
        raise errors.bad_request(f'strconv.ParseInt: parsing {go_quote(text)}: invalid syntax')
    value = int(text)
    if not -_INT64_LIMIT <= value < _INT64_LIMIT:
        raise errors.bad_request(f'strconv.ParseInt: parsing {go_quote(text)}: value out of range')
    return value


def go_quote(text: str) -> str:
    """Go's %q of a string (strconv.Quote)."""
    from kubelite.server.admission.field import go_quote as quote

    return quote(text)


# The DeleteOptions fields the server reads, with the Go type named in a decode error.
_DELETE_FIELDS = {"propagationPolicy": ("string", "v1.DeletionPropagation"),
                  "gracePeriodSeconds": ("int", "int64"),
                  "preconditions": ("object", "v1.Preconditions"),
                  "dryRun": ("array", "[]string")}


def delete_options_body(data: bytes) -> dict:
    """A DELETE request's DeleteOptions body (empty: {}); a 400 with Go's words if unreadable."""
    from kubelite.schema.gojson import json_kind
    from kubelite.server.handlers import jsonbody

    if not data.strip():
        return {}
    try:
        # typed clients (kubectl's RBAC client, controllers) send DeleteOptions as protobuf
        body = _protobuf_delete_options(data) if data.startswith(b"k8s\x00") else jsonbody.loads(data)
    except jsonbody.JSONBodyError as err:
        raise errors.bad_request(str(err)) from None
    if not isinstance(body, dict):
        raise errors.bad_request(f"json: cannot unmarshal {json_kind(body)} into Go value of type "
                                 "v1.DeleteOptions")
    for name, (kind, go_type) in _DELETE_FIELDS.items():
        value = body.get(name)
        if value is None:
            continue
        ok = {"string": isinstance(value, str), "object": isinstance(value, dict),
              "array": isinstance(value, list) and all(isinstance(v, str) for v in value),
              "int": isinstance(value, int) and not isinstance(value, bool)}[kind]
        if not ok:
            raise errors.bad_request(f"json: cannot unmarshal {json_kind(value)} into Go struct field "
                                     f"DeleteOptions.{name} of type {go_type}")
    return _plain(body)


def _protobuf_delete_options(data: bytes) -> dict:
    from kubelite.server import protobuf

    from kubelite.server.protobuf.decode import decode_message

    try:
        # every group version registers DeleteOptions: the envelope names the resource's group
        envelope = protobuf.parse_envelope(data)
        if envelope.kind != "DeleteOptions":
            raise protobuf.ProtobufError(f'no kind "{envelope.kind}" is registered for version '
                                         f'"{envelope.api_version}"')
        return decode_message(protobuf.message_name("meta.k8s.io/v1", "DeleteOptions"), envelope.raw)
    except protobuf.ProtobufError as err:
        raise errors.bad_request(f"the object provided is unrecognized (must be of type DeleteOptions): {err}") \
            from None
