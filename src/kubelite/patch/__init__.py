"""Pure functions on JSON values: RFC 6902 JSON Patch, RFC 7386 merge patch, strategic merge patch.

Submodules: json_patch, merge_patch, strategic. Every failure is a PatchError whose message
names the field path where it happened.
"""
from __future__ import annotations


class PatchError(ValueError):
    """A patch could not be created or applied. The message names the field path."""

    def __init__(self, message: str, path: str | None = None):
        self.path = path
        super().__init__(f"{message} (at {path})" if path else message)


class ConflictError(PatchError):
    """A three-way patch would overwrite a change made to the live object (overwrite=False)."""


__all__ = ["PatchError", "ConflictError"]
