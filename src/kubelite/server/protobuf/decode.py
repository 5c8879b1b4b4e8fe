"""Kubernetes protobuf objects -> the JSON dicts the same objects would be as JSON.

The field table (data/proto_fields.json, see tools/gen_proto_fields.py) gives each message's
fields in Go declaration order with their JSON names and Go markers. Scalars that Go writes
even when zero are kept or dropped as encoding/json would drop them (omitempty, not pointer);
inline fields are merged into their parent; apimachinery's types with their own JSON form
(Time, MicroTime, Duration, Quantity, IntOrString, RawExtension, FieldsV1, string-list
wrappers) become that form.
"""
from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from functools import lru_cache

from kubelite.server.protobuf import wire
from kubelite.server.protobuf.envelope import Envelope, has_magic, parse_envelope
from kubelite.server.protobuf.wire import BYTES, FIXED32, FIXED64, VARINT, ProtobufError

_LENGTH_TYPES = ("string", "bytes")
_FIXED64_TYPES = ("fixed64", "sfixed64", "double")
_FIXED32_TYPES = ("fixed32", "sfixed32", "float")
_VARINT_TYPES = ("bool", "int32", "int64", "uint32", "uint64", "sint32", "sint64")
_SCALARS = _LENGTH_TYPES + _FIXED64_TYPES + _FIXED32_TYPES + _VARINT_TYPES
_ZERO = {"string": "", "bytes": "", "bool": False}
_MAX_NESTED_OBJECTS = 16  # RawExtensions holding enveloped objects holding RawExtensions...


@dataclass(frozen=True)
class ProtoTable:
    messages: dict  # name -> list of (number, json name, type, flags) in Go order
    by_number: dict  # name -> {number: field}
    special: dict  # name -> special JSON form
    groups: dict  # "group/version" (or "v1") -> proto package


@lru_cache(maxsize=1)
def table() -> ProtoTable:
    """The shipped field table, read once and never mutated."""
    from importlib import resources

    raw = json.loads((resources.files("kubelite.server") / "data" / "proto_fields.json").read_bytes())
    messages = {name: [tuple(f) for f in fields] for name, fields in raw["messages"].items()}
    by_number = {name: {f[0]: f for f in fields} for name, fields in messages.items()}
    return ProtoTable(messages, by_number, raw["special"], raw["groups"])


def message_name(api_version: str, kind: str, protos: ProtoTable | None = None) -> str | None:
    """The protobuf message of a built-in kind, or None when there is none."""
    protos = protos or table()
    package = protos.groups.get(api_version)
    if package is None or not kind:
        return None
    name = f"{package}.{kind}"
    return name if name in protos.messages else None


def decode_body(body: bytes, protos: ProtoTable | None = None) -> dict:
    """A whole `k8s\\x00`-enveloped object as its JSON dict (kind and apiVersion first)."""
    return _decode_envelope(parse_envelope(body), protos or table(), 0)


def decode_message(name: str, data: bytes, protos: ProtoTable | None = None, path: str = "") -> dict:
    return _Decoder(protos or table(), 0).message(name, data, path)


def _decode_envelope(envelope: Envelope, protos: ProtoTable, depth: int) -> dict:
    if envelope.content_encoding:
        raise ProtobufError(f"unsupported contentEncoding {envelope.content_encoding!r}")
    if not envelope.kind:
        raise ProtobufError("object has no kind in its protobuf envelope")
    name = message_name(envelope.api_version, envelope.kind, protos)
    if name is None:
        raise ProtobufError(f'no kind "{envelope.kind}" is registered for version '
                            f'"{envelope.api_version}"')
    body = _Decoder(protos, depth).message(name, envelope.raw, "")
    return {"kind": envelope.kind, "apiVersion": envelope.api_version, **body}


class _Decoder:
    def __init__(self, protos: ProtoTable, depth: int):
        self.protos = protos
        self.depth = depth

    def message(self, name: str, data: bytes, path: str):
        special = self.protos.special.get(name)
        if special is not None:
            return self.special(special, name, data, path)
        index = self.protos.by_number[name]
        seen: dict[int, list] = {}
        for number, wire_type, raw in _fields(data, path):
            if number in index:
                seen.setdefault(number, []).append((wire_type, raw))
        out: dict = {}
        for field in self.protos.messages[name]:
            number, json_name, ftype, flags = field
            field_path = f"{path}.{json_name}" if path and json_name else (json_name or path)
            values = seen.get(number)
            if values is not None:
                value = self.field(field, values, field_path)
            elif ftype not in _SCALARS and not any(f in flags for f in "prm"):
                value = self.message(ftype, b"", field_path)  # Go's zero struct still has a JSON form
            else:
                absent = _absent(ftype, flags)
                if absent is not _SKIP:
                    out[json_name] = absent
                continue
            if "i" in flags:
                if isinstance(value, dict):
                    out.update(value)
            elif not _omitted(value, ftype, flags):
                out[json_name] = value
        return out

    def field(self, field: tuple, values: list, path: str):
        _, _, ftype, flags = field
        if "m" in flags:
            entries = {}
            for i, (wire_type, raw) in enumerate(values):
                _expect(wire_type, BYTES, f"{path}[{i}]")
                key, value = self.map_entry(ftype, raw, path)
                entries[key] = value
            return {k: entries[k] for k in sorted(entries)}
        if "r" in flags:
            items = []
            for i, (wire_type, raw) in enumerate(values):
                if ftype in _SCALARS and ftype not in _LENGTH_TYPES and wire_type == BYTES:
                    packed = FIXED64 if ftype in _FIXED64_TYPES else FIXED32 if ftype in _FIXED32_TYPES else VARINT
                    items.extend(_scalar(ftype, v, f"{path}[{i}]") for v in wire.iter_packed(raw, packed))
                else:
                    items.append(self.single(ftype, wire_type, raw, f"{path}[{len(items)}]"))
            return items
        if ftype not in _SCALARS:
            # Repeated occurrences of one embedded message merge, as if concatenated.
            for wire_type, _ in values:
                _expect(wire_type, BYTES, path)
            return self.message(ftype, b"".join(raw for _, raw in values), path)
        wire_type, raw = values[-1]  # the last scalar wins
        return self.single(ftype, wire_type, raw, path)

    def single(self, ftype: str, wire_type: int, raw, path: str):
        if ftype in _SCALARS:
            _expect(wire_type, _wire_type(ftype), path)
            return _scalar(ftype, raw, path)
        _expect(wire_type, BYTES, path)
        return self.message(ftype, raw, path)

    def map_entry(self, ftype: str, data: bytes, path: str):
        key = ""
        value_raw = None
        for number, wire_type, raw in _fields(data, path):
            if number == 1:
                _expect(wire_type, BYTES, f"{path} key")
                key = _scalar("string", raw, f"{path} key")
            elif number == 2:
                value_raw = (wire_type, raw)
        entry_path = f"{path}[{key}]"
        if value_raw is None:
            if ftype in _SCALARS:
                return key, _ZERO.get(ftype, 0)
            return key, self.message(ftype, b"", entry_path)
        return key, self.single(ftype, value_raw[0], value_raw[1], entry_path)

    def special(self, kind: str, name: str, data: bytes, path: str):
        values: dict[int, list] = {}
        for number, wire_type, raw in _fields(data, path):
            values.setdefault(number, []).append((wire_type, raw))
        if kind in ("time", "microtime"):
            if not data:
                return None  # Go's zero time, written as JSON null
            seconds = _int_field(values, 1, "int64", path)
            nanos = _int_field(values, 2, "int32", path) if kind == "microtime" else 0
            return _format_time(seconds, nanos // 1000 if kind == "microtime" else None, path)
        if kind == "duration":
            return go_duration(_int_field(values, 1, "int64", path))
        if kind == "quantity":
            text = _str_field(values, 1, path)
            return text if text else "0"
        if kind == "intorstring":
            if _int_field(values, 1, "int64", path) == 1:
                return _str_field(values, 3, path)
            return _int_field(values, 2, "int32", path)
        if kind in ("raw", "fieldsv1"):
            wire_type, raw = values.get(1, [(BYTES, b"")])[-1]
            _expect(wire_type, BYTES, path)
            return self.embedded(raw, path)
        if kind == "items":
            items = []
            for wire_type, raw in values.get(1, []):
                _expect(wire_type, BYTES, path)
                items.append(_scalar("string", raw, f"{path}[{len(items)}]"))
            return items
        raise ProtobufError(f"{path}: no decoding for {name}")

    def embedded(self, raw: bytes, path: str):
        """A RawExtension's bytes: JSON as kubectl sends them, or a nested enveloped object."""
        if not raw:
            return None
        if has_magic(raw):
            if self.depth >= _MAX_NESTED_OBJECTS:
                raise ProtobufError(f"{path}: objects nested too deeply")
            return _decode_envelope(parse_envelope(raw), self.protos, self.depth + 1)
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise ProtobufError(f"{path}: embedded object is neither JSON nor protobuf") from None


class _Skip:
    pass


_SKIP = _Skip()


def _absent(ftype: str, flags: str):
    """What the JSON form holds for a scalar, list or map missing from the wire (_SKIP: nothing)."""
    if "o" in flags or "p" in flags:
        return _SKIP
    if "r" in flags or "m" in flags:
        return None  # a nil slice/map without omitempty is written as null
    return _ZERO.get(ftype, 0)


def _omitted(value, ftype: str, flags: str) -> bool:
    """encoding/json's omitempty: zero scalars and empty lists/maps, never structs or pointers."""
    if "o" not in flags or "p" in flags:
        return False
    if "r" in flags or "m" in flags:
        return not value
    return ftype in _SCALARS and value == _ZERO.get(ftype, 0)


def _fields(data: bytes, path: str):
    try:
        yield from wire.iter_fields(data)
    except ProtobufError as err:
        if getattr(err, "located", False):
            raise
        located = ProtobufError(f"{path}: {err}" if path else str(err))
        located.located = True
        raise located from None


def _wire_type(ftype: str) -> int:
    if ftype in _LENGTH_TYPES:
        return BYTES
    if ftype in _FIXED64_TYPES:
        return FIXED64
    if ftype in _FIXED32_TYPES:
        return FIXED32
    return VARINT


def _expect(actual: int, wanted: int, path: str) -> None:
    if actual != wanted:
        raise ProtobufError(f"{path or 'object'}: wire type {actual}, expected {wanted}")


def _scalar(ftype: str, raw, path: str):
    if ftype == "string":
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise ProtobufError(f"{path}: invalid UTF-8 in a string field") from None
    if ftype == "bytes":
        return base64.b64encode(bytes(raw)).decode("ascii")
    if ftype == "bool":
        return raw != 0
    if ftype in ("int32", "sfixed32"):
        return wire.signed(raw, 32)
    if ftype in ("int64", "sfixed64"):
        return wire.signed(raw, 64)
    if ftype == "uint32":
        return raw & 0xFFFFFFFF
    if ftype in ("sint32", "sint64"):
        return wire.zigzag(raw)
    if ftype in ("double", "float"):
        number = wire.double(raw) if ftype == "double" else wire.single(raw)
        # encoding/json writes integral floats without a fraction; json.loads reads those as int.
        return int(number) if number.is_integer() else number
    return raw  # uint64, fixed32, fixed64


def _int_field(values: dict, number: int, ftype: str, path: str) -> int:
    if number not in values:
        return 0
    wire_type, raw = values[number][-1]
    _expect(wire_type, VARINT, path)
    return _scalar(ftype, raw, path)


def _str_field(values: dict, number: int, path: str) -> str:
    if number not in values:
        return ""
    wire_type, raw = values[number][-1]
    _expect(wire_type, BYTES, path)
    return _scalar("string", raw, path)


def _format_time(seconds: int, micros: int | None, path: str) -> str:
    """RFC 3339 in UTC, whole seconds for Time, six fraction digits for MicroTime."""
    import datetime

    try:
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
    except OverflowError:
        raise ProtobufError(f"{path}: time out of range ({seconds} s)") from None
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.year < 1000:
        text = f"{moment.year:04d}" + text[text.index("-"):]
    if micros is not None:
        text += f".{micros:06d}"
    return text + "Z"


def go_duration(nanoseconds: int) -> str:
    """Go's time.Duration.String(): 1h2m3.5s, 1.5ms, 500ns, 0s."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    value = abs(nanoseconds)
    if value < 1_000_000_000:
        if value < 1_000:
            return f"{sign}{value}ns"
        if value < 1_000_000:
            return f"{sign}{_decimal(value, 1_000)}µs"
        return f"{sign}{_decimal(value, 1_000_000)}ms"
    seconds, fraction = divmod(value, 1_000_000_000)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    text = _decimal(seconds * 1_000_000_000 + fraction, 1_000_000_000) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    if minutes:
        return f"{sign}{minutes}m{text}"
    return sign + text


def _decimal(value: int, scale: int) -> str:
    whole, fraction = divmod(value, scale)
    if not fraction:
        return str(whole)
    digits = str(fraction).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"
