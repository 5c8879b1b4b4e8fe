"""The protobuf wire format: the bytes-level reading every message decode rests on."""
from __future__ import annotations

import struct
from typing import Iterator

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5
_MASK64 = (1 << 64) - 1


class ProtobufError(ValueError):
    """Malformed protobuf input; the message names where it went wrong."""


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """(unsigned value, next position) of the base-128 varint at pos."""
    result = 0
    shift = 0
    end = len(data)
    while True:
        if pos >= end:
            raise ProtobufError("unexpected end of data inside a varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result & _MASK64, pos
        shift += 7
        if shift >= 70:
            raise ProtobufError("varint longer than 10 bytes")


def iter_fields(data: bytes) -> Iterator[tuple[int, int, object]]:
    """(field number, wire type, raw value) per field: an int for varint/fixed, bytes otherwise."""
    pos = 0
    end = len(data)
    while pos < end:
        key, pos = read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise ProtobufError("field number 0 is not allowed")
        if wire_type == VARINT:
            value, pos = read_varint(data, pos)
        elif wire_type == BYTES:
            length, pos = read_varint(data, pos)
            if pos + length > end:
                raise ProtobufError(f"field {number}: length {length} runs past the end of the data")
            value = data[pos:pos + length]
            pos += length
        elif wire_type == FIXED64:
            if pos + 8 > end:
                raise ProtobufError(f"field {number}: unexpected end of data in a fixed64")
            value = int.from_bytes(data[pos:pos + 8], "little")
            pos += 8
        elif wire_type == FIXED32:
            if pos + 4 > end:
                raise ProtobufError(f"field {number}: unexpected end of data in a fixed32")
            value = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        else:
            raise ProtobufError(f"field {number}: unsupported wire type {wire_type}")
        yield number, wire_type, value


def iter_packed(data: bytes, wire_type: int) -> Iterator[int]:
    """The raw values of a packed repeated scalar field."""
    pos = 0
    end = len(data)
    width = {FIXED64: 8, FIXED32: 4}.get(wire_type)
    while pos < end:
        if width is None:
            value, pos = read_varint(data, pos)
        else:
            if pos + width > end:
                raise ProtobufError("unexpected end of data in a packed fixed-width field")
            value = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        yield value


def signed(value: int, bits: int) -> int:
    """Two's-complement reading of an unsigned value (int32s travel sign-extended to 64 bits)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def zigzag(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def double(value: int) -> float:
    return struct.unpack("<d", value.to_bytes(8, "little"))[0]


def single(value: int) -> float:
    return struct.unpack("<f", value.to_bytes(4, "little"))[0]
