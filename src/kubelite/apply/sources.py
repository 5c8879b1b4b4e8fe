"""Where the objects of an apply or diff come from: files (-f, -R) or a kustomization (-k).

Each object is a Manifest (`.obj`, `.source`) so errors can name the file it came from.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Callable


def kustomized(directory: str, warn: Callable[[str], None] | None = None) -> list:
    """The objects a kustomization builds, as manifests whose source is the directory."""
    from kubelite.kustomize import build
    from kubelite.manifest import Manifest

    return [Manifest(obj, directory, i, 1) for i, obj in enumerate(build(directory, warn=warn))]


def files(paths: list[str], *, recursive: bool = False, verb: str = "apply") -> list:
    """The objects of files, directories and URLs, in kubectl's order."""
    from kubelite.manifest import read_sources

    return read_sources(paths, recursive=recursive, verb=verb)
