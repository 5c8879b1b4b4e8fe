"""patchesStrategicMerge, patchesJson6902 and patches."""
from __future__ import annotations

import json

from . import smp
from .errors import KustomizeError
from .fs import Loader
from .resmap import ResMap
from .resource import Resource, ResId, gvk_of
from .selectors import Selector
from . import yamlv3


class SchemaSource:
    """Where merge keys come from: the built-in types, or a kustomization's openapi file."""

    def __init__(self, custom=None) -> None:
        self.custom = custom

    def for_kind(self, api_version: str, kind: str):
        if self.custom is not None:
            try:
                return self.custom.for_kind(api_version, kind)
            except Exception:
                return None
        from kubelite.schema import for_kind

        try:
            return for_kind(api_version, kind)
        except Exception:
            return None


def _docs(text: str) -> list[dict]:
    docs = [d for d in yamlv3.load_all(text) if d is not None]
    out = []
    for d in docs:
        if isinstance(d, dict) and isinstance(d.get("items"), list) and str(d.get("kind", "")).endswith("List"):
            out.extend(i for i in d["items"] if isinstance(i, dict))
        elif isinstance(d, dict):
            out.append(d)
        else:
            raise KustomizeError("not a map")
    return out


def load_smp_entries(entries: list, loader: Loader) -> list[dict]:
    patches = []
    for entry in entries:
        text = str(entry)
        inline = None
        try:
            inline = _docs(text)
        except KustomizeError:
            inline = None
        if inline:
            patches.extend(inline)
            continue
        patches.extend(_docs(loader.load(text)))
    return patches


def apply_smp(res: Resource, patch: dict, schemas: SchemaSource, allow_name: bool = False, allow_kind: bool = False) -> bool:
    """Apply one strategic merge patch to res; False when the patch deleted it."""
    name, ns, kind = res.name, res.namespace, res.kind
    if allow_name or allow_kind:
        res.store_previous_id()
    schema = schemas.for_kind(res.obj.get("apiVersion") or "", patch.get("kind") or kind)
    patch = dict(patch)
    if "apiVersion" in patch:
        patch["apiVersion"] = res.obj.get("apiVersion")
    result = smp.apply(res.obj, patch, schema)
    if result is None or not result:
        res.obj.clear()
        return False
    res.obj = result
    if not allow_kind:
        res.obj["kind"] = kind
    if not allow_name:
        res.name = name
    if ns:
        res.namespace = ns
    elif isinstance(res.obj.get("metadata"), dict):
        res.obj["metadata"].pop("namespace", None)
    return True


def _patch_id(patch: dict) -> ResId:
    meta = patch.get("metadata") if isinstance(patch.get("metadata"), dict) else {}
    return ResId(gvk_of(patch), str(meta.get("name") or ""), str(meta.get("namespace") or ""))


def _unique_target(resmap: ResMap, pid: ResId) -> Resource:
    matches = resmap.by_any_id(pid)
    if len(matches) == 1:
        return matches[0]
    how = "no matches" if not matches else "multiple matches"
    raise KustomizeError(f"{how} for Id {pid}; failed to find unique target for patch {pid}")


def patches_strategic_merge(resmap: ResMap, patches: list[dict], schemas: SchemaSource) -> None:
    for patch in patches:
        target = _unique_target(resmap, _patch_id(patch))
        if not apply_smp(target, patch, schemas):
            resmap.remove(target)
        resmap.names_changed()


def load_json_ops(text: str, source: str) -> list:
    text_stripped = text.strip()
    if not text_stripped:
        raise KustomizeError(f"empty json patch operations")
    if text_stripped.startswith("["):
        try:
            ops = json.loads(text_stripped)
        except ValueError as exc:
            raise KustomizeError(f"invalid JSON patch in {source}: {exc}") from None
    else:
        from kubelite.manifest._goyaml import decode_yaml

        try:
            ops = decode_yaml(text)
        except Exception as exc:
            raise KustomizeError(f"invalid YAML JSON patch in {source}: {exc}") from None
    if not isinstance(ops, list):
        raise KustomizeError(f"json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    return ops


def apply_json_ops(res: Resource, ops: list) -> None:
    from kubelite.patch import json_patch, PatchError

    res.store_previous_id()
    try:
        result = json_patch.apply(res.obj, ops, kubectl_compat=True)
    except PatchError as exc:
        raise KustomizeError(str(exc)) from None
    if not isinstance(result, dict):
        raise KustomizeError("json patch must produce an object")
    res.obj = result


def patches_json6902(resmap: ResMap, entry: dict, loader: Loader) -> None:
    target = entry.get("target")
    if not target:
        raise KustomizeError(f"must specify a target for patch {entry.get('patch') or entry.get('path')}")
    if entry.get("path") and entry.get("patch"):
        raise KustomizeError("must specify only one of patch and path")
    if entry.get("path"):
        text = loader.load(entry["path"])
    elif entry.get("patch"):
        text = str(entry["patch"])
    else:
        raise KustomizeError("must specify one of patch and path")
    ops = load_json_ops(text, entry.get("path") or "inline patch")
    for res in Selector(target).select(resmap):
        apply_json_ops(res, ops)
    resmap.names_changed()


def patch_transformer(resmap: ResMap, entry: dict, loader: Loader, schemas: SchemaSource) -> None:
    if not isinstance(entry, dict):
        raise KustomizeError(f"invalid patches entry {entry!r}")
    patch_text = str(entry.get("patch") or "").strip()
    path = entry.get("path") or ""
    if not patch_text and not path:
        raise KustomizeError("must specify one of patch and path in\n" + _dump(entry))
    if patch_text and path:
        raise KustomizeError("patch and path can't be set at the same time\n" + _dump(entry))
    source = f'[patch: {json.dumps(patch_text)}]' if patch_text else f'[path: "{path}"]'
    if path:
        try:
            patch_text = loader.load(path)
        except KustomizeError as exc:
            raise KustomizeError(f"failed to get the patch file from path({path}): {exc}") from None
    options = entry.get("options") or {}
    target = entry.get("target")
    sm_patches, sm_err = None, None
    try:
        sm_patches = _docs(patch_text)
    except KustomizeError as exc:
        sm_err = exc
    json_ops = None
    try:
        json_ops = load_json_ops(patch_text, source)
    except KustomizeError:
        json_ops = None
    if sm_patches and json_ops:
        raise KustomizeError(f"illegally qualifies as both an SM and JSON patch: {source}")
    if json_ops is not None and not sm_patches:
        if not target:
            raise KustomizeError(f"must specify a target for JSON patch {source}")
        for res in Selector(target).select(resmap):
            apply_json_ops(res, json_ops)
        resmap.names_changed()
        return
    if sm_err is not None or sm_patches is None:
        raise KustomizeError(f"unable to parse SM or JSON patch from {source}")
    if not sm_patches:
        return
    allow_name, allow_kind = bool(options.get("allowNameChange")), bool(options.get("allowKindChange"))
    if target:
        if len(sm_patches) > 1:
            raise KustomizeError(
                f"Multiple Strategic-Merge Patches in one `patches` entry is not allowed to set `patches.target` field: {source}")
        for res in Selector(target).select(resmap):
            if not apply_smp(res, sm_patches[0], schemas, allow_name, allow_kind):
                resmap.remove(res)
        resmap.names_changed()
        return
    for patch in sm_patches:
        pid = _patch_id(patch)
        try:
            res = _unique_target(resmap, pid)
        except KustomizeError as exc:
            raise KustomizeError(f'no resource matches strategic merge patch "{pid}": {exc}') from None
        if not apply_smp(res, patch, schemas, allow_name, allow_kind):
            resmap.remove(res)
        resmap.names_changed()


def _dump(entry: dict) -> str:
    import yaml

    return yaml.safe_dump(entry, default_flow_style=False, sort_keys=False)
