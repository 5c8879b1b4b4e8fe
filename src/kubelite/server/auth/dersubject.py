"""The subject names of a DER certificate, read without the `cryptography` package.

A served API's first request with a client certificate imported `cryptography.x509` (~50 ms,
and ~10 MB resident) to learn two things: the subject's CommonNames and Organizations. This
reads them from the DER bytes the TLS layer already verified. It knows the encodings client
certificates use (DER lengths, the UTF8, Printable, IA5, BMP and Universal string types); for
anything else it says so (None), and the caller asks `cryptography`, so that every certificate
still reads as it did.
"""
from __future__ import annotations

_COMMON_NAME = bytes((0x55, 0x04, 0x03))        # 2.5.4.3
_ORGANIZATION = bytes((0x55, 0x04, 0x0A))       # 2.5.4.10
_SEQUENCE, _SET, _OID, _VERSION = 0x30, 0x31, 0x06, 0xA0
_TEXT = {0x0C: "utf-8", 0x13: "ascii", 0x16: "ascii", 0x1E: "utf-16-be", 0x1C: "utf-32-be"}


class _Unknown(Exception):
    """Bytes this reader does not take on itself."""


def subject_names(der: bytes) -> tuple[list[str], list[str]] | None:
    """(CommonNames, Organizations) of the certificate's subject in their order; None when
    the bytes are not a certificate this reader knows how to read."""
    try:
        tag, start, end = _tlv(der, 0)
        if tag != _SEQUENCE or end != len(der):
            return None
        tbs = _children(der, start, end)[0]
        if tbs[0] != _SEQUENCE:
            return None
        fields = _children(der, tbs[1], tbs[2])
        if fields and fields[0][0] == _VERSION:
            fields = fields[1:]
        # serialNumber, signature, issuer, validity, subject
        if len(fields) < 5 or fields[4][0] != _SEQUENCE:
            return None
        return _names(der, fields[4])
    except (_Unknown, IndexError, ValueError):  # (UnicodeDecodeError is a ValueError)
        return None


def _names(der: bytes, subject: tuple[int, int, int]) -> tuple[list[str], list[str]]:
    common_names: list[str] = []
    organizations: list[str] = []
    for rdn_tag, rdn_start, rdn_end in _children(der, subject[1], subject[2]):
        if rdn_tag != _SET:
            raise _Unknown
        for tag, start, end in _children(der, rdn_start, rdn_end):
            if tag != _SEQUENCE:
                raise _Unknown
            oid, value = _children(der, start, end)
            if oid[0] != _OID:
                raise _Unknown
            kind = der[oid[1]:oid[2]]
            if kind == _COMMON_NAME:
                common_names.append(_text(der, value))
            elif kind == _ORGANIZATION:
                organizations.append(_text(der, value))
    return common_names, organizations


def _text(der: bytes, value: tuple[int, int, int]) -> str:
    encoding = _TEXT.get(value[0])
    if encoding is None:
        raise _Unknown
    return der[value[1]:value[2]].decode(encoding)


def _children(der: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    """The (tag, content start, content end) of each element between start and end."""
    out = []
    while start < end:
        element = _tlv(der, start)
        if element[2] > end:
            raise _Unknown
        out.append(element)
        start = element[2]
    return out


def _tlv(der: bytes, pos: int) -> tuple[int, int, int]:
    tag = der[pos]
    if tag & 0x1F == 0x1F:
        raise _Unknown  # a tag number past 30: nothing in a certificate's subject
    length = der[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if not 0 < count <= 4:
            raise _Unknown  # BER's indefinite length, or absurd
        length = int.from_bytes(der[pos:pos + count], "big")
        pos += count
    if pos + length > len(der):
        raise _Unknown
    return tag, pos, pos + length
