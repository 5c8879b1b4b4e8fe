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

from ._goplain import _WORDS, _Uint, resolve_plain
from ._goyaml_values import DecodeError, json_number, key_string


class _Decline(Exception):
    """The document has something only the full YAML reader may judge."""


NOT_BLOCK = object()

# Characters libyaml refuses, reads as line breaks (NEL, LS, PS) or as a byte order mark,
# and tabs, whose indentation rules differ from spaces'. Compiled at the first text that
# is not ASCII (re's cache keeps it): the class takes half a millisecond to compile.
_USUAL_ASCII = bytes([0x0a, *range(0x20, 0x7f)])  # (deleting these is a tenth of a search's time)
_UNUSUAL = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
# Where a literal or folded scalar may start (at worst a needless decline).
_BLOCK_SCALAR = re.compile(r"(?:^|[:-] +)[|>]", re.M)
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
# The plain scalars go-yaml reads as booleans or null whose first character is a letter or
# "~" (no number starts so): their values, and what they become as keys (None: an error).
_WORD_START = frozenset("yYnNtTfFoO~")
_WORD_VALUES = {word: value for word, value in _WORDS.items() if word[:1] in _WORD_START}
_WORD_KEYS = {word: None if value is None else "true" if value else "false" for word, value in _WORD_VALUES.items()}
_WORD_OR_STRING_START = _WORD_START | _STRING_START
# libyaml forgets a simple key's start 1024 characters on; such keys are left to it.
_LONGEST_KEY = 1000
_DEEPEST = 100


def has_unusual_characters(text: str) -> bool:
    """Whether the text has characters that the block-style reader leaves to libyaml."""
    if text.isascii():  # then the unusual ones are the control characters
        return bool(text.encode("ascii").translate(None, _USUAL_ASCII))
    return re.search(_UNUSUAL, text) is not None


def decode_block(text: str, checked: bool = False) -> object:
    """The JSON value of a block-style document, or NOT_BLOCK when it has anything else.

    ``checked``: the caller found no unusual characters in the text.
    """
    if not checked and has_unusual_characters(text):
        return NOT_BLOCK
    if ("|" in text or ">" in text) and _BLOCK_SCALAR.search(text):
        return NOT_BLOCK  # before the lines of a long literal are split for nothing
    if not text.endswith("\n"):
        text += "\n"
    try:
        return _parse(_LINE.findall(text))
    except _Decline:
        return NOT_BLOCK


# Every line, split in C: its indent, a "- " item mark, a key of the usual characters with
# its ":" and whatever follows (with any trailing spaces). Anything unusual stays in the
# last part, for _entry and _value to read. The text must end with a line break.
_LINE = re.compile(r"( *)(-(?: +|(?=\n)))?(?:([A-Za-z0-9_/][A-Za-z0-9_./-]{0,899}) {0,99}:(?: +|(?=\n)))?(.*)\n")


def _parse(lines: list[tuple[str, str, str, str]]) -> object:
    # The innermost open collection: its indent, itself, whether it is a sequence and
    # whether that sequence is indentless (a mapping value whose "- " items sit at the
    # mapping's own indent); the ones around it wait on the stack.
    at, container, is_seq, indentless = -1, None, False, False
    stack: list[tuple[int, object, bool, bool]] = []
    root: object = None
    # An entry with nothing after "key:" or "-" yet: (container, key, indent, is mapping value).
    pending = None
    for indent, item, key, rest in lines:
        if key:
            if key[0] in _RESOLVABLE:
                key = _word_key(key) if key[0] in _WORD_START else _plain_key(key)
        elif not item and (not rest or rest[0] == "#"):
            continue  # a blank or comment line
        n = len(indent)
        if pending is not None:
            into, pending_key, owner, map_value = pending
            pending = None
            if n > owner or (map_value and n == owner and item):
                if len(stack) > _DEEPEST:
                    raise _Decline
                new: object = [] if item else {}
                into[pending_key] = new  # type: ignore[index]
                stack.append((at, container, is_seq, indentless))
                at, container, is_seq, indentless = n, new, bool(item), n == owner
        elif at < 0:
            root = container = [] if item else {}
            at, is_seq = n, bool(item)
        while at > n:
            if not stack:
                raise _Decline
            at, container, is_seq, indentless = stack.pop()
        if at != n:
            raise _Decline  # a continuation line, or indentation libyaml refuses
        if is_seq and item:
            if not key:
                if not rest or rest[0] == "#":
                    container.append(None)  # type: ignore[union-attr]
                    pending = (container, len(container) - 1, n, False)  # type: ignore[arg-type]
                    continue
                if rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
                    raise _Decline  # "- - x"
                key, rest = _entry(rest)
                if key is None:
                    container.append(_value(rest))  # type: ignore[union-attr]
                    continue
            if len(stack) > _DEEPEST:
                raise _Decline
            # an item that is a mapping, with its keys at the column after "- "
            mapping: dict = {}
            container.append(mapping)  # type: ignore[union-attr]
            stack.append((at, container, is_seq, indentless))
            n += len(item)
            at, container, is_seq, indentless = n, mapping, False, False
        else:
            if is_seq:
                if not indentless:
                    raise _Decline
                at, container, is_seq, indentless = stack.pop()  # a key of the mapping that owns it
            elif item:
                raise _Decline
            if not key:  # one the line pattern did not take: quoted, or of unusual characters
                if n == 0 and rest[:3] in ("---", "..."):
                    raise _Decline  # document markers
                key, rest = _entry(rest)
                if key is None:
                    raise _Decline  # a scalar where a key belongs
        if not rest or rest[0] == "#":
            container[key] = None  # type: ignore[index]
            pending = (container, key, n, True)
        elif rest[0] in _WORD_OR_STRING_START and ": " not in rest and " #" not in rest and rest[-1] not in ": ":
            container[key] = _WORD_VALUES.get(rest, rest)  # type: ignore[index]
        else:
            container[key] = _value(rest)  # type: ignore[index]
    return root


def _word_key(text: str) -> str:
    key = _WORD_KEYS.get(text, text)
    if key is None:
        raise _Decline  # go-yaml's error, with its line
    return key


def _plain_key(text: str) -> str:
    resolved = resolve_plain(text)
    if resolved is None or isinstance(resolved, _Uint):
        raise _Decline  # go-yaml's error, with its line
    return key_string(resolved, None)


def _entry(text: str) -> tuple[str | None, str]:
    """(key, what follows "key:") when the text starts with a key, else (None, text)."""
    text = text.rstrip(" ")
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
    if first in _WORD_START:
        key = _word_key(key)
    elif first in _RESOLVABLE:
        key = _plain_key(key)
    elif key == "<<":
        raise _Decline  # a merge key
    return key, text[sep + 1:].lstrip(" ")


def _value(text: str) -> object:
    """The value of a scalar, ``{}`` or ``[]`` that is all there is on the rest of the line."""
    text = text.rstrip(" ")
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
    if first in _WORD_START:
        return _WORD_VALUES.get(text, text)
    if text.isdigit() and first != "0" and len(text) < 19 and text.isascii():
        return int(text)  # a decimal int64 (a leading 0 is octal)
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
