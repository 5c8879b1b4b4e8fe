"""JSON Patch as gopkg.in/evanphx/json-patch.v4 (v4.12.0) applies it: what `kubectl patch
--type json` and kube-apiserver run. Written from a reading of that library's behaviour.

How it departs from RFC 6902:
- Object members are looked up without an existence check, so replace of a missing member
  adds it, copy from a missing member copies null, test of a missing member equals null.
  Only remove (and move, which removes) fail on a missing member.
- A missing "value" is taken as null (add/replace); for test it fails, or crashes kubectl when
  the target is null too.
- Array indexes are parsed like Go's strconv.Atoi: leading zeros and a sign are accepted, and
  a negative index counts from the end (add at -1 appends, because it counts from the end of
  the array one longer).
- A pointer is split on "/" and its first piece dropped, so "a/b" acts as "/b"; "" names the
  whole document only for replace (object/array values only, others ignored) and test.
- Errors are the library's own text (`str(err)`), e.g. "error in remove for path: '/a':
  Unable to remove nonexistent key: a: missing value"; `kubectl_message()` is the text kubectl
  prints after "error: ".

Go distinguishes a missing/null member (a nil node) from a node whose raw value is null (an
add with "value": null); traversing the latter crashes kubectl, and a copy of it compares equal
to {} in a later test. Two sentinels keep that difference while the patch runs.
"""
from __future__ import annotations

import json
import re

from kubelite.patch._jsonvalue import deep_copy, scalar_equal
from kubelite.patch.json_patch import JsonPatchError
from kubelite.schema.gojson import json_kind


class _Sentinel:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


# A node holding an operation's explicit JSON null (Go: lazyNode with a nil raw message).
OP_NULL = _Sentinel("OP_NULL")
# A deep copy of OP_NULL (Go: raw "null", which decodes as an empty, read-only object).
COPIED_NULL = _Sentinel("COPIED_NULL")

_NIL_DEREFERENCE = "panic: runtime error: invalid memory address or nil pointer dereference"
_ATOI = re.compile(r"[+-]?[0-9]+")
_INT64_MAX = 2**63 - 1


class KubectlJsonPatchError(JsonPatchError):
    """An error of the v4 library. str() is its exact text; `.panic` marks a kubectl crash."""

    def __init__(self, message: str, path: str | None, reason: str, *, op_index: int | None = None,
                 op: str | None = None, panic: bool = False):
        JsonPatchError.__init__(self, reason, path, op_index=op_index, op=op)
        self.args = (message,)
        self.message = message
        self.panic = panic

    def __str__(self) -> str:
        return self.message

    def kubectl_message(self) -> str:
        """What kubectl prints after "error: " (it rewrites "doc is missing key" errors)."""
        if "doc is missing key" in self.message:
            key = self.message[self.message.index("key:") + 5:]
            return f"Object to be patched is missing field ({key})"
        return self.message


class _Failure(Exception):
    """Internal: the library returned an error (message, reason) or crashed."""

    def __init__(self, message: str, reason: str, panic: bool = False):
        super().__init__(message)
        self.message, self.reason, self.panic = message, reason, panic


def _crash(detail: str = _NIL_DEREFERENCE) -> _Failure:
    return _Failure(detail, "kubectl crashes (Go panic)", panic=True)


def apply(doc: object, operations: object, copy_limit: int = 0) -> object:
    """`copy_limit` > 0 bounds the bytes all copy operations may add (the library's
    AccumulatedCopySizeLimit, which kube-apiserver sets to 3 MiB)."""
    operations = _decode_patch(operations)
    budget = [0, copy_limit] if copy_limit > 0 else None
    root = deep_copy(doc)
    if not isinstance(root, (dict, list)):
        if root is not None:
            raise KubectlJsonPatchError(
                f"json: cannot unmarshal {json_kind(root)} into Go value of type "
                "jsonpatch.partialDoc", "", "the document is not an object or array")
        root = COPIED_NULL  # Go decodes a null document into a nil map.
    for index, operation in enumerate(operations):
        kind = _kind(operation)
        try:
            if kind == "copy":
                root = _op_copy(root, operation, budget)
            else:
                root = _OPERATIONS.get(kind, _unknown)(root, operation)
        except _Failure as failure:
            path = operation.get("path") if isinstance(operation.get("path"), str) else None
            raise KubectlJsonPatchError(failure.message, path, failure.reason, op_index=index,
                                        op=kind, panic=failure.panic) from None
    return _plain(root)


def _decode_patch(operations: object) -> list[dict]:
    if operations is None:
        return []
    if not isinstance(operations, list):
        raise KubectlJsonPatchError(
            f"json: cannot unmarshal {json_kind(operations)} into Go value of type "
            "jsonpatch.Patch", None, "the patch is not an array")
    decoded = []
    for index, operation in enumerate(operations):
        if operation is None:
            operation = {}
        if not isinstance(operation, dict):
            raise KubectlJsonPatchError(
                f"json: cannot unmarshal {json_kind(operation)} into Go value of type "
                "jsonpatch.Operation", None, "an operation is not an object", op_index=index)
        decoded.append(operation)
    return decoded


def _plain(value: object) -> object:
    """The patched tree with the sentinels turned back into null."""
    if value is OP_NULL or value is COPIED_NULL:
        return None
    stack = [value]
    while stack:
        node = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for key in keys:
            child = node[key]
            if child is OP_NULL or child is COPIED_NULL:
                node[key] = None
            elif isinstance(child, (dict, list)):
                stack.append(child)
    return value


# ---- operation members -------------------------------------------------------------------

_MISSING = "missing value"


def _kind(operation: dict) -> str:
    op = operation.get("op")
    return op if isinstance(op, str) else "unknown"


def _string_member(operation: dict, name: str, missing: str) -> str:
    value = operation.get(name)
    if value is None:
        raise _Failure(f"{missing}: {_MISSING}", f"missing '{name}'")
    if not isinstance(value, str):
        raise _Failure(f"json: cannot unmarshal {json_kind(value)} into Go value of type "
                       "string", f"'{name}' is not a string")
    return value


def _path(operation: dict) -> str:
    return _string_member(operation, "path", "operation missing path field")


def _from(operation: dict) -> str:
    return _string_member(operation, "from", "operation, missing from field")


def _value(operation: dict) -> object:
    """The operation's value node: None when absent (Go nil), OP_NULL for an explicit null."""
    if "value" not in operation:
        return None
    value = operation["value"]
    return OP_NULL if value is None else deep_copy(value)


def _wrap(prefix: str, failure: _Failure) -> _Failure:
    return _Failure(f"{prefix}: {failure.message}", failure.reason, failure.panic)


# ---- containers ---------------------------------------------------------------------------

def _decode_key(token: str) -> str:
    return re.sub(r"~[01]", lambda m: "/" if m.group() == "~1" else "~", token)


def _atoi(key: str) -> int:
    quoted = json.dumps(key, ensure_ascii=False)
    if not _ATOI.fullmatch(key):
        raise _Failure(f"strconv.Atoi: parsing {quoted}: invalid syntax", "bad array index")
    number = int(key)
    if not -_INT64_MAX - 1 <= number <= _INT64_MAX:
        raise _Failure(f"strconv.Atoi: parsing {quoted}: value out of range", "bad array index")
    return number


def _invalid_index(index: int) -> _Failure:
    return _Failure(f"Unable to access invalid index: {index}: invalid index referenced",
                    "array index out of range")


def _from_end(index: int, length: int) -> int:
    """A negative index counted from the end, as the library allows."""
    if index < -length:
        raise _invalid_index(index)
    return index + length


def _get(container: object, key: str) -> object:
    if isinstance(container, dict):
        return container.get(key)
    if container is COPIED_NULL:
        return None
    index = _atoi(key)
    if index < 0:
        index = _from_end(index, len(container))
    if index >= len(container):
        raise _invalid_index(index)
    return container[index]


def _set(container: object, key: str, value: object) -> None:
    if isinstance(container, list):
        index = _atoi(key)
        if index < 0:
            index = _from_end(index, len(container))
        container[index] = value
    else:
        _add(container, key, value)


def _add(container: object, key: str, value: object) -> None:
    if container is COPIED_NULL:
        raise _crash("panic: assignment to entry in nil map")
    if isinstance(container, dict):
        container[key] = value
        return
    if key == "-":
        container.append(value)
        return
    try:
        index = _atoi(key)
    except _Failure as failure:
        raise _wrap(f"value was not a proper array index: '{key}'", failure) from None
    length = len(container) + 1
    if index >= length:
        raise _invalid_index(index)
    if index < 0:
        index = _from_end(index, length)
    container.insert(index, value)


def _remove(container: object, key: str) -> None:
    if not isinstance(container, list):
        if container is COPIED_NULL or key not in container:
            raise _Failure(f"Unable to remove nonexistent key: {key}: {_MISSING}",
                           "member does not exist")
        del container[key]
        return
    index = _atoi(key)
    if index >= len(container):
        raise _invalid_index(index)
    if index < 0:
        index = _from_end(index, len(container))
    del container[index]


def _find_object(root: object, path: str) -> tuple[object, str] | None:
    """The container holding the last token of `path` and that token, or None if missing."""
    pieces = path.split("/")
    if len(pieces) < 2:
        return None
    container = root
    for piece in pieces[1:-1]:
        try:
            child = _get(container, _decode_key(piece))
        except _Failure:
            return None
        if child is None:
            return None
        if child is OP_NULL:
            raise _crash()
        if not (isinstance(child, (dict, list)) or child is COPIED_NULL):
            return None
        container = child
    return container, _decode_key(pieces[-1])


def _missing_path(message: str) -> _Failure:
    return _Failure(f"{message}: {_MISSING}", "path does not exist")


# ---- equality (lazyNode.equal) ------------------------------------------------------------

def _equal(node: object, other: object) -> bool:
    """Whether document node `node` equals operation value `other` the way the library judges."""
    if node is None or other is None:
        raise _crash()
    if isinstance(node, dict) or node is COPIED_NULL:
        if not isinstance(other, dict):
            return False
        members = {} if node is COPIED_NULL else node
        if len(members) != len(other):
            return False
        for key, value in members.items():
            if key not in other:
                return False
            theirs = other[key]
            if (value is None) != (theirs is None):
                return False
            if value is not None and not _equal(value, theirs):
                return False
        return True
    if isinstance(node, list):
        if not isinstance(other, list) or len(node) != len(other):
            return False
        return all(_equal(mine, theirs) for mine, theirs in zip(node, other))
    # A scalar, or OP_NULL: compared as compact JSON text.
    if node is OP_NULL or other is OP_NULL:
        return node is other
    if isinstance(other, (dict, list)) or other is COPIED_NULL:
        return False
    return scalar_equal(node, other)


# ---- operations ---------------------------------------------------------------------------

def _op_add(root, operation):
    try:
        path = _path(operation)
    except _Failure as failure:
        raise _Failure(f"add operation failed to decode path: {_MISSING}", failure.reason)
    found = _find_object(root, path)
    if found is None:
        raise _missing_path(f'add operation does not apply: doc is missing path: "{path}"')
    try:
        _add(*found, _value(operation))
    except _Failure as failure:
        raise _wrap(f"error in add for path: '{path}'", failure) from None
    return root


def _op_remove(root, operation):
    try:
        path = _path(operation)
    except _Failure as failure:
        raise _Failure(f"remove operation failed to decode path: {_MISSING}", failure.reason)
    found = _find_object(root, path)
    if found is None:
        raise _missing_path(f'remove operation does not apply: doc is missing path: "{path}"')
    try:
        _remove(*found)
    except _Failure as failure:
        raise _wrap(f"error in remove for path: '{path}'", failure) from None
    return root


def _op_replace(root, operation):
    try:
        path = _path(operation)
    except _Failure as failure:
        raise _wrap("replace operation failed to decode path", failure) from None
    if path == "":
        value = _value(operation)
        if value is None:
            raise _crash()
        # Values other than objects and arrays are ignored (the library wraps a nil error).
        return value if isinstance(value, (dict, list)) else root
    found = _find_object(root, path)
    if found is None:
        raise _missing_path(f"replace operation does not apply: doc is missing path: {path}")
    try:
        _get(*found)
    except _Failure as failure:
        raise _Failure(f"replace operation does not apply: doc is missing key: {path}: "
                       f"{_MISSING}", failure.reason) from None
    try:
        _set(*found, _value(operation))
    except _Failure as failure:
        raise _wrap(f"error in remove for path: '{path}'", failure) from None
    return root


def _op_move(root, operation):
    try:
        source = _from(operation)
    except _Failure as failure:
        raise _wrap("move operation failed to decode from", failure) from None
    found = _find_object(root, source)
    if found is None:
        raise _missing_path(f"move operation does not apply: doc is missing from path: {source}")
    container, key = found
    try:
        value = _get(container, key)
        _remove(container, key)
    except _Failure as failure:
        raise _wrap(f"error in move for path: '{key}'", failure) from None
    try:
        path = _path(operation)
    except _Failure as failure:
        raise _wrap("move operation failed to decode path", failure) from None
    found = _find_object(root, path)
    if found is None:
        raise _missing_path(
            f"move operation does not apply: doc is missing destination path: {path}")
    try:
        _add(*found, value)
    except _Failure as failure:
        raise _wrap(f"error in move for path: '{path}'", failure) from None
    return root


def _op_test(root, operation):
    try:
        path = _path(operation)
    except _Failure as failure:
        raise _wrap("test operation failed to decode path", failure) from None
    expected = _value(operation)
    failed = _Failure(f"testing value {path} failed: test failed", "test failed")
    if path == "":
        if not _equal(root, expected):
            raise failed
        return root
    found = _find_object(root, path)
    if found is None:
        raise _missing_path(f"test operation does not apply: is missing path: {path}")
    try:
        actual = _get(*found)
    except _Failure as failure:
        raise _wrap(f"error in test for path: '{path}'", failure) from None
    if actual is None:
        if expected is None:
            raise _crash()
        if expected is not OP_NULL:
            raise failed
    elif expected is None or not _equal(actual, expected):
        raise failed
    return root


def _op_copy(root, operation, budget: list[int] | None = None):
    try:
        source = _from(operation)
    except _Failure as failure:
        raise _wrap("copy operation failed to decode from", failure) from None
    found = _find_object(root, source)
    if found is None:
        raise _missing_path(f"copy operation does not apply: doc is missing from path: {source}")
    try:
        value = _get(*found)
    except _Failure as failure:
        raise _wrap(f"error in copy for from: '{source}'", failure) from None
    try:
        path = _path(operation)
    except _Failure as failure:
        raise _Failure(f"copy operation failed to decode path: {_MISSING}", failure.reason)
    found = _find_object(root, path)
    if found is None:
        raise _missing_path(
            f"copy operation does not apply: doc is missing destination path: {path}")
    if budget is not None:
        _spend(budget, value)  # before copying: a refused copy costs no copy
    copied = _go_deep_copy(value)
    try:
        _add(*found, copied)
    except _Failure as failure:
        raise _wrap("error while adding value during copy", failure) from None
    return root


def _go_deep_copy(value: object) -> object:
    """The library copies by marshalling: nested raw nulls become plain nulls, a top-level one
    becomes the raw text "null"."""
    if value is OP_NULL or value is COPIED_NULL:
        return COPIED_NULL
    return _plain(deep_copy(value))


def _spend(budget: list[int], copied: object) -> None:
    """Count a copy's marshalled size against [spent, limit]; the library's error past the limit."""
    budget[0] += _marshalled_size(copied)
    if budget[0] > budget[1]:
        raise _Failure(f"Unable to complete the copy, the accumulated size increase of copy is {budget[0]}, "
                       f"exceeding the limit {budget[1]}", "copies exceed the size limit")


def _marshalled_size(value: object) -> int:
    """The size of the value's copy as the library marshals it (its nulls, sentinels or not, as null)."""
    if value is OP_NULL or value is COPIED_NULL:
        return 4
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_null)
    # encoding/json writes <, > and & as \u003c-style escapes (5 bytes more each).
    return len(text.encode()) + 5 * sum(text.count(ch) for ch in "<>&")


def _null(value: object) -> None:
    if value is OP_NULL or value is COPIED_NULL:
        return None
    raise TypeError(f"not a JSON value: {value!r}")


def _unknown(root, operation):
    raise _Failure(f"Unexpected kind: {_kind(operation)}", "unknown op")


_OPERATIONS = {
    "add": _op_add,
    "remove": _op_remove,
    "replace": _op_replace,
    "move": _op_move,
    "test": _op_test,
    "copy": _op_copy,
}
