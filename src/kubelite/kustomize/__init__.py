"""Kustomize: a kustomization directory -> list of objects.

    build(path, load_restrictor="LoadRestrictionsRootOnly", reorder="", warn=None) -> list[dict]
        warn(line) is called with each deprecation warning ("# Warning: 'bases' is
        deprecated...") as its kustomization file is read, before any later failure;
        helm: a kustomize.helm.HelmConfig (--enable-helm and the --helm-* flags)
    render(objects) -> str      # the text `kubectl kustomize` prints

The package itself is callable: `kubelite.kustomize(path)` is `build(path)` (the Python API's
name for it; a plain function of that name would be shadowed by this package once imported).

Behaviour follows Kustomize v5.5.0 as embedded in kubectl 1.32. Failures raise
KustomizeError with a one-line message naming the file or object.
"""
from __future__ import annotations

import sys
import types
from typing import Callable

from .errors import KustomizeError

__all__ = ["build", "render", "KustomizeError"]


def build(path: str, load_restrictor: str = "LoadRestrictionsRootOnly", reorder: str = "",
          warn: Callable[[str], None] | None = None, helm=None) -> list[dict]:
    from .builder import build_resmap

    return [r.obj for r in build_resmap(path, load_restrictor, reorder, warn, helm)]


def render(objects: list[dict]) -> str:
    from .printing import render as _render

    return _render(objects)


class _CallablePackage(types.ModuleType):
    def __call__(self, path: str, **kwargs) -> list[dict]:
        return build(str(path), **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
