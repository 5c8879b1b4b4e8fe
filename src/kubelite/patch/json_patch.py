"""RFC 6902 JSON Patch.

`apply(doc, operations)` follows the RFC strictly: the operations add, remove, replace, move,
copy and test; RFC 6901 pointers with ~0/~1 escapes; "-" appends (add only); array indexes
without leading zeros and within range; every member an operation needs must be present.
The input document is never modified: a new value is returned. `operations` is a list of
operation objects, or the JSON text of one.

`apply(doc, operations, kubectl_compat=True)` instead reproduces the library `kubectl patch
--type json` (and kube-apiserver) use, gopkg.in/evanphx/json-patch.v4 (DecodePatch + Apply),
quirks included: replace of a missing object member adds it, copy from a missing member copies
null, a missing "value" means null, negative array indexes count from the end (add at -1
appends), indexes with leading zeros or a sign are accepted, a path without a leading "/"
drops its first token, and errors carry the library's exact text. See _jsonpatch_v4.

Every failure raises JsonPatchError (a kubelite.patch.PatchError) whose message and `.path`
name the JSON Pointer of the operation; `.reason` is the bare cause and `.op_index` the
position of the operation in the patch.
"""
from __future__ import annotations

import json

from kubelite.patch import PatchError
from kubelite.patch import _pointer
from kubelite.patch._jsonvalue import deep_copy, json_equal, load_text

OPERATIONS = ("add", "remove", "replace", "move", "copy", "test")
_REQUIRED = {
    "add": ("path", "value"),
    "remove": ("path",),
    "replace": ("path", "value"),
    "move": ("from", "path"),
    "copy": ("from", "path"),
    "test": ("path", "value"),
}


class JsonPatchError(PatchError):
    """A JSON Patch operation failed. `.path` is its JSON Pointer, `.reason` the bare cause."""

    def __init__(self, reason: str, path: str | None = None, *, op_index: int | None = None,
                 op: str | None = None):
        self.reason = reason
        self.op_index = op_index
        self.op = op
        where = []
        if op_index is not None:
            where.append(f"operation {op_index}")
        if op:
            where.append(op)
        if path is not None:
            where.append(f"at {json.dumps(path)}")
        super().__init__(f"json patch {' '.join(where)}: {reason}" if where else reason)
        self.path = path


def apply(doc: object, operations: object, *, kubectl_compat: bool = False, copy_limit: int = 0) -> object:
    """Apply a JSON Patch to `doc` and return the patched copy. With kubectl_compat, `copy_limit`
    bounds the bytes copy operations may add in total (0: no bound)."""
    if isinstance(operations, (str, bytes, bytearray)):
        operations = load_text(operations, "json patch")
    try:
        if kubectl_compat:
            from kubelite.patch import _jsonpatch_v4

            return _jsonpatch_v4.apply(doc, operations, copy_limit)
        return _apply_rfc(doc, operations)
    except RecursionError:
        raise JsonPatchError("document or patch is too deeply nested", "") from None


def _apply_rfc(doc: object, operations: object) -> object:
    if not isinstance(operations, list):
        raise JsonPatchError(
            f"a JSON Patch must be an array of operations, not {_pointer.type_name(operations)}")
    doc = deep_copy(doc)
    for index, operation in enumerate(operations):
        name, members = _validate(index, operation)
        doc = _PERFORMERS[name](doc, members, _Context(index, name, members["path"]))
    return doc


class _Context:
    """Where an operation sits, to build errors that name it."""

    def __init__(self, index: int, op: str, path: str):
        self.index, self.op, self.path = index, op, path

    def error(self, reason: str) -> JsonPatchError:
        return JsonPatchError(reason, self.path, op_index=self.index, op=self.op)


def _validate(index: int, operation: object) -> tuple[str, dict]:
    if not isinstance(operation, dict):
        raise JsonPatchError(f"an operation must be an object, not {_pointer.type_name(operation)}",
                             op_index=index)
    path = operation.get("path") if isinstance(operation.get("path"), str) else None
    if "op" not in operation:
        raise JsonPatchError("missing 'op' member", path, op_index=index)
    name = operation["op"]
    if name not in OPERATIONS:
        raise JsonPatchError(f"unknown op {json.dumps(name)}", path, op_index=index)
    members = {}
    for member in _REQUIRED[name]:
        if member not in operation:
            raise JsonPatchError(f"missing '{member}' member", path, op_index=index, op=name)
        members[member] = operation[member]
    for member in ("path", "from"):
        if member in members:
            try:
                members[member + "_tokens"] = _pointer.parse(members[member])
            except _pointer.PointerSyntaxError as exc:
                raise JsonPatchError(f"invalid '{member}': {exc}", path, op_index=index,
                                     op=name) from None
    return name, members


def _resolve(doc: object, tokens: list[str], ctx: _Context) -> object:
    """The value `tokens` point to; an error naming the first pointer prefix that is missing."""
    node = doc
    for depth, token in enumerate(tokens):
        if isinstance(node, dict):
            if token not in node:
                raise ctx.error(f"{_missing(tokens, depth)} does not exist")
            node = node[token]
        elif isinstance(node, list):
            node = node[_existing_index(node, token, tokens, depth, ctx)]
        else:
            raise ctx.error(f"{_missing(tokens, depth)} does not exist: "
                            f"{json.dumps(_pointer.format(tokens[:depth]))} is a "
                            f"{_pointer.type_name(node)}, not an object or array")
    return node


def _missing(tokens: list[str], depth: int) -> str:
    return json.dumps(_pointer.format(tokens[:depth + 1]))


def _existing_index(array: list, token: str, tokens: list[str], depth: int, ctx: _Context) -> int:
    index = _pointer.array_index(token)
    if index is None:
        raise ctx.error(f"{_missing(tokens, depth)}: {json.dumps(token)} is not an array index")
    if index >= len(array):
        raise ctx.error(f"{_missing(tokens, depth)}: index {index} is out of range "
                        f"(array length {len(array)})")
    return index


def _container(doc: object, tokens: list[str], ctx: _Context) -> object:
    parent = _resolve(doc, tokens[:-1], ctx)
    if not isinstance(parent, (dict, list)):
        raise ctx.error(f"{json.dumps(_pointer.format(tokens[:-1]))} is a "
                        f"{_pointer.type_name(parent)}, not an object or array")
    return parent


def _add_value(doc: object, tokens: list[str], value: object, ctx: _Context) -> object:
    if not tokens:
        return value
    parent, last = _container(doc, tokens, ctx), tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif last == "-":
        parent.append(value)
    else:
        index = _pointer.array_index(last)
        if index is None:
            raise ctx.error(f"{json.dumps(last)} is not an array index")
        if index > len(parent):
            raise ctx.error(f"index {index} is out of range (array length {len(parent)})")
        parent.insert(index, value)
    return doc


def _remove_value(doc: object, tokens: list[str], ctx: _Context) -> object:
    if not tokens:
        raise ctx.error("cannot remove the whole document")
    parent, last = _container(doc, tokens, ctx), tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise ctx.error(f"{json.dumps(_pointer.format(tokens))} does not exist")
        del parent[last]
    else:
        del parent[_existing_index(parent, last, tokens, len(tokens) - 1, ctx)]
    return doc


def _add(doc, members, ctx):
    return _add_value(doc, members["path_tokens"], deep_copy(members["value"]), ctx)


def _remove(doc, members, ctx):
    return _remove_value(doc, members["path_tokens"], ctx)


def _replace(doc, members, ctx):
    tokens = members["path_tokens"]
    value = deep_copy(members["value"])
    if not tokens:
        return value
    _resolve(doc, tokens, ctx)
    parent = _container(doc, tokens, ctx)
    if isinstance(parent, dict):
        parent[tokens[-1]] = value
    else:
        parent[_pointer.array_index(tokens[-1])] = value
    return doc


def _move(doc, members, ctx):
    source, target = members["from_tokens"], members["path_tokens"]
    value = _resolve(doc, source, ctx)
    if source == target:
        return doc
    if target[:len(source)] == source:
        raise ctx.error(f"cannot move {json.dumps(members['from'])} into one of its own children")
    doc = _remove_value(doc, source, ctx)
    return _add_value(doc, target, value, ctx)


def _copy(doc, members, ctx):
    value = deep_copy(_resolve(doc, members["from_tokens"], ctx))
    return _add_value(doc, members["path_tokens"], value, ctx)


def _test(doc, members, ctx):
    actual = _resolve(doc, members["path_tokens"], ctx)
    if not json_equal(actual, members["value"]):
        raise ctx.error(f"test failed: the value is {_preview(actual)}, "
                        f"not {_preview(members['value'])}")
    return doc


def _preview(value: object, limit: int = 80) -> str:
    try:
        text = json.dumps(value, sort_keys=True)
    except (RecursionError, ValueError, TypeError):
        text = f"<{_pointer.type_name(value)}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


_PERFORMERS = {
    "add": _add,
    "remove": _remove,
    "replace": _replace,
    "move": _move,
    "copy": _copy,
    "test": _test,
}

__all__ = ["apply", "JsonPatchError", "OPERATIONS"]
