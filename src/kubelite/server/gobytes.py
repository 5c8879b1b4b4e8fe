"""[]byte fields (OpenAPI `format: byte`) as kube-apiserver stores and serves them.

A built-in object is decoded into Go structs, where a `[]byte` field holds the bytes its base64
text decoded to; every answer and the stored copy encode those bytes again with the standard
padded alphabet. So the text a client sent is not kept: line breaks (which Go's decoder skips, a
YAML `|` block leaves them) disappear, and non-canonical trailing bits (`YR==`) come back
canonical (`YQ==`). Custom resources are unstructured and keep their text.

Which fields are bytes is read from the kind's schema once per kind (Secret `data`, ConfigMap
`binaryData`, CertificateSigningRequest `request` and `status.certificate`, webhook `caBundle`s).
"""
from __future__ import annotations

import base64
import binascii
import functools

_MAP = "*"  # a step into every value of a map
_LIST = "[]"  # a step into every item of a list
_LINE_BREAKS = str.maketrans("", "", "\r\n")


def decode(text: str) -> bytes | None:
    """The bytes Go's base64.StdEncoding reads from `text` (it skips CR and LF), or None."""
    try:
        return base64.b64decode(text.translate(_LINE_BREAKS).encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return None


def canonical(obj: dict, r) -> dict:
    """`obj` with each []byte field re-encoded as Go would encode it (in place; returned)."""
    if getattr(r, "crd", None):
        return obj
    for path in byte_paths(r.api_version, r.kind):
        _rewrite(obj, path)
    return obj


def has_bytes(r) -> bool:
    """Whether `canonical` may change an object of this resource."""
    return not getattr(r, "crd", None) and bool(byte_paths(r.api_version, r.kind))


@functools.lru_cache(maxsize=None)
def byte_paths(api_version: str, kind: str) -> tuple[tuple[str, ...], ...]:
    """The paths of a built-in kind's []byte fields; map values and list items as steps
    `*` and `[]`."""
    from kubelite import schema as schemas

    schema = schemas.for_kind(api_version, kind)
    return tuple(_paths(schema, frozenset())) if schema is not None else ()


def _paths(schema, enclosing: frozenset):
    from kubelite.schema.model import LIST, MAP, OBJECT
    from kubelite.server.typecheck import go_type

    if schema is None or schema.int_or_string:
        return
    name = schema.name or ""
    if name and name in enclosing:  # a recursive type (JSONSchemaProps) holds no bytes here
        return
    inner = enclosing | {name} if name else enclosing
    if schema.type == OBJECT and schema.properties:
        for prop in schema.properties:
            for rest in _paths(schema.field(prop), inner):
                yield (prop, *rest)
    elif schema.type in (MAP, OBJECT):
        for rest in _paths(schema.field(_MAP), inner):
            yield (_MAP, *rest)
    elif schema.type == LIST:
        for rest in _paths(schema.items(), inner):
            yield (_LIST, *rest)
    elif go_type(schema) == "[]uint8":
        yield ()


def _rewrite(value, path: tuple[str, ...]) -> None:
    """Re-encode the strings at `path` below `value` (a container: the last step names the
    string's key or index)."""
    step, rest = path[0], path[1:]
    if step == _MAP:
        keys = list(value) if isinstance(value, dict) else ()
    elif step == _LIST:
        keys = range(len(value)) if isinstance(value, list) else ()
    else:
        keys = (step,) if isinstance(value, dict) and step in value else ()
    for key in keys:
        child = value[key]
        if rest:
            _rewrite(child, rest)
        elif isinstance(child, str):
            data = decode(child)
            if data is not None:
                value[key] = base64.b64encode(data).decode("ascii")
