"""The built-in Kubernetes types, from the definitions shipped by `kubernetes-validate`.

Loaded lazily on first use and cached per Kubernetes version. The version defaults to 1.32
(the kubectl on these machines) and can be chosen with KUBELITE_KUBERNETES_VERSION or the
`version` argument.

`for_kind` (what a patch or an apply asks for) reads the types without their descriptions: the
definitions file is 1.3 MB, four fifths of it descriptions, and parsing it was ~6 ms of a ~60 ms
`apply -f one.yaml`. That copy is kept under $KUBELITE_HOME/cache/schema, made from the file the
first time and again whenever the file's size or modification time changes.
"""
from __future__ import annotations

import functools
import json
import os
import importlib.util
import pathlib

from kubelite.schema.model import Schema
from kubelite.schema.openapi import Definitions, SchemaError

DEFAULT_VERSION = "1.32"


@functools.lru_cache(maxsize=None)
def _schema_root() -> pathlib.Path:
    # Find the package's data without importing it: its __init__ pulls in jsonschema (~25 ms).
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise SchemaError("the kubernetes-validate package is not installed")
    return pathlib.Path(list(spec.submodule_search_locations)[0]) / "kubernetes-json-schema"


@functools.lru_cache(maxsize=None)
def available_versions() -> tuple[str, ...]:
    """Kubernetes minor versions ("1.25", ...) whose definitions are installed."""
    found = []
    for entry in _schema_root().iterdir():
        name = entry.name
        if name.startswith("v") and name.endswith(".0-local"):
            found.append(name[1:-len(".0-local")])
    return tuple(sorted(found, key=lambda v: tuple(int(x) for x in v.split("."))))


def _selected(version: str | None) -> str:
    return version or os.environ.get("KUBELITE_KUBERNETES_VERSION") or DEFAULT_VERSION


def _path(version: str) -> pathlib.Path:
    return _schema_root() / f"v{version}.0-local" / "_definitions.json"


_FULL: dict[str, Definitions] = {}
_COMPACT: dict[str, Definitions] = {}


def _load(version: str) -> Definitions:
    found = _FULL.get(version)
    if found is None:
        try:
            data = json.loads(_path(version).read_bytes())
        except FileNotFoundError:
            known = ", ".join(available_versions())
            raise SchemaError(f"no OpenAPI definitions for Kubernetes {version} (installed: {known})") from None
        found = _FULL[version] = Definitions.from_document(data)
    return found


def _for_patching(version: str) -> Definitions:
    """What for_kind reads: the full definitions when this process has them, else the compact
    copy, made from the full ones (and kept) when there is none for this file yet."""
    found = _FULL.get(version) or _COMPACT.get(version)
    if found is None:
        from kubelite.schema import compact

        definitions = compact.read(_path(version))
        if definitions is None:
            found = _load(version)
            compact.write(_path(version), found.definitions)
        else:
            found = _COMPACT[version] = Definitions(definitions)
    return found


def builtin_definitions(version: str | None = None) -> Definitions:
    """The Definitions of the built-in API of a Kubernetes version (default 1.32)."""
    return _load(_selected(version))


def for_kind(api_version: str, kind: str, version: str | None = None) -> Schema | None:
    """The Schema of a built-in kind, e.g. for_kind("apps/v1", "Deployment"); None if unknown."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    return _for_patching(_selected(version)).for_kind(api_version, kind)
