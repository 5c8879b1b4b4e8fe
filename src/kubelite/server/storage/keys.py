"""Argument checks and key-range arithmetic shared by the backends."""

from __future__ import annotations

from .errors import StorageError

_MAX_CODE_POINT = 0x10FFFF


def check_key(key: object) -> str:
    if not isinstance(key, str) or not key:
        raise StorageError(f"storage key must be a non-empty string, got {key!r}")
    if "\x00" in key:
        raise StorageError(f"storage key must not contain NUL: {key!r}")
    return _encodable("key", key)


def check_prefix(prefix: object) -> str:
    if not isinstance(prefix, str):
        raise StorageError(f"storage prefix must be a string, got {prefix!r}")
    return _encodable("prefix", prefix)


def check_start_after(start_after: object) -> str | None:
    if start_after is None:
        return None
    if not isinstance(start_after, str):
        raise StorageError(f"start_after must be a string or None, got {start_after!r}")
    return _encodable("start_after", start_after)


def _encodable(what: str, text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise StorageError(f"storage {what} is not valid Unicode: {text!r}") from None
    return text


def check_value(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise StorageError(f"storage value must be bytes, got {type(value).__name__}")


def check_revision(name: str, revision: object, *, optional: bool = False) -> int | None:
    if revision is None and optional:
        return None
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
        raise StorageError(f"{name} must be a non-negative integer, got {revision!r}")
    return revision


def check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise StorageError(f"limit must be a non-negative integer, got {limit!r}")
    return limit


def prefix_end(prefix: str) -> str | None:
    """The smallest string greater than every string starting with ``prefix``.

    None when no such bound exists (empty prefix, or only maximal code points).
    """
    chars = list(prefix)
    while chars:
        last = ord(chars.pop())
        if last < _MAX_CODE_POINT:
            # Skip the surrogate block: such strings cannot be stored as UTF-8.
            nxt = last + 1 if last + 1 != 0xD800 else 0xE000
            return "".join(chars) + chr(nxt)
    return None


def range_start(prefix: str, start_after: str | None) -> tuple[str, bool]:
    """Where a range begins: (bound, inclusive)."""
    if start_after is not None and start_after >= prefix:
        return start_after, False
    return prefix, True
