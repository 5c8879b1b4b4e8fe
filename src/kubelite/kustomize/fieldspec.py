"""Field specs: where in which kinds a transformer acts.

A field spec names a group/version/kind filter (empty parts match anything), a
slash-separated path (``\\/`` escapes a slash inside a key, ``[]`` marks a list,
lists are also entered implicitly) and whether missing fields are created.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from .errors import KustomizeError
from .resource import Gvk


@dataclass(frozen=True)
class FieldSpec:
    path: str
    group: str = ""
    version: str = ""
    kind: str = ""
    create: bool = False

    def selects(self, gvk: Gvk) -> bool:
        return gvk.selected_by(self.group, self.version, self.kind)

    def segments(self) -> list[str]:
        return split_path(self.path)

    @classmethod
    def from_dict(cls, raw: object, where: str = "fieldSpecs") -> "FieldSpec":
        if not isinstance(raw, dict):
            raise KustomizeError(f"{where}: a field spec must be a mapping, got {raw!r}")
        gvk = raw.get("gvk") if isinstance(raw.get("gvk"), dict) else raw
        return cls(
            path=str(raw.get("path") or ""),
            group=str(gvk.get("group") or ""),
            version=str(gvk.get("version") or ""),
            kind=str(gvk.get("kind") or ""),
            create=bool(raw.get("create") or False),
        )


def split_path(path: str) -> list[str]:
    return list(_split_path(path))


# A few dozen distinct paths, split for every resource each transformer visits: split once.
@functools.lru_cache(maxsize=1024)
def _split_path(path: str) -> tuple[str, ...]:
    parts: list[str] = []
    current = []
    i = 0
    while i < len(path):
        c = path[i]
        if c == "\\" and i + 1 < len(path) and path[i + 1] == "/":
            current.append("/")
            i += 2
            continue
        if c == "/":
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    parts.append("".join(current))
    return tuple(p for p in parts if p != "")


Setter = Callable[[dict, str], None]


def apply(obj: dict, spec: FieldSpec, setter: Setter, create_leaf: bool | None = None) -> None:
    """Call setter(container, key) for every place `spec.path` reaches in obj.

    Intermediate maps are created when the spec says so; the setter decides what to
    do with a missing leaf.
    """
    _walk(obj, spec.segments(), spec.create, setter)


def _walk(node: object, segments: list[str], create: bool, setter: Setter) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, segments, create, setter)
        return
    if not isinstance(node, dict) or not segments:
        return
    key = segments[0]
    is_list = key.endswith("[]")
    if is_list:
        key = key[:-2]
        if key not in node:
            return  # a field marked as a list is never created
        if node[key] is None:
            # Kustomize takes the hint: an explicit null there becomes an empty list
            node[key] = []
    if len(segments) == 1:
        setter(node, key)
        return
    child = node.get(key)
    if child is None:
        if not create:
            return
        child = {}
        node[key] = child
    _walk(child, segments[1:], create, setter)


def specs_from(raw: object, where: str) -> list[FieldSpec]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise KustomizeError(f"{where}: expected a list of field specs")
    return [FieldSpec.from_dict(r, where) for r in raw]
