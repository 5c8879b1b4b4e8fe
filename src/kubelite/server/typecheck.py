"""Typed decoding: the errors kube-apiserver's Go decoder raises for wrongly typed fields.

kube-apiserver decodes a built-in object into Go structs, so a value of the wrong JSON type
(`"replicas": "three"`, `"metadata": "x"`, a number in ConfigMap `data`) fails before admission
with encoding/json's message, and a bad quantity with resource.ParseQuantity's. This module
walks a decoded object along the kind's OpenAPI schema and reproduces those messages:

- encoding/json keeps going after a type mismatch and reports the first one, naming the
  innermost struct and the JSON field path from the root (map keys and list indexes are not
  part of the path): `json: cannot unmarshal string into Go struct field
  DeploymentSpec.spec.replicas of type int32`;
- types with their own unmarshalling (Quantity, IntOrString, Time) stop decoding at once.

Custom resources decode into unstructured maps and never fail here.
"""
from __future__ import annotations

import re

from kubelite.schema.model import ANY, LIST, MAP, OBJECT

_QUANTITY_PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY_SHAPE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eEinumkKMGTP]*[+-]?[0-9]*")
_INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


class DecodeError(Exception):
    """The decoder's message for the first wrongly typed value."""


class FloatLiteral(float):
    """A JSON number with a fraction or exponent that remembers how it was written (`1.0`, `1e3`),
    which Go quotes when such a number cannot become an integer."""

    text: str

    def __new__(cls, text: str):
        value = super().__new__(cls, text)
        value.text = text
        return value


class _Abort(Exception):
    pass


def problem(obj: dict, r, looked_up: list | None = None) -> str | None:
    """The decode error of a request body for resource `r`, or None. Only built-in kinds are
    typed; a body naming another kind is left to the kind checks that follow. `looked_up`:
    the kind's schema is put there when it was looked up (pruning reads the same one)."""
    if getattr(r, "crd", None) or obj.get("kind") not in (None, r.kind):
        return None
    from kubelite import schema as schemas

    schema = schemas.for_kind(r.api_version, r.kind)
    if looked_up is not None:
        looked_up.append(schema)
    if schema is None:
        return None
    try:
        check(obj, schema)
    except DecodeError as err:
        return str(err)
    return None


def check(value, schema) -> None:
    """Raise DecodeError if `value` (a whole object) cannot decode into the Go type of `schema`."""
    walker = _Walker()
    try:
        walker.walk(value, schema, "", ())
    except _Abort as stop:
        raise DecodeError(str(stop)) from None
    if walker.first is not None:
        raise DecodeError(walker.first)


class _Walker:
    def __init__(self):
        self.first: str | None = None

    def save(self, message: str) -> None:
        if self.first is None:
            self.first = message

    def walk(self, value, schema, struct: str, path: tuple[str, ...]) -> None:
        if value is None or schema is None:
            return
        plan = _PLANS.get(schema) or _plan(schema)
        how = plan[0]
        if how is _STRUCT:
            if not isinstance(value, dict):
                return self.save(_type_error(_json_type(value), struct, path, plan[1]))
            inner = plan[2] or struct
            field = schema.field
            for key, child in value.items():
                if child is not None:
                    sub = field(key)
                    if sub is not None and not (isinstance(child, str) and sub in _STRING_LEAVES):
                        self.walk(child, sub, inner, path + (key,))
        elif how is _PRIMITIVE:
            target = plan[1]
            if target == "string" and isinstance(value, str):
                return  # the usual leaf
            self.primitive(value, target, struct, path)
        elif how is _MAP:
            if not isinstance(value, dict):
                return self.save(_type_error(_json_type(value), struct, path, plan[1]))
            field = schema.field
            for key, child in value.items():
                if child is not None:
                    sub = field(key)
                    if sub is not None and not (isinstance(child, str) and sub in _STRING_LEAVES):
                        self.walk(child, sub, struct, path)
        elif how is _LIST:
            if not isinstance(value, list):
                return self.save(_type_error(_json_type(value), struct, path, plan[1]))
            items = schema.items()
            for child in value:
                self.walk(child, items, struct, path)
        elif how is _QUANTITY:
            _quantity(value)
        elif how is _INT_OR_STRING:
            if not isinstance(value, str):
                # IntOrString decodes anything but a string as an int32, and stops at a failure
                message = _scalar_problem(value, "int32")
                if message:
                    raise _Abort(_type_error(message, struct, path, "int32"))
        elif how is _TIME:
            if not isinstance(value, str):
                raise _Abort(_type_error(_json_type(value), struct, path, "string"))
            if plan[1]:  # metav1.Time parses its string with time.Parse(RFC3339)
                from kubelite.server.gotime import rfc3339_problem

                problem = rfc3339_problem(value)
                if problem:
                    raise _Abort(problem)

    def primitive(self, value, target: str, struct: str, path: tuple[str, ...]) -> None:
        if target == "[]uint8":
            if not isinstance(value, str):
                return self.save(_type_error(_json_type(value), struct, path, target))
            problem = _base64_problem(value)
            if problem:
                self.save(problem)
            return
        message = _scalar_problem(value, target)
        if message:
            self.save(_type_error(message, struct, path, target))


# What the walker does at a schema, worked out once per schema: (how, ...) with the Go type a
# mismatch is reported against (and a struct's short name). Built-in schemas live as long as the
# process (typed decoding is for built-in kinds only), and so do their plans.
_STRUCT, _MAP, _LIST, _PRIMITIVE, _QUANTITY, _INT_OR_STRING, _TIME, _SKIP = (
    "struct", "map", "list", "primitive", "quantity", "int-or-string", "time", "skip")
_PLANS: dict = {}


# The planned schemas under which any string is fine (walk's usual leaf: most of an object's
# values): a string there is not walked to.
_STRING_LEAVES: set = set()


def _plan(schema) -> tuple:
    name = schema.name or ""
    kind = schema.type
    if name.endswith(".Quantity"):
        plan = (_QUANTITY,)
    elif kind == ANY:
        plan = (_SKIP,)
    elif schema.int_or_string:
        plan = (_INT_OR_STRING,)
    elif name.endswith((".Time", ".MicroTime")) or _format(schema) == "date-time":
        plan = (_TIME, name.endswith(".Time"))
    elif kind == OBJECT and _is_struct(schema):
        plan = (_STRUCT, go_type(schema), _short(name))
    elif kind in (MAP, OBJECT):
        plan = (_MAP, go_type(schema))
    elif kind == LIST:
        plan = (_LIST, go_type(schema))
    else:
        plan = (_PRIMITIVE, go_type(schema))
        if plan[1] == "string":
            _STRING_LEAVES.add(schema)
    _PLANS[schema] = plan
    return plan


def _scalar_problem(value, target: str) -> str | None:
    """What Go calls the JSON value it could not store in `target`, or None if it fits."""
    if isinstance(value, (dict, list)):
        return _json_type(value)
    if target == "string":
        return None if isinstance(value, str) else _json_type(value)
    if target == "bool":
        return None if isinstance(value, bool) else _json_type(value)
    if target in _INT_RANGE:
        if isinstance(value, bool) or isinstance(value, str):
            return _json_type(value)
        text = _number_text(value)
        if isinstance(value, float):
            return f"number {text}"
        low, high = _INT_RANGE[target]
        return None if low <= value <= high else f"number {text}"
    if target.startswith("float"):
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else _json_type(value)
    return None


def _type_error(value_name: str, struct: str, path: tuple[str, ...], target: str) -> str:
    if struct or path:
        return f"json: cannot unmarshal {value_name} into Go struct field {struct}.{'.'.join(path)} of type {target}"
    return f"json: cannot unmarshal {value_name} into Go value of type {target}"


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "null"


def _number_text(value) -> str:
    if isinstance(value, FloatLiteral):
        return value.text
    return repr(value) if isinstance(value, float) else str(value)


def _quantity(value) -> None:
    if isinstance(value, str):
        text = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        text = _number_text(value)
    else:
        text = "{" if isinstance(value, (dict, list)) else str(value).lower()
    text = text.strip()
    if not text or not _QUANTITY_SHAPE.fullmatch(text):
        raise _Abort(f"quantities must match the regular expression '{_QUANTITY_PATTERN}'")
    from kubelite.quantity import QuantityError, parse_quantity

    try:
        parse_quantity(text)
    except QuantityError as err:
        raise _Abort(str(err)) from None


def _base64_problem(text: str) -> str | None:
    from kubelite.server.gobytes import decode

    if decode(text) is not None:  # Go's decoder skips line breaks anywhere
        return None
    alphabet = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    data = text.encode()
    for index, byte in enumerate(data):
        if byte == ord("="):
            return f"illegal base64 data at input byte {index}"
        if byte not in alphabet and byte not in b"\r\n":
            return f"illegal base64 data at input byte {index}"
    return f"illegal base64 data at input byte {len(data) - len(data) % 4 if len(data) % 4 else len(data)}"


# -- Go type names ---------------------------------------------------------------------------------


def go_type(schema) -> str:
    """The Go type a schema stands for, as reflect prints it (`v1.ObjectMeta`, `[]v1.Container`,
    `map[string]string`, `int32`)."""
    name = schema.name or ""
    if name.endswith(".Quantity"):
        return "resource.Quantity"
    if schema.int_or_string:
        return "intstr.IntOrString"
    kind = schema.type
    if kind == OBJECT and _is_struct(schema):
        return _qualified(name) or "map[string]interface {}"
    if kind in (MAP, OBJECT):
        value = schema.field("*")
        if value is not None and (value.name or "").endswith(".Quantity"):
            return "v1.ResourceList"  # core/v1's named map of quantities
        return "map[string]" + (go_type(value) if value is not None else "interface {}")
    if kind == LIST:
        return "[]" + go_type(schema.items())
    if kind == ANY:
        return _qualified(name) or "interface {}"
    types = _types(schema)
    fmt = _format(schema)
    if "integer" in types:
        return "int32" if fmt == "int32" else "int64"
    if "number" in types:
        return "float32" if fmt == "float" else "float64"
    if "boolean" in types:
        return "bool"
    if "string" in types and fmt == "byte":
        return "[]uint8"
    return "string"


def _is_struct(schema) -> bool:
    return bool(schema.node.get("properties")) or (
        schema.type == OBJECT and not isinstance(schema.node.get("additionalProperties"), dict)
        and bool(schema.name))


def _types(schema) -> tuple[str, ...]:
    kind = schema.node.get("type")
    if isinstance(kind, list):
        return tuple(k for k in kind if isinstance(k, str))
    return (kind,) if isinstance(kind, str) else ()


def _format(schema) -> str:
    fmt = schema.node.get("format")
    return fmt if isinstance(fmt, str) else ""


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1] if name else ""


def _qualified(name: str) -> str:
    parts = name.split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else name
