"""The top of a build: accumulate, then hash names, fix references, resolve vars,
drop local-only objects, sort, and apply the build metadata options."""
from __future__ import annotations

import os
from typing import Callable

from . import kustomization as kz, origin as origins
from .errors import KustomizeError
from .fs import ROOT_ONLY, Loader, eval_symlinks
from .hashing import content_hash
from .nameref import fix_name_references
from .resmap import ResMap
from .sorting import sort_resources
from .target import BuildState, Target

LOCAL_CONFIG = "config.kubernetes.io/local-config"


def build_resmap(path: str, load_restrictor: str = ROOT_ONLY, reorder: str = "",
                 warn: Callable[[str], None] | None = None, helm=None) -> ResMap:
    root = os.path.abspath(path)
    try:
        real = eval_symlinks(root, shown=path)
    except KustomizeError as exc:
        raise KustomizeError(f"must build at directory: not a valid directory: {exc}") from None
    if not os.path.isdir(real):
        raise KustomizeError(f"must build at directory: '{real}': file is not directory")
    target = Target(Loader(real, load_restrictor), state=BuildState(warn, helm))
    target.set_schema(reset=True)
    build_metadata = kz.as_list(target.k, "buildMetadata")
    if build_metadata:
        target.origin = {}
    ra = target.accumulate()
    rm = ra.resmap
    for res in rm:
        if res.needs_hash and res.kind in ("ConfigMap", "Secret"):
            res.store_previous_id()
            res.name = f"{res.name}-{content_hash(res.obj)}"
    rm.names_changed()
    fix_name_references(rm, ra.config.name_reference)
    if ra.vars:
        from .vars import resolve_vars

        resolve_vars(rm, ra.vars, ra.config.var_reference)
    rm.resources = [r for r in rm if not _local_only(r)]
    sort_options = target.k.get("sortOptions")
    if sort_options is not None:
        sort_resources(rm, sort_options)
    elif reorder in ("", "legacy"):
        sort_resources(rm, {"order": "legacy"})
    for res in rm:
        if res.yaml_errors:
            # printing decodes each object into a map; the first one with a key given twice fails
            from .builtins import unmarshal_errors

            raise KustomizeError("map[string]interface {}(nil): " + unmarshal_errors(res.yaml_errors))
    if "managedByLabel" in build_metadata:
        origins.add_managed_by_label(rm)
    origins.write_annotations(rm, "originAnnotations" in build_metadata, "transformerAnnotations" in build_metadata)
    for res in rm:
        _rewrite_annotations(res)
    return rm


def _local_only(res) -> bool:
    """Kustomize drops an object whose local-config annotation has any value but "false"."""
    annotations = res.annotations()
    return LOCAL_CONFIG in annotations and _annotation_text(annotations[LOCAL_CONFIG]) != "false"


def _rewrite_annotations(res) -> None:
    """Kustomize's last step rewrites each resource's annotations as a map of strings
    (removing the origin/transformation ones it does not keep), dropping an empty map."""
    meta = res.obj.get("metadata")
    if not isinstance(meta, dict) or "annotations" not in meta:
        return
    annotations = meta["annotations"]
    if not isinstance(annotations, dict) or not annotations:
        del meta["annotations"]
        return
    for key, value in annotations.items():
        if not isinstance(value, str):
            annotations[key] = _annotation_text(value)


def _annotation_text(value: object) -> str:
    from .transformers import _stringify

    if isinstance(value, (dict, list)) or value is None:
        return ""
    return _stringify(value)
