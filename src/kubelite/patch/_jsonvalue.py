"""Helpers on plain JSON values (dict/list/str/int/float/bool/None) that never recurse.

Documents may be nested tens of thousands of levels deep; Python's own copy.deepcopy and ==
recurse and would raise RecursionError, so these walk with an explicit stack.
"""
from __future__ import annotations

import json

from kubelite.patch import PatchError


def deep_copy(value: object) -> object:
    """A copy of a JSON value sharing no dict or list with the original."""
    if not isinstance(value, (dict, list)):
        return value
    root = {} if isinstance(value, dict) else []
    stack = [(value, root)]
    while stack:
        source, target = stack.pop()
        if isinstance(source, dict):
            for key, child in source.items():
                if isinstance(child, (dict, list)):
                    child_copy = {} if isinstance(child, dict) else []
                    stack.append((child, child_copy))
                    child = child_copy
                target[key] = child
        else:
            append = target.append
            for child in source:
                if isinstance(child, (dict, list)):
                    child_copy = {} if isinstance(child, dict) else []
                    stack.append((child, child_copy))
                    child = child_copy
                append(child)
    return root


def json_equal(a: object, b: object) -> bool:
    """JSON equality: same types (booleans are not numbers), numbers by value, any key order."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict):
            if not isinstance(y, dict) or x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif not scalar_equal(x, y):
            return False
    return True


def scalar_equal(x: object, y: object) -> bool:
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if is_number(x) or is_number(y):
        return is_number(x) and is_number(y) and x == y
    return type(x) is type(y) and x == y


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_kind(a: object, b: object) -> bool:
    """Whether two values have the same JSON type (int and float are both numbers)."""
    if is_number(a) and is_number(b):
        return True
    return type(a) is type(b)


def load_text(text: str | bytes | bytearray, what: str) -> object:
    """Parse JSON text given for `what` ("patch", "document"), raising PatchError on failure."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PatchError(f"{what} is not valid UTF-8: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PatchError(f"{what} is not valid JSON: {exc}") from None
    except RecursionError:
        raise PatchError(f"{what} is too deeply nested to parse") from None
