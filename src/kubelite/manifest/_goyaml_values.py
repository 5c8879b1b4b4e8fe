"""The values of decoded YAML scalars and keys after sigs.k8s.io/yaml's JSON round trip.

Shared by the two YAML readers (the block-style fast path and the libyaml one), and free
of PyYAML so that the fast path does not load it.
"""
from __future__ import annotations

import math

from . import _gonum
from ._goplain import MERGE, _Uint, resolve_plain


class DecodeError(Exception):
    """A document is not valid YAML or has no JSON equivalent.

    ``line`` is 1-based within the document text, or None.
    """

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


_YAML = "tag:yaml.org,2002:"
_TAG_NAMES = {_YAML + n: n for n in ("bool", "int", "float", "null", "timestamp", "str", "binary", "merge")}


def _kind_of(value: object) -> str:
    if value is None:
        return "null"
    if value is MERGE:
        return "merge"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


def resolve_tagged(tag: str, text: str) -> object:
    """go-yaml v2's value for a scalar with an explicit tag."""
    name = _TAG_NAMES.get(tag)
    if name is None or name == "str" or name == "timestamp":
        return text
    if name == "binary":
        import base64
        import binascii

        try:
            raw = base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise DecodeError(f"yaml: !!binary value contains invalid base64 data: {exc}") from None
        return raw.decode("utf-8", "replace")
    value = resolve_plain(text)
    got = _kind_of(value)
    if got == name:
        return value
    if name == "float" and got == "int":
        return float(value)  # type: ignore[arg-type]
    raise DecodeError(f"yaml: cannot decode !!{got} `{text}` as a !!{name}")


def json_number(value: object) -> object:
    """The value after go's JSON round trip: int64 stays int, the rest float64."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, _Uint):
        return float(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise DecodeError("json: unsupported value: " + _gonum.go_g(value))
        text = _gonum.json_float(value)
        if "e" not in text and "." not in text:
            n = int(text)
            if _gonum.INT64_MIN <= n <= _gonum.INT64_MAX:
                return n
        return value
    return value


def key_string(key: object, line: int | None) -> str:
    """sigs.k8s.io/yaml's conversion of a decoded map key to a JSON key (``line`` for its errors)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, _Uint):
        raise DecodeError(f"unsupported map key of type: uint64, key: 0x{int(key):x}", line)
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        s = _gonum.float32_g(key)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(s, s)
    if key is MERGE:
        return "<<"
    raise DecodeError("unsupported map key of type: <nil>, key: <nil>", line)
