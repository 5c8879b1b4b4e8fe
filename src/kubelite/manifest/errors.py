"""The one error type of the manifest layer."""
from __future__ import annotations


class ManifestError(Exception):
    """A manifest could not be read or written.

    The message is one line, worded as kubectl words it (without kubectl's
    leading ``error: ``, which the command line adds), and names the source.
    ``source`` and ``line`` (1-based, None when unknown) are kept apart too,
    for callers that point at the spot; syntax errors carry the line in the
    message as well, as go-yaml does.
    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.line = line


class NoObjectsError(ManifestError):
    """Every source was read, but none held an object."""


def aggregate(messages: list[str]) -> str:
    """Join messages the way apimachinery's error aggregate prints them.

    One message prints bare; several print as ``[a, b]`` with duplicates
    removed (kubectl shows each distinct problem once).
    """
    seen: list[str] = []
    for m in messages:
        if m not in seen:
            seen.append(m)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"
