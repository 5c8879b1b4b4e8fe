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
