"""Printing a build as `kubectl kustomize` prints it.

Kustomize marshals each resource to JSON and converts it with sigs.k8s.io/yaml, the
same path as `kubectl -o yaml`, so each document is kubectl's YAML; documents are
joined with `---` lines.
"""
from __future__ import annotations


def render(objects: list[dict]) -> str:
    from kubelite.manifest import to_yaml

    return "---\n".join(to_yaml(obj) for obj in objects)


def go_json_list(resources: list) -> str:
    """Go's %+v of a list of resources (their compact JSON, space separated)."""
    from .hashing import _go_json

    return "[" + " ".join(_go_json(_with_ids(r)) for r in resources) + "]"


def _with_ids(res) -> dict:
    import copy

    obj = copy.deepcopy(res.obj)
    if res.prev_ids:
        ann = obj.setdefault("metadata", {}).setdefault("annotations", {})
        ann["internal.config.kubernetes.io/previousKinds"] = ",".join(i.gvk.kind for i in res.prev_ids)
        ann["internal.config.kubernetes.io/previousNames"] = ",".join(i.name for i in res.prev_ids)
        ann["internal.config.kubernetes.io/previousNamespaces"] = ",".join(i.namespace for i in res.prev_ids)
    return obj
