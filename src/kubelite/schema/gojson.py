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
