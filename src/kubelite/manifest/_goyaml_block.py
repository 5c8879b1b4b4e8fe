"""A fast reader for the YAML that manifests are mostly written in, without PyYAML.

Most documents are block mappings and sequences of scalars: what kubectl and most tools
print. Such a document is read here line by line (one pattern splits every line in C),
with go-yaml v2's scalar resolution, in a fraction of what building libyaml's node tree
in Python costs, and without importing PyYAML. Plain and single-quoted scalars may go on
over several lines, literal scalars (``|``, ``|-``) are read as libyaml reads them.
Anything else (folded scalars, ``|+`` and indentation indicators, double quotes over
lines, flow collections other than ``{}`` and ``[]``, anchors, aliases,
tags, merge keys, tabs, anything libyaml would refuse) is declined: :func:`decode_block`
returns ``NOT_BLOCK`` and the libyaml reader decides, so errors and unusual documents
keep their one source of truth.
"""
from __future__ import annotations

import re

from ._goyaml_scalars import (DEEPEST, GOES_ON, RESOLVABLE, WORD_OR_STRING_START, WORD_START, WORD_VALUES, Decline,
                              entry, fold, later_lines, plain_key, value_of, word_key)

NOT_BLOCK = object()

# Characters libyaml refuses, reads as line breaks (NEL, LS, PS) or as a byte order mark,
# and tabs, whose indentation rules differ from spaces'. Compiled at the first text that
# is not ASCII (re's cache keeps it): the class takes half a millisecond to compile.
_USUAL_ASCII = bytes([0x0a, *range(0x20, 0x7f)])  # (deleting these is a tenth of a search's time)
_UNUSUAL = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
# Where a folded scalar may start (at worst a needless decline).
_FOLDED = re.compile(r"(?:^|[:-] +)>", re.M)


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
    if ">" in text and _FOLDED.search(text):
        return NOT_BLOCK  # before the lines of a long folded scalar are split for nothing
    try:
        return _parse(_LINE.findall(text if text.endswith("\n") else text + "\n"), text)
    except Decline:
        return NOT_BLOCK


# Every line, split in C: its indent, a "- " item mark, a key of the usual characters with
# its ":" and whatever follows (with any trailing spaces). Anything unusual stays in the
# last part, for entry and value_of to read. The text must end with a line break.
_LINE = re.compile(r"( *)(-(?: +|(?=\n)))?(?:([A-Za-z0-9_/][A-Za-z0-9_./-]{0,899}) {0,99}:(?: +|(?=\n)))?(.*)\n")


def _parse(lines: list[tuple[str, str, str, str]], text: str) -> object:
    # The innermost open collection: its indent, itself, whether it is a sequence and
    # whether that sequence is indentless (a mapping value whose "- " items sit at the
    # mapping's own indent); the ones around it wait on the stack.
    at, container, is_seq, indentless = -1, None, False, False
    stack: list[tuple[int, object, bool, bool]] = []
    root: object = None
    # An entry with nothing after "key:" or "-" yet: (container, key, indent, is mapping value).
    pending = None
    numbered = enumerate(lines)
    for number, (indent, item, key, rest) in numbered:
        if key:
            if key[0] in RESOLVABLE:
                key = word_key(key) if key[0] in WORD_START else plain_key(key)
        elif not item and (not rest or rest[0] == "#"):
            continue  # a blank or comment line
        n = len(indent)
        if pending is not None:
            into, pending_key, owner, map_value = pending
            pending = None
            if n > owner or (map_value and n == owner and item):
                if len(stack) > DEEPEST:
                    raise Decline
                new: object = [] if item else {}
                into[pending_key] = new  # type: ignore[index]
                stack.append((at, container, is_seq, indentless))
                at, container, is_seq, indentless = n, new, bool(item), n == owner
        elif at < 0:
            root = container = [] if item else {}
            at, is_seq = n, bool(item)
        while at > n:
            if not stack:
                raise Decline
            at, container, is_seq, indentless = stack.pop()
        if at != n:
            # deeper than the line before: that line's plain scalar goes on here (or libyaml refuses)
            for _ in range(fold(lines, number, at, container, is_seq) - number - 1):
                next(numbered)
            continue
        if is_seq and item:
            if not key:
                if not rest or rest[0] == "#":
                    container.append(None)  # type: ignore[union-attr]
                    pending = (container, len(container) - 1, n, False)  # type: ignore[arg-type]
                    continue
                if rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
                    raise Decline  # "- - x"
                key, rest = entry(rest)
                if key is None:
                    value = value_of(rest)
                    if value is GOES_ON:
                        value, end = later_lines(lines, number, at, rest, text)
                        for _ in range(end - number - 1):
                            next(numbered)
                    container.append(value)  # type: ignore[union-attr]
                    continue
            if len(stack) > DEEPEST:
                raise Decline
            # an item that is a mapping, with its keys at the column after "- "
            mapping: dict = {}
            container.append(mapping)  # type: ignore[union-attr]
            stack.append((at, container, is_seq, indentless))
            n += len(item)
            at, container, is_seq, indentless = n, mapping, False, False
        else:
            if is_seq:
                if not indentless:
                    raise Decline
                at, container, is_seq, indentless = stack.pop()  # a key of the mapping that owns it
            elif item:
                raise Decline
            if not key:  # one the line pattern did not take: quoted, or of unusual characters
                if n == 0 and rest[:3] in ("---", "..."):
                    raise Decline  # document markers
                key, rest = entry(rest)
                if key is None:
                    raise Decline  # a scalar where a key belongs
        if not rest or rest[0] == "#":
            container[key] = None  # type: ignore[index]
            pending = (container, key, n, True)
        elif rest[0] in WORD_OR_STRING_START and ": " not in rest and " #" not in rest and rest[-1] not in ": ":
            container[key] = WORD_VALUES.get(rest, rest)  # type: ignore[index]
        else:
            value = value_of(rest)
            if value is GOES_ON:
                value, end = later_lines(lines, number, at, rest, text)
                for _ in range(end - number - 1):
                    next(numbered)
            container[key] = value  # type: ignore[index]
    return root


