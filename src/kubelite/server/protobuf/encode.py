"""The protobuf wire format, writing side: the bytes every message encoder is built from.

Values are appended to a bytearray in field-number order by the caller; proto3 rules
(scalars at their zero value are not written, except oneof members) are the caller's choice.
"""
from __future__ import annotations

import struct

from kubelite.server.protobuf.wire import BYTES, FIXED64, VARINT

_MASK64 = (1 << 64) - 1


def varint(value: int) -> bytes:
    """Base-128 varint; negative values travel as their 64-bit two's complement (10 bytes)."""
    value &= _MASK64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(number: int, wire_type: int) -> bytes:
    return varint((number << 3) | wire_type)


def put_varint(out: bytearray, number: int, value: int) -> None:
    out += key(number, VARINT)
    out += varint(value)


def put_bytes(out: bytearray, number: int, payload: bytes) -> None:
    out += key(number, BYTES)
    out += varint(len(payload))
    out += payload


def put_string(out: bytearray, number: int, text: str) -> None:
    put_bytes(out, number, text.encode())


def put_double(out: bytearray, number: int, value: float) -> None:
    out += key(number, FIXED64)
    out += struct.pack("<d", value)
