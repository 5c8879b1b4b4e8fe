"""Go values with no JSON counterpart that a JSONPath evaluation can produce."""

from __future__ import annotations


# Go's "no value at all" (the zero reflect.Value), distinct from JSON null.
_INVALID = object()


class _Byte(int):
    """One byte of a string, produced when a wildcard walks into a string."""
