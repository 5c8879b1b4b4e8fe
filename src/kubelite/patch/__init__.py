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


SUBMODULES = ("json_patch", "merge_patch", "strategic", "kubectl")

__all__ = ["PatchError", "ConflictError", *SUBMODULES]


def __getattr__(name: str):
    # `import kubelite.patch` then `kubelite.patch.strategic`: submodules load on first use,
    # so importing the package stays cheap for callers that need only the error types
    if name in SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
