"""Go encoding/json's names for JSON value types, as its unmarshal errors print them."""
from __future__ import annotations


def json_kind(value: object) -> str:
    """The word Go puts in "json: cannot unmarshal <kind> into ..." for a decoded JSON value.

    Go never reports null (it fits any type), so "null" only answers for None and
    values that did not come from a JSON decoder.
    """
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


_SURROGATE = None


def without_lone_surrogates(value: object) -> object:
    """`value` with every lone UTF-16 surrogate (Python keeps "\\ud800" escapes as such) replaced
    by U+FFFD, as Go's decoders do; the same object when there is none."""
    import re

    global _SURROGATE
    if _SURROGATE is None:
        _SURROGATE = re.compile("[\ud800-\udfff]")
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        fixed = {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
        if type(value) is dict:
            return fixed
        out = type(value)()  # a dict subclass (duplicate-key tracking) keeps its class and slots
        for attr in getattr(type(value), "__slots__", ()):
            setattr(out, attr, getattr(value, attr, None))
        out.update(fixed)
        return out
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    return value
