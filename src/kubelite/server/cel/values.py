"""JSON values to CEL values and back.

Objects become maps whose keys are also reachable by their escaped names (a property `x-y` is
`self.x__dash__y`, as Kubernetes escapes property names that are not CEL identifiers). With a
structural schema (CRD rules), `number` values are doubles, `integer` ones ints, and strings of
format `date-time`/`duration` timestamps and durations, as in kube-apiserver.
"""
from __future__ import annotations

import base64
import datetime
import re
from typing import Any, Callable

from celpy import celtypes

from kubelite.server.cel import EvalError

_RESERVED = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"})
_ESCAPES = (("__underscores__", "__"), ("__dot__", "."), ("__dash__", "-"), ("__slash__", "/"))
_ESCAPED = re.compile(r"__(underscores|dot|dash|slash)__")


def unescape(name: str) -> str:
    """A property name as written in the schema, from its CEL spelling."""
    if name.startswith("__") and name.endswith("__") and name[2:-2] in _RESERVED:
        return name[2:-2]
    return _ESCAPED.sub(lambda m: {"underscores": "__", "dot": ".", "dash": "-", "slash": "/"}[m.group(1)], name)


class Map(celtypes.MapType):
    """A JSON object: string keys, also found by their escaped CEL names."""

    def __getitem__(self, key):
        try:
            return super().__getitem__(key)
        except KeyError:
            if isinstance(key, str) and "__" in key:
                real = unescape(key)
                if real != key:
                    return super().__getitem__(celtypes.StringType(real))
            raise

    def __contains__(self, key) -> bool:
        if super().__contains__(key):
            return True
        return isinstance(key, str) and "__" in key and unescape(key) != key and \
            super().__contains__(celtypes.StringType(unescape(key)))


class LazyMap(Map):
    """Entries computed on first access, then kept (a policy's `variables`)."""

    def __init__(self, callbacks: dict[str, Callable[[], Any]]):
        super().__init__()
        self._callbacks = dict(callbacks)

    def __getitem__(self, key):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        callback = self._callbacks.get(str(key))
        if callback is None:
            raise KeyError(key)
        value = callback()
        dict.__setitem__(self, celtypes.StringType(key), value)
        return value

    def __contains__(self, key) -> bool:
        return str(key) in self._callbacks

    def __iter__(self):
        return iter([celtypes.StringType(k) for k in self._callbacks])

    def __len__(self) -> int:
        return len(self._callbacks)


def _timestamp(text: str):
    try:
        return celtypes.TimestampType(text)
    except Exception:  # noqa: BLE001 - not a timestamp: kept as the string it is
        return celtypes.StringType(text)


def _duration(text: str):
    try:
        return celtypes.DurationType(text)
    except Exception:  # noqa: BLE001
        return celtypes.StringType(text)


def to_cel(value: Any, schema: dict | None = None):
    """`value` (JSON) as a CEL value; `schema` (a structural schema node) refines numbers and
    strings the way kube-apiserver types them."""
    if value is None:
        return None
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(value, int):
        if kind == "number":
            return celtypes.DoubleType(value)
        return celtypes.IntType(value)
    if isinstance(value, float):
        if kind == "integer" and value.is_integer():
            return celtypes.IntType(int(value))
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        fmt = schema.get("format") if kind == "string" else None
        if fmt == "date-time":
            return _timestamp(value)
        if fmt == "duration":
            return _duration(value)
        if fmt == "byte":
            try:
                return celtypes.BytesType(base64.b64decode(value))
            except ValueError:
                return celtypes.StringType(value)
        return celtypes.StringType(value)
    if isinstance(value, (list, tuple)):
        items = schema.get("items") if isinstance(schema, dict) else None
        return celtypes.ListType([to_cel(v, items) for v in value])
    if isinstance(value, dict):
        props = (schema.get("properties") or {}) if isinstance(schema, dict) else {}
        additional = schema.get("additionalProperties") if isinstance(schema, dict) else None
        out = Map()
        for key, child in value.items():
            child_schema = props.get(key) if key in props else (additional if isinstance(additional, dict) else None)
            dict.__setitem__(out, celtypes.StringType(key), to_cel(child, child_schema))
        return out
    return value  # already a CEL value (a quantity, a lazy map)


def from_cel(value: Any) -> Any:
    """A CEL value as JSON (quantities as their text, timestamps as RFC 3339)."""
    if value is None or isinstance(value, celtypes.NullType):
        return None
    if isinstance(value, EvalError):
        raise value
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, (celtypes.IntType, celtypes.UintType)):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.BytesType):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, celtypes.TimestampType):
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, celtypes.DurationType):
        return str(value)
    if isinstance(value, dict):
        return {str(k): from_cel(value[k]) for k in value}
    if isinstance(value, (list, tuple)):
        return [from_cel(v) for v in value]
    if isinstance(value, bool):
        return value
    return str(value) if hasattr(value, "cel_text") else value
