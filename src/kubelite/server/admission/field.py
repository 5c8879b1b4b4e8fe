"""Field errors in the shape kube-apiserver reports them (``field.Error``).

Each builder returns a *cause* dict ``{"reason", "message", "field"}``; the
``message`` is what Go's ``ErrorBody()`` prints and the Status message shows
``field: message``.  Bad values are rendered like Go's fmt verbs: strings with
``%q``, numbers and booleans plainly; anything else must be passed as a
:class:`GoRepr` holding the exact text Go's ``%#v`` would print.
"""

from __future__ import annotations

from kubelite.record import FrozenRecord

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any, Iterable

__all__ = [
    "GoRepr",
    "go_quote",
    "go_value",
    "Path",
    "invalid",
    "required",
    "forbidden",
    "duplicate",
    "not_found",
    "not_supported",
    "too_long",
    "too_many",
    "type_invalid",
    "internal",
]


class GoRepr(FrozenRecord):
    """A value already formatted the way Go would print it."""

    text: str


_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t",
            "\v": r"\v", "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote``: double quotes, C-like escapes, printable Unicode kept."""
    out = ['"']
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def go_value(value: Any) -> str:
    """Render a bad value as field.Error does (``%q`` strings, ``%v`` scalars)."""
    if isinstance(value, GoRepr):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return "<nil>"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "[]string{" + ", ".join(go_quote(v) for v in value) + "}"
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        items = ", ".join(f"{go_quote(k)}:{go_quote(v)}" for k, v in sorted(value.items()))
        return "map[string]string{" + items + "}"
    return repr(value)


class Path(str):
    """A field path that grows like Go's field.Path (``a.b[0][key]``)."""

    def child(self, *names: str) -> "Path":
        if len(names) == 1 and self and names[0]:  # the usual step (every check spells its path)
            return Path(f"{self}.{names[0]}")
        text = str(self)
        for name in names:
            text = f"{text}.{name}" if text else name
        return Path(text)

    def index(self, i: int) -> "Path":
        return Path(f"{self}[{i}]")

    def key(self, k: str) -> "Path":
        return Path(f"{self}[{k}]")


def _cause(reason: str, field: str, body: str, detail: str = "") -> dict:
    message = f"{body}: {detail}" if detail else body
    return {"reason": reason, "message": message, "field": str(field)}


def invalid(field: str, value: Any, detail: str = "") -> dict:
    return _cause("FieldValueInvalid", field, f"Invalid value: {go_value(value)}", detail)


def type_invalid(field: str, value: Any, detail: str = "") -> dict:
    return _cause("FieldValueTypeInvalid", field, f"Invalid value: {go_value(value)}", detail)


def required(field: str, detail: str = "") -> dict:
    return _cause("FieldValueRequired", field, "Required value", detail)


def forbidden(field: str, detail: str = "") -> dict:
    return _cause("FieldValueForbidden", field, "Forbidden", detail)


def duplicate(field: str, value: Any) -> dict:
    return _cause("FieldValueDuplicate", field, f"Duplicate value: {go_value(value)}")


def not_found(field: str, value: Any) -> dict:
    return _cause("FieldValueNotFound", field, f"Not found: {go_value(value)}")


def not_supported(field: str, value: Any, supported: Iterable[str]) -> dict:
    options = ", ".join(go_quote(s) for s in supported)
    detail = f"supported values: {options}" if options else ""
    return _cause("FieldValueNotSupported", field, f"Unsupported value: {go_value(value)}", detail)


def too_long(field: str, max_length: int) -> dict:
    return _cause("FieldValueTooLong", field, "Too long", f"may not be more than {max_length} bytes")


def too_many(field: str, actual: int, max_items: int) -> dict:
    return _cause("FieldValueTooMany", field, f"Too many: {actual}", f"must have at most {max_items} items")


def internal(field: str, detail: str) -> dict:
    return _cause("InternalError", field, "Internal error", detail)
