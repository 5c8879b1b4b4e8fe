"""Typed round trip: what a built-in object becomes after Go decodes it into its struct and
writes it back (``json.Unmarshal`` into the API type, then ``json.Marshal``).

kubectl works on Go structs for built-in kinds (``set --local``, ``create TYPE``, ``run``,
``expose``...), so what it prints differs from its input:

- struct fields without ``omitempty`` always appear, with their zero value: ``""``, ``0``,
  ``false``, ``{...}`` for a struct value, ``null`` for a nil pointer, slice, map or interface and
  for the self-marshalling zero ``Time`` (``metadata.creationTimestamp: null``, ``status: {}``);
- fields with ``omitempty`` disappear when zero (``""``, ``0``, ``false``, nil, empty slice/map;
  a struct value is never empty, so e.g. ``strategy: {}`` stays);
- keys the struct does not declare are dropped (keys match case-sensitively, as
  sigs.k8s.io/json decodes);
- keys come in struct order, Go maps with sorted keys;
- self-marshalling values take their canonical form: times in UTC to the second, quantities
  canonical (through the ``quantity`` hook), base64 ``[]byte`` re-encoded, IntOrString zero ``0``.

The struct layouts are data: data/go_json_types.json, written by tools/gen_proto_fields.py from
the Kubernetes Go declarations. Kinds the data does not know (custom resources) are Go maps in
kubectl too and come back unchanged.
"""
from __future__ import annotations

import base64
import binascii
import datetime
import functools
import json
from collections.abc import Callable
from importlib import resources

from kubelite.schema import goorder
from kubelite.schema.gojson import json_kind

__all__ = ["TypedError", "roundtrip", "is_typed"]

_INT_RANGES = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
    "int64": (-2**63, 2**63 - 1), "int": (-2**63, 2**63 - 1),
    "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1), "uint": (0, 2**64 - 1),
}
_FLOATS = frozenset({"float32", "float64"})
_GO_ZERO_TIME = datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc)

Quantity = Callable[[object], str]


class TypedError(ValueError):
    """The input cannot be decoded into the Go struct; the message is encoding/json's."""


@functools.cache
def _types() -> dict[str, list]:
    raw = (resources.files("kubelite.schema") / "data" / "go_json_types.json").read_bytes()
    return json.loads(raw)["types"]


def is_typed(api_version: object, kind: object) -> bool:
    """Whether kubectl decodes this apiVersion/kind into a Go struct (a built-in kind)."""
    return goorder.struct_name(api_version, kind) in _types()


def roundtrip(obj: dict, api_version: object = None, kind: object = None, *,
              quantity: Quantity | None = None) -> dict:
    """``obj`` decoded into the Go struct of ``api_version``/``kind`` and encoded again.

    ``api_version``/``kind`` default to the object's own. ``quantity`` turns a quantity's JSON
    value into its canonical string (resource.Quantity's MarshalJSON); without it quantities are
    kept as written (as strings). Unknown kinds come back unchanged. Raises TypedError for
    values of the wrong JSON type, with encoding/json's message.
    """
    if not isinstance(obj, dict):
        raise TypedError(f"json: cannot unmarshal {json_kind(obj)} into Go value of type map[string]interface {{}}")
    api_version = obj.get("apiVersion") if api_version is None else api_version
    kind = obj.get("kind") if kind is None else kind
    struct = goorder.struct_name(api_version, kind)
    types = _types()
    if struct not in types:
        return obj
    codec = _Codec(types, quantity)
    return codec.struct(obj, struct, ())


def _short(struct: str) -> str:
    return struct.rsplit(".", 1)[-1]


class _Codec:
    """One decode/encode pass. ``where`` is (innermost struct, JSON field path) for error messages."""

    def __init__(self, types: dict[str, list], quantity: Quantity | None) -> None:
        self.types = types
        self.quantity = quantity

    # ---- structs -------------------------------------------------------------------------

    def struct(self, value: object, struct: str, path: tuple[str, ...]) -> dict:
        out = {}
        for name, texpr, omitempty, gotype in self.types[struct]:
            where = (struct, path + (name,), gotype)
            item = self.value(value[name], texpr, where) if name in value else self.zero(texpr, where)
            if omitempty and self.empty(item, texpr):
                continue
            out[name] = item
        return out

    # ---- one value of a Go type ----------------------------------------------------------

    def value(self, value: object, texpr: str, where: tuple) -> object:
        if value is None:
            return self.null(texpr, where)
        if texpr.startswith("*"):
            return self.value(value, texpr[1:], _inner(where, "*"))
        if texpr.startswith("[]"):
            if not isinstance(value, list):
                raise self.mismatch(value, texpr, where)
            inner = _inner(where, "[]")
            return [self.value(item, texpr[2:], inner) for item in value]
        if texpr.startswith("map:"):
            if not isinstance(value, dict):
                raise self.mismatch(value, texpr, where)
            inner = _inner(where, "map[")
            return {key: self.value(value[key], texpr[4:], inner) for key in sorted(value)}
        if texpr.startswith("@"):
            return self.self_marshalled(value, texpr[1:], where)
        if texpr in self.types:
            if not isinstance(value, dict):
                raise self.mismatch(value, texpr, where)
            return self.struct(value, texpr, where[1])
        return self.scalar(value, texpr, where)

    def null(self, texpr: str, where: tuple) -> object:
        """JSON null: nil for pointers, slices, maps and interfaces; otherwise the target keeps
        its zero value, except types whose UnmarshalJSON gives null a meaning."""
        if texpr == "@IntOrString":
            return 0  # its decoder reads null as the integer zero
        return self.zero(texpr, where)

    def zero(self, texpr: str, where: tuple) -> object:
        """What Go writes for a field the input did not set."""
        if texpr in ("string",):
            return ""
        if texpr == "bool":
            return False
        if texpr in _INT_RANGES or texpr in _FLOATS:
            return 0
        if texpr == "@Quantity":
            return "0"
        if texpr == "@IntOrString":
            return 0
        if texpr in self.types:
            return self.struct({}, texpr, where[1])
        # nil pointers, slices, maps, []byte, interfaces; zero Time and empty raw values
        return None

    @staticmethod
    def empty(value: object, texpr: str) -> bool:
        """encoding/json's omitempty test on the Go value behind ``value``."""
        if texpr.startswith("@") or texpr in ("string",):
            # struct-backed self-marshalling values are never empty; strings are empty when ""
            return texpr == "string" and value == ""
        if texpr.startswith("*") or texpr == "any":
            return value is None
        if texpr.startswith(("[]", "map:")) or texpr == "bytes":
            return value is None or len(value) == 0
        if texpr == "bool":
            return value is False
        if texpr in _INT_RANGES or texpr in _FLOATS:
            return value == 0
        return False  # struct values

    def scalar(self, value: object, texpr: str, where: tuple) -> object:
        if texpr == "string":
            if not isinstance(value, str):
                raise self.mismatch(value, texpr, where)
            return value
        if texpr == "bool":
            if not isinstance(value, bool):
                raise self.mismatch(value, texpr, where)
            return value
        if texpr in _INT_RANGES:
            return self.integer(value, texpr, where)
        if texpr in _FLOATS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self.mismatch(value, texpr, where)
            return int(value) if float(value).is_integer() and abs(value) < 1e21 else float(value)
        if texpr == "bytes":
            return self.bytes(value, where)
        if texpr == "any":
            return goorder.sorted_keys(value)  # Go's map[string]interface{}: sorted at every depth
        raise TypedError(f"unknown Go type {texpr!r} in the typed field table")

    def integer(self, value: object, texpr: str, where: tuple) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.mismatch(value, texpr, where)
        if isinstance(value, float):
            if not value.is_integer():
                raise self.mismatch(value, texpr, where, f"number {_go_number(value)}")
            value = int(value)
        low, high = _INT_RANGES[texpr]
        if not low <= value <= high:
            raise self.mismatch(value, texpr, where, f"number {value}")
        return value

    def bytes(self, value: object, where: tuple) -> str:
        if not isinstance(value, str):
            raise self.mismatch(value, "[]uint8", where)
        # Go's StdEncoding: padding required; newlines are skipped
        text = value.replace("\r", "").replace("\n", "")
        try:
            decoded = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise TypedError(f"illegal base64 data at input byte {_bad_base64_offset(text)}") from None
        return base64.b64encode(decoded).decode("ascii")

    # ---- types with their own MarshalJSON ------------------------------------------------

    def self_marshalled(self, value: object, name: str, where: tuple) -> object:
        if name == "Time":
            return _time(value, micro=False)
        if name == "MicroTime":
            return _time(value, micro=True)
        if name == "Quantity":
            return self.quantity_value(value, where)
        if name == "IntOrString":
            if isinstance(value, str):
                return value
            return self.integer(value, "int32", where[:2] + (None,))  # its decoder reads an int32
        if name == "JSONSchemaPropsOrBool" and isinstance(value, bool):
            return value
        if name in ("JSONSchemaPropsOrBool", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrStringArray"):
            return self.schema_union(value, name, where)
        # RawExtension, FieldsV1, apiextensions JSON...: their bytes are written back as read
        return value

    def quantity_value(self, value: object, where: tuple) -> str:
        if isinstance(value, (bool, list, dict)):
            raise TypedError("quantities must match the regular expression "
                             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        if self.quantity is None:
            return value if isinstance(value, str) else _go_number(value)
        try:
            return self.quantity(value)
        except ValueError as err:
            raise TypedError(str(err)) from None

    def schema_union(self, value: object, name: str, where: tuple) -> object:
        props = next((key for key in self.types if key.endswith(".JSONSchemaProps")
                      and key.startswith(where[0].rsplit(".", 1)[0])), None)
        if isinstance(value, dict) and props:
            return self.struct(value, props, where[1])
        if isinstance(value, list) and name == "JSONSchemaPropsOrArray" and props:
            return [self.struct(item if isinstance(item, dict) else {}, props, where[1]) for item in value]
        if isinstance(value, list) and name == "JSONSchemaPropsOrStringArray":
            return [self.scalar(item, "string", where) for item in value]
        return value

    # ---- errors --------------------------------------------------------------------------

    @staticmethod
    def mismatch(value: object, texpr: str, where: tuple, what: str | None = None) -> TypedError:
        struct, path, gotype = where
        return TypedError(f"json: cannot unmarshal {what or json_kind(value)} into Go struct field "
                          f"{_short(struct)}.{'.'.join(path)} of type {gotype or _go_type(texpr)}")


def _inner(where: tuple, prefix: str) -> tuple:
    """``where`` for the element of a pointer, slice or map: its Go type name, when spelled out."""
    struct, path, gotype = where
    if not gotype or not gotype.startswith(prefix):
        return struct, path, None  # a named slice/map type: the element's name is not recorded
    if prefix == "map[":
        depth = 0
        for i, char in enumerate(gotype):
            depth += {"[": 1, "]": -1}.get(char, 0)
            if char == "]" and depth == 0:
                return struct, path, gotype[i + 1:]
    return struct, path, gotype[len(prefix):]


def _go_type(texpr: str) -> str:
    """The Go spelling of a type expression, as reflect names it (named types are resolved)."""
    if texpr.startswith("*"):
        return "*" + _go_type(texpr[1:])
    if texpr.startswith("[]"):
        return "[]" + _go_type(texpr[2:])
    if texpr.startswith("map:"):
        return "map[string]" + _go_type(texpr[4:])
    if texpr == "bytes":
        return "[]uint8"
    if texpr == "any":
        return "interface {}"
    if texpr.startswith("@"):
        return texpr[1:]
    if "." in texpr:
        package, _, name = texpr.rpartition(".")
        return f"{package.rsplit('.', 1)[-1]}.{name}"
    return texpr


def _go_number(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def _bad_base64_offset(text: str) -> int:
    """Where Go's decoder stops: the first character outside the alphabet, else the end."""
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    for i, char in enumerate(text):
        if char not in alphabet:
            return i
    return len(text) - len(text) % 4 if len(text) % 4 else max(len(text) - 1, 0)


def _time(value: object, micro: bool) -> str | None:
    """metav1.Time / MicroTime: an RFC 3339 string in, UTC out (to the second, or microsecond)."""
    if not isinstance(value, str):
        raise TypedError(f"json: cannot unmarshal {json_kind(value)} into Go value of type string")
    fields = _GoTimeParser(value, micro).parse()
    year, month, day, hour, minute, second, micros, offset = fields
    try:
        local = datetime.datetime(year, month, day, hour, minute, second, micros,
                                  tzinfo=datetime.timezone(datetime.timedelta(minutes=offset)))
        instant = local.astimezone(datetime.timezone.utc)
    except (ValueError, OverflowError):
        raise TypedError(f'parsing time "{value}": year out of range') from None
    if instant == _GO_ZERO_TIME:
        return None  # the zero time marshals as null
    text = (f"{instant.year:04d}-{instant.month:02d}-{instant.day:02d}"
            f"T{instant.hour:02d}:{instant.minute:02d}:{instant.second:02d}")
    return f"{text}.{instant.microsecond:06d}Z" if micro else f"{text}Z"


class _GoTimeParser:
    """Go's time.Parse with the RFC 3339 layout (MicroTime: with exactly six fraction digits),
    element by element, so that a bad value fails with Go's wording: which layout element
    could not be parsed, which field is out of range, or what text is left over."""

    def __init__(self, value: str, micro: bool) -> None:
        self.whole = value
        self.rest = value
        self.micro = micro
        self.layout = "2006-01-02T15:04:05.000000Z07:00" if micro else "2006-01-02T15:04:05Z07:00"

    def fail(self, element: str) -> TypedError:
        return TypedError(f'parsing time "{self.whole}" as "{self.layout}": '
                          f'cannot parse "{self.rest}" as "{element}"')

    def out_of_range(self, what: str) -> TypedError:
        return TypedError(f'parsing time "{self.whole}": {what} out of range')

    def literal(self, text: str) -> None:
        if not self.rest.startswith(text):
            raise self.fail(text)
        self.rest = self.rest[len(text):]

    def number(self, element: str, fixed: bool) -> int:
        rest = self.rest
        if not rest[:1].isdigit():
            raise self.fail(element)
        if not rest[1:2].isdigit():
            if fixed:
                raise self.fail(element)
            self.rest = rest[1:]
            return int(rest[0])
        self.rest = rest[2:]
        return int(rest[:2])

    def parse(self) -> tuple[int, int, int, int, int, int, int, int]:
        if len(self.rest) < 4 or not self.rest[:4].isdigit():
            raise self.fail("2006")
        year, self.rest = int(self.rest[:4]), self.rest[4:]
        self.literal("-")
        month = self.number("01", True)
        if not 1 <= month <= 12:
            raise self.out_of_range("month")
        self.literal("-")
        day = self.number("02", True)
        self.literal("T")
        hour = self.number("15", False)
        if hour >= 24:
            raise self.out_of_range("hour")
        self.literal(":")
        minute = self.number("04", True)
        if minute >= 60:
            raise self.out_of_range("minute")
        self.literal(":")
        second = self.number("05", True)
        if second >= 60:
            raise self.out_of_range("second")
        micros = self.fraction()
        offset = self.zone()
        if self.rest:
            raise TypedError(f'parsing time "{self.whole}": extra text: "{self.rest}"')
        if day < 1 or day > _days_in(month, year):
            raise self.out_of_range("day")
        return year, month, day, hour, minute, second, micros, offset

    def fraction(self) -> int:
        rest = self.rest
        if self.micro:
            if len(rest) < 7 or rest[0] not in ".," or not rest[1:7].isdigit():
                raise self.fail(".000000")
            self.rest = rest[7:]
            return int(rest[1:7])
        if len(rest) >= 2 and rest[0] in ".," and rest[1].isdigit():
            end = 2
            while end < len(rest) and rest[end].isdigit():
                end += 1
            self.rest = rest[end:]
            return int((rest[1:end] + "000000")[:6])
        return 0

    def zone(self) -> int:
        rest = self.rest
        if rest.startswith("Z"):
            self.rest = rest[1:]
            return 0
        if len(rest) < 6 or rest[3] != ":" or rest[0] not in "+-" \
                or not (rest[1:3].isdigit() and rest[4:6].isdigit()):
            raise self.fail("Z07:00")
        hours, minutes = int(rest[1:3]), int(rest[4:6])
        if hours > 24:
            raise self.out_of_range("time zone offset hour")
        if minutes > 60:
            raise self.out_of_range("time zone offset minute")
        self.rest = rest[6:]
        return (1 if rest[0] == "+" else -1) * (hours * 60 + minutes)


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31
