"""A fast reader for the YAML that manifests are mostly written in, without PyYAML.

Most documents are block mappings and sequences of one-line scalars: what kubectl and
most tools print. Such a document is read here line by line, with go-yaml v2's scalar
resolution, in a fraction of what building libyaml's node tree in Python costs, and
without importing PyYAML. Anything else (block, folded or multi-line scalars, flow
collections other than ``{}`` and ``[]``, anchors, tags, escapes, tabs, merge keys,
anything libyaml would refuse) is declined: :func:`decode_block` returns ``NOT_BLOCK``
and the libyaml reader decides, so errors and unusual documents keep their one source
of truth.
"""
from __future__ import annotations

import re

from ._goplain import _Uint, resolve_plain
from ._goyaml_values import DecodeError, json_number, key_string


class _Decline(Exception):
    """The document has something only the full YAML reader may judge."""


NOT_BLOCK = object()

# Characters libyaml refuses, reads as line breaks (NEL, LS, PS) or as a byte order mark,
# and tabs, whose indentation rules differ from spaces'.
_UNUSUAL = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_SINGLE = re.compile(r"'([^']*(?:''[^']*)*)'")
_DOUBLE = re.compile(r'"([^"\\]*)"')

# Indicators that start something other than a plain scalar (flow collections, comments,
# anchors, aliases, tags, block scalars, quotes, directives, reserved).
_NOT_PLAIN = frozenset(",[]{}#&*!|>'\"%@`")
# "-", "?" and ":" start a plain scalar only when a non-space follows.
_INDICATOR_IF_SPACED = frozenset("-?:")
# First characters of the plain scalars go-yaml may resolve to something other than a string.
_RESOLVABLE = frozenset("yYnNtTfFoO~.+-0123456789")
# First characters of the plain scalars that are strings whatever follows.
_STRING_START = frozenset(chr(c) for c in range(0x21, 0x7f)) - _NOT_PLAIN - _INDICATOR_IF_SPACED - _RESOLVABLE
# libyaml forgets a simple key's start 1024 characters on; such keys are left to it.
_LONGEST_KEY = 1000
_DEEPEST = 100


def decode_block(text: str) -> object:
    """The JSON value of a block-style document, or NOT_BLOCK when it has anything else."""
    if _UNUSUAL.search(text):
        return NOT_BLOCK
    try:
        return _parse(_LINE.findall(text))
    except _Decline:
        return NOT_BLOCK


# Every line, split in C: its indent, a "- " item mark, a key of the usual characters with
# its ":" and whatever follows (trailing spaces dropped). Anything unusual stays in the last
# part, for _entry and _value to read.
_LINE = re.compile(r"^( *)(-(?: +|$))?(?:([A-Za-z0-9_/][A-Za-z0-9_./-]{0,899}) {0,99}:(?: +|$))?((?:.*[^ \n])?) *$", re.M)


def _parse(lines: list[tuple[str, str, str, str]]) -> object:
    # A frame is (indent, container, is_sequence, indentless): an indentless sequence is
    # a mapping value whose "- " items sit at the mapping's own indent.
    stack: list[tuple[int, object, bool, bool]] = []
    root: object = None
    # An entry with nothing after "key:" or "-" yet: (container, key, indent, is mapping value).
    pending = None
    for indent, item, key, rest in lines:
        if not key and not item and (not rest or rest[0] == "#"):
            continue  # a blank or comment line
        n = len(indent)
        if pending is not None:
            container, pending_key, owner, map_value = pending
            pending = None
            if n > owner or (map_value and n == owner and item):
                if len(stack) > _DEEPEST:
                    raise _Decline
                new: object = [] if item else {}
                container[pending_key] = new  # type: ignore[index]
                stack.append((n, new, bool(item), n == owner))
        elif not stack:
            root = [] if item else {}
            stack.append((n, root, bool(item), False))
        frame = stack[-1]
        while frame[0] > n:
            stack.pop()
            if not stack:
                raise _Decline
            frame = stack[-1]
        if frame[0] != n:
            raise _Decline  # a continuation line, or indentation libyaml refuses
        if frame[2]:
            if item:
                pending = _item(n, n + len(item), key, rest, frame[1], stack)  # type: ignore[arg-type]
                continue
            if not frame[3]:
                raise _Decline
            stack.pop()  # a key of the mapping that owns the indentless sequence
            frame = stack[-1]
        elif item:
            raise _Decline
        if key:
            if key[0] in _RESOLVABLE:
                key = _plain_key(key)
        else:
            if n == 0 and rest[:3] in ("---", "..."):
                raise _Decline  # document markers
            key, rest = _entry(rest)
            if key is None:
                raise _Decline  # a scalar where a key belongs
        mapping = frame[1]
        if not rest or rest[0] == "#":
            mapping[key] = None  # type: ignore[index]
            pending = (mapping, key, n, True)
        elif rest[0] in _STRING_START and ": " not in rest and " #" not in rest and rest[-1] != ":":
            mapping[key] = rest  # type: ignore[index]
        else:
            mapping[key] = _value(rest)  # type: ignore[index]
    return root


def _item(n: int, column: int, key: str, rest: str, seq: list, stack: list) -> tuple | None:
    """Adds the item of a "- " line at indent n; returns the pending entry it leaves, if any."""
    if not key:
        if not rest or rest[0] == "#":
            seq.append(None)
            return (seq, len(seq) - 1, n, False)
        if rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
            raise _Decline  # "- - x"
        key, rest = _entry(rest)
        if key is None:
            seq.append(_value(rest))
            return None
    elif key[0] in _RESOLVABLE:
        key = _plain_key(key)
    if len(stack) > _DEEPEST:
        raise _Decline
    mapping = {key: None}
    seq.append(mapping)
    stack.append((column, mapping, False, False))
    if not rest or rest[0] == "#":
        return (mapping, key, column, True)
    mapping[key] = _value(rest)
    return None


def _plain_key(text: str) -> str:
    resolved = resolve_plain(text)
    if resolved is None or isinstance(resolved, _Uint):
        raise _Decline  # go-yaml's error, with its line
    return key_string(resolved, None)


def _entry(text: str) -> tuple[str | None, str]:
    """(key, what follows "key:") when the text starts with a key, else (None, text)."""
    first = text[0]
    if first == "'" or first == '"':
        quoted, end = _quoted(text)
        after = text[end:].lstrip(" ")
        if after[:1] == ":" and (len(after) == 1 or after[1] == " "):
            if end > _LONGEST_KEY:
                raise _Decline
            return quoted, after[1:].lstrip(" ")
        return None, text
    sep = text.find(": ")
    if sep < 0:
        if text[-1] != ":":
            return None, text
        sep = len(text) - 1
    comment = text.find(" #")
    if 0 <= comment < sep:
        return None, text
    if first in _NOT_PLAIN or (first in _INDICATOR_IF_SPACED and text[1:2] in (" ", "")) or sep > _LONGEST_KEY:
        raise _Decline
    key = text[:sep].rstrip(" ")
    if first in _RESOLVABLE:
        key = _plain_key(key)
    elif key == "<<":
        raise _Decline  # a merge key
    return key, text[sep + 1:].lstrip(" ")


def _value(text: str) -> object:
    """The value of a scalar, ``{}`` or ``[]`` that is all there is on the rest of the line."""
    first = text[0]
    if first == "'" or first == '"':
        quoted, end = _quoted(text)
        if not _only_comment(text[end:]):
            raise _Decline
        return quoted
    if first == "{" or first == "[":
        if text[1:2] == ("}" if first == "{" else "]") and _only_comment(text[2:]):
            return {} if first == "{" else []
        raise _Decline
    if first in _NOT_PLAIN or (first in _INDICATOR_IF_SPACED and (len(text) == 1 or text[1] == " ")):
        raise _Decline
    comment = text.find(" #")
    if comment >= 0:
        text = text[:comment].rstrip(" ")
    if ": " in text or text[-1] == ":":
        raise _Decline  # "mapping values are not allowed in this context"
    if first not in _RESOLVABLE:
        return text
    resolved = resolve_plain(text)
    if resolved.__class__ is str:
        return resolved
    try:
        return json_number(resolved)
    except DecodeError:
        raise _Decline from None  # the full reader reports it, after any syntax error


def _only_comment(rest: str) -> bool:
    """Whether what follows a value on its line is nothing or a comment (which needs a space)."""
    return not rest or (rest[0] == " " and rest.lstrip(" ")[:1] == "#")


def _quoted(text: str) -> tuple[str, int]:
    """A one-line quoted scalar without escapes at the start of text, and where it ends."""
    single = text[0] == "'"
    match = (_SINGLE if single else _DOUBLE).match(text)
    if match is None:
        raise _Decline
    value = match.group(1)
    if single and "''" in value:
        value = value.replace("''", "'")
    return value, match.end()
