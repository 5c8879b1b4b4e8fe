"""Recursion room for documents as deep as Go's decoders accept (encoding/json: 10,000 levels).

A module of its own so that every command can ask for it without importing a decoder."""
from __future__ import annotations

import sys

MAX_DEPTH = 10000  # encoding/json's nesting limit: deeper documents are a syntax error
# Walking a 10,000-deep document takes Python a few frames per level; the C stack of an
# 8 MiB thread holds far more than this many.
RECURSION_LIMIT = 40000


def allow_go_depth() -> None:
    """Let this process handle documents as deep as Go's decoders accept."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def brackets(text: str):
    """The JSON brackets of `text` outside string literals, in order ("[", "{", "]", "}")."""
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{]}":
            yield ch


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text nests deeper than `limit` (Go refuses it as a syntax error), whatever
    Python's recursion limit would let json.loads do."""
    if text.count("[") + text.count("{") <= limit:
        return False  # cannot nest deeper than it has openers
    depth = 0
    for ch in brackets(text):
        depth += 1 if ch in "[{" else -1
        if depth > limit:
            return True
    return False
