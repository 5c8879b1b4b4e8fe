"""The envelope Kubernetes wraps protobuf objects in: a 4-byte magic then a runtime.Unknown."""
from __future__ import annotations

from dataclasses import dataclass

from kubelite.server.protobuf.wire import BYTES, ProtobufError, iter_fields

MAGIC = b"k8s\x00"
MEDIA_TYPE = "application/vnd.kubernetes.protobuf"


@dataclass(frozen=True)
class Envelope:
    api_version: str
    kind: str
    raw: bytes
    content_encoding: str
    content_type: str


def has_magic(body: bytes) -> bool:
    return body[:4] == MAGIC


def parse_envelope(body: bytes) -> Envelope:
    """Split a protobuf request body into its type and the encoded object."""
    if not has_magic(body):
        raise ProtobufError("provided data does not appear to be a protobuf message, expected prefix "
                            + repr(MAGIC))
    api_version = kind = content_encoding = content_type = ""
    raw = b""
    for number, wire_type, value in iter_fields(body[4:]):
        if wire_type != BYTES:
            continue  # every Unknown field is length-delimited; others are not ours to read
        if number == 1:
            api_version, kind = _type_meta(value)
        elif number == 2:
            raw = bytes(value)
        elif number == 3:
            content_encoding = _text(value, "contentEncoding")
        elif number == 4:
            content_type = _text(value, "contentType")
    return Envelope(api_version, kind, raw, content_encoding, content_type)


def _type_meta(data: bytes) -> tuple[str, str]:
    api_version = kind = ""
    for number, wire_type, value in iter_fields(data):
        if wire_type == BYTES and number == 1:
            api_version = _text(value, "typeMeta.apiVersion")
        elif wire_type == BYTES and number == 2:
            kind = _text(value, "typeMeta.kind")
    return api_version, kind


def _text(value: bytes, field: str) -> str:
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise ProtobufError(f"{field}: invalid UTF-8") from None
