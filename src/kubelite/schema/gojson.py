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
    by U+FFFD, as Go's decoders do, in a copy of the containers. Walked without recursion:
    documents nest as deep as Go reads them (10,000 levels) whatever the recursion limit."""
    import re

    global _SURROGATE
    if _SURROGATE is None:
        _SURROGATE = re.compile("[\ud800-\udfff]")
    fix = _SURROGATE.sub
    stack: list[tuple[object, object]] = []

    def copied(item: object) -> object:
        if isinstance(item, str):
            return fix("\ufffd", item)
        if isinstance(item, dict):
            shell = _empty_like(item)
        elif isinstance(item, list):
            shell = []
        else:
            return item
        stack.append((item, shell))
        return shell

    root = copied(value)
    while stack:
        source, target = stack.pop()
        if isinstance(source, dict):
            for key, child in source.items():
                target[copied(key)] = copied(child)  # type: ignore[index]
        else:
            target.extend(copied(child) for child in source)  # type: ignore[union-attr]
    return root


def _empty_like(value: dict) -> dict:
    if type(value) is dict:
        return {}
    out = type(value)()  # a dict subclass (duplicate-key tracking) keeps its class and slots
    for attr in getattr(type(value), "__slots__", ()):
        setattr(out, attr, getattr(value, attr, None))
    return out
