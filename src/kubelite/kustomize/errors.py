"""The one error type of the kustomize package."""
from __future__ import annotations


class KustomizeError(Exception):
    """A build failed; the message is one line naming the file or object at fault."""


class MalformedYAMLError(KustomizeError):
    """A file is not YAML (Kustomize then stops looking at it as a directory)."""
