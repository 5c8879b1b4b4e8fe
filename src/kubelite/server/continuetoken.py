"""List continue tokens in kube-apiserver's format and with its error wording.

A token is unpadded URL-safe base64 of {"v": "meta.k8s.io/v1", "rv": <revision>, "start": <key>}
where <key> is the object key relative to the list's prefix followed by a NUL (the first key the
next page may hold). It records where to resume and at which revision; the selectors are the
request's own, so a token reused with another selector pages through that selector's matches.
"""
from __future__ import annotations

import json
import posixpath

from kubelite.schema.gojson import json_kind
from kubelite.server.errors import bad_request

VERSION = "meta.k8s.io/v1"
_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_INVALID = "continue key is not valid"


def encode(revision: int, start_after: str) -> str:
    """The token resuming right after the key ``start_after`` (relative to the list prefix)."""
    payload = json.dumps({"v": VERSION, "rv": revision, "start": start_after + "\u0000"},
                         separators=(",", ":"), ensure_ascii=False)
    import base64  # here: most lists fit one page (with struct, ~0.5 ms of a short command's start)

    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode(token: str) -> tuple[int, str]:
    """(revision, key to resume after); revision 0 means the current state.

    Raises StatusError(400) worded as kube-apiserver's "invalid continue token: ...".
    """
    try:
        return _decode(token)
    except _TokenError as exc:
        raise bad_request(f"invalid continue token: {exc}") from None


class _TokenError(Exception):
    pass


def _decode(token: str) -> tuple[int, str]:
    data = _raw_url_b64decode(token.encode())
    fields = _unmarshal(data)
    version = fields.get("v", "")
    if version != VERSION:
        raise _TokenError(f"{_INVALID}: server does not recognize this encoded version {version}")
    revision, start = fields.get("rv", 0), fields.get("start", "")
    if revision == 0:
        raise _TokenError(f"{_INVALID}: incorrect encoded start resourceVersion (version {VERSION})")
    if not start:
        raise _TokenError(f"{_INVALID}: encoded start key empty (version {VERSION})")
    key = start if start.startswith("/") else "/" + start
    if _clean(key) != key:  # no climbing out of the list's prefix
        raise _TokenError(f"{_INVALID}: {start}")
    # A negative revision (an inconsistent continuation) reads the current state.
    return max(revision, 0), key[1:].rstrip("\u0000")


def _raw_url_b64decode(data: bytes) -> bytes:
    """Go's base64.RawURLEncoding: CR/LF skipped, an error names the offending byte offset."""
    kept = bytearray()
    for offset, byte in enumerate(data):
        if byte in b"\r\n":
            continue
        if byte not in _ALPHABET:
            raise _TokenError(f"{_INVALID}: illegal base64 data at input byte {offset}")
        kept.append(byte)
    if len(kept) % 4 == 1:  # a lone character cannot end the input
        raise _TokenError(f"{_INVALID}: illegal base64 data at input byte {len(data) - 1}")
    import base64

    return base64.urlsafe_b64decode(bytes(kept) + b"=" * (-len(kept) % 4))


_GO_TYPES = {"v": "string", "start": "string", "rv": "int64"}


def _unmarshal(data: bytes) -> dict:
    """The token's fields as Go's encoding/json fills its struct (keys matched case-insensitively)."""
    try:
        payload = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError as exc:
        raise _TokenError(f"{_INVALID}: {_json_syntax_message(data, exc)}") from None
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise _TokenError(f"{_INVALID}: json: cannot unmarshal {json_kind(payload)} into Go value of type "
                          "storage.continueToken")
    fields: dict = {}
    for name, go_type in _GO_TYPES.items():
        value = payload[name] if name in payload else next(
            (v for k, v in payload.items() if k.lower() == name), None)
        if value is None:
            continue
        if go_type == "string" and not isinstance(value, str):
            raise _type_error(value, name, go_type)
        if go_type == "int64" and (isinstance(value, bool) or not isinstance(value, (int, float))
                                   or value != int(value)):
            raise _type_error(value, name, go_type)
        fields[name] = int(value) if go_type == "int64" else value
    return fields


def _type_error(value, name: str, go_type: str) -> _TokenError:
    kind = json_kind(value)
    if kind == "number":
        kind = f"number {json.dumps(value)}"
    return _TokenError(f"{_INVALID}: json: cannot unmarshal {kind} into Go struct field continueToken.{name} "
                       f"of type {go_type}")


def _json_syntax_message(data: bytes, exc: ValueError) -> str:
    # Go's wording for the common cases: nothing or a truncated document, and a bad first byte.
    stripped = data.strip(b" \t\r\n")
    position = getattr(exc, "pos", None)
    if not stripped or (position is not None and position >= len(data.rstrip(b" \t\r\n"))):
        return "unexpected end of JSON input"
    first = chr(stripped[0])
    if first not in '{["-0123456789tfn':
        return f"invalid character {_go_char(first)} looking for beginning of value"
    bad = chr(data[position]) if position is not None and position < len(data) else first
    return f"invalid character {_go_char(bad)} looking for beginning of value"


def _go_char(ch: str) -> str:
    return "'\\''" if ch == "'" else f"'{ch}'" if ch.isprintable() else json.dumps(ch)


def _clean(path: str) -> str:
    """Go's path.Clean for an absolute path (POSIX keeps a leading '//', Go does not)."""
    cleaned = posixpath.normpath(path)
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned

