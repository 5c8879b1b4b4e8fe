"""RFC 6901 JSON Pointer parsing and formatting (strict, as RFC 6902 requires)."""
from __future__ import annotations

import re

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_ESCAPE = re.compile(r"~(.?)")


class PointerSyntaxError(ValueError):
    """The text is not a JSON Pointer; the message says why."""


def parse(pointer: object) -> list[str]:
    """Split a JSON Pointer into its unescaped reference tokens ("" is the whole document)."""
    if not isinstance(pointer, str):
        raise PointerSyntaxError(f"a JSON Pointer must be a string, not {type_name(pointer)}")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerSyntaxError("a JSON Pointer must be empty or start with '/'")
    return [_unescape(token) for token in pointer[1:].split("/")]


def _unescape(token: str) -> str:
    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code == "0":
            return "~"
        if code == "1":
            return "/"
        raise PointerSyntaxError(f"'~' must be followed by '0' or '1' in token {token!r}")

    # One left-to-right pass, so "~01" decodes to "~1" and not to "/".
    return _ESCAPE.sub(replace, token) if "~" in token else token


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def format(tokens: list[str]) -> str:  # noqa: A001 - mirrors parse()
    return "".join("/" + escape(token) for token in tokens)


def array_index(token: str) -> int | None:
    """The index a token names in an array, or None when it is not a valid RFC 6901 index.

    Leading zeros, signs and "-" are not indexes here; callers handle "-" themselves.
    """
    return int(token) if _ARRAY_INDEX.fullmatch(token) else None


def type_name(value: object) -> str:
    """The JSON type of a Python value, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
