"""What `apply`, `diff` and `create` accept from Python, turned into manifests.

A source is a path (file, directory, URL), a kustomization directory (with kustomize=True),
YAML or JSON text, an object dict, or a list mixing these. Each object keeps where it came
from, so errors name the file (or `<dict>` / `<string>`) and line.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Union

Source = Union[str, "os.PathLike[str]", dict, Iterable[Any]]

DICT_SOURCE = "<dict>"
TEXT_SOURCE = "<string>"


def manifests(source: Source, *, kustomize: bool = False, recursive: bool = False, verb: str = "apply") -> list:
    """Every object the source names, in kubectl's order; ManifestError for a bad one."""
    from kubelite.manifest import NoObjectsError

    found = list(_each(source, kustomize, recursive, verb))
    if not found:
        raise NoObjectsError(f"no objects passed to {verb}")
    return found


def _each(source: Any, kustomize: bool, recursive: bool, verb: str):
    from kubelite.apply import sources

    if isinstance(source, dict):
        yield from _from_dict(source)
    elif isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        if kustomize:
            yield from sources.kustomized(text)
        elif _is_text(text):
            from kubelite.manifest import read_text

            yield from read_text(text, TEXT_SOURCE)
        else:
            yield from sources.files([text], recursive=recursive, verb=verb)
    elif isinstance(source, Iterable) and not isinstance(source, bytes):
        for part in source:
            yield from _each(part, kustomize, recursive, verb)
    else:
        raise TypeError(f"cannot read objects from a {type(source).__name__}: pass a path, YAML text, a dict "
                        "or a list of these")


def _from_dict(obj: dict):
    """A dict through the same checks as a file's document (kind and apiVersion set; Lists split)."""
    import json

    from kubelite.manifest import read_text

    yield from read_text(json.dumps(obj), DICT_SOURCE)


def _is_text(text: str) -> bool:
    # A document has a line break or a `key: value`; a path has neither (and may not exist yet,
    # in which case reading it gives kubectl's "the path ... does not exist").
    return "\n" in text or (": " in text and not os.path.exists(text)) or text.lstrip().startswith("{")
