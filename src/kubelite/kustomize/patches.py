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
from kubelite.schema.gojson import json_kind


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
    docs = [d for d, _ in yamlv3.load_resources(text) if d is not None]
    out = []
    for d in docs:
        if isinstance(d, dict) and isinstance(d.get("items"), list) and str(d.get("kind", "")).endswith("List"):
            out.extend(i for i in d["items"] if isinstance(i, dict))
        elif isinstance(d, dict):
            out.append(d)
        else:
            raise KustomizeError("missing Resource metadata")
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
        resmap.names_changed(target)


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
        raise KustomizeError("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
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


class JsonPatchPlan:
    """A configured PatchJson6902Transformer: its target selector and operations."""

    def __init__(self, target: dict, ops: list) -> None:
        self.target = target
        self.ops = ops

    def apply(self, resmap: ResMap) -> None:
        selected = Selector(self.target).select(resmap)
        for res in selected:
            apply_json_ops(res, self.ops)
        resmap.names_changed(*selected)


def configure_json6902(entry: dict, loader: Loader) -> JsonPatchPlan:
    """PatchJson6902Transformer's configuration step (errors as its Config's)."""
    target = entry.get("target") if isinstance(entry.get("target"), dict) else {}
    if not target.get("name"):
        raise KustomizeError("must specify the target name")
    path, op_text = str(entry.get("path") or ""), str(entry.get("patch") or "")
    if not path and not op_text:
        raise KustomizeError("empty file path and empty jsonOp")
    if path:
        if op_text:
            raise KustomizeError("must specify a file path or jsonOp, not both")
        op_text = loader.load(path)
        if not op_text:
            raise KustomizeError(f"patch file '{path}' empty seems to be empty")
    if op_text[0] == "[":
        try:
            ops = json.loads(op_text)
        except ValueError as exc:
            raise KustomizeError(f"decoding {op_text}: {exc}") from None
        shown = op_text
    else:
        from kubelite.manifest._goyaml import decode_yaml

        try:
            ops = decode_yaml(op_text)
        except Exception as exc:  # the decoder's own error type
            raise KustomizeError(f"yaml: {exc}") from None
        shown = json.dumps(ops, separators=(",", ":"), ensure_ascii=False)
    if ops is None:
        ops = []  # Go decodes JSON null into a nil slice: an empty patch, not a type error
    if not isinstance(ops, list):
        raise KustomizeError(f"decoding {shown}: json: cannot unmarshal {json_kind(ops)} "
                             "into Go value of type jsonpatch.Patch")
    if not ops:
        raise KustomizeError(f"patch appears to be empty; file={path}, JsonOp={shown}")
    return JsonPatchPlan(target, ops)


def patches_json6902(resmap: ResMap, entry: dict, loader: Loader) -> None:
    configure_json6902(entry, loader).apply(resmap)


class PatchPlan:
    """A configured PatchTransformer: strategic merge patches or JSON operations."""

    def __init__(self, target, sm_patches, json_ops, source: str, allow_name: bool, allow_kind: bool) -> None:
        self.target = target
        self.sm_patches = sm_patches
        self.json_ops = json_ops
        self.source = source
        self.allow_name = allow_name
        self.allow_kind = allow_kind

    def apply(self, resmap: ResMap, schemas: SchemaSource) -> None:
        if self.json_ops is not None:
            if not self.target:
                raise KustomizeError(f"must specify a target for JSON patch {self.source}")
            selected = Selector(self.target).select(resmap)
            for res in selected:
                apply_json_ops(res, self.json_ops)
            resmap.names_changed(*selected)
            return
        if not self.sm_patches:
            return
        if self.target:
            if len(self.sm_patches) > 1:
                raise KustomizeError("Multiple Strategic-Merge Patches in one `patches` entry is not allowed to "
                                     f"set `patches.target` field: {self.source}")
            selected = Selector(self.target).select(resmap)
            for res in selected:
                if not apply_smp(res, self.sm_patches[0], schemas, self.allow_name, self.allow_kind):
                    resmap.remove(res)
            resmap.names_changed(*selected)
            return
        for patch in self.sm_patches:
            pid = _patch_id(patch)
            try:
                res = _unique_target(resmap, pid)
            except KustomizeError as exc:
                raise KustomizeError(f'no resource matches strategic merge patch "{pid}": {exc}') from None
            if not apply_smp(res, patch, schemas, self.allow_name, self.allow_kind):
                resmap.remove(res)
            resmap.names_changed(res)


def configure_patch(entry: dict, loader: Loader, config_text: str) -> PatchPlan:
    """PatchTransformer's configuration step; config_text is the configuration as
    Kustomize shows it in its errors."""
    if not isinstance(entry, dict):
        raise KustomizeError(f"invalid patches entry {entry!r}")
    patch_text = str(entry.get("patch") or "").strip()
    path = str(entry.get("path") or "")
    if not patch_text and not path:
        raise KustomizeError("must specify one of patch and path in\n" + config_text)
    if patch_text and path:
        raise KustomizeError("patch and path can't be set at the same time\n" + config_text)
    if patch_text:
        from kubelite.manifest.jsonpath import go_quote

        source = f"[patch: {go_quote(patch_text)}]"
    else:
        from kubelite.manifest.jsonpath import go_quote

        source = f"[path: {go_quote(path)}]"
        try:
            patch_text = loader.load(path)
        except KustomizeError as exc:
            raise KustomizeError(f"failed to get the patch file from path({path}): {exc}") from None
    sm_patches, sm_ok = None, True
    try:
        sm_patches = _docs(patch_text)
    except KustomizeError:
        sm_ok = False
    json_ops = None
    try:
        json_ops = load_json_ops(patch_text, source)
    except KustomizeError:
        json_ops = None
    if sm_ok and json_ops is not None:
        raise KustomizeError(f"illegally qualifies as both an SM and JSON patch: {source}")
    if not sm_ok and json_ops is None:
        raise KustomizeError(f"unable to parse SM or JSON patch from {source}")
    options = entry.get("options") if isinstance(entry.get("options"), dict) else {}
    return PatchPlan(entry.get("target"), sm_patches if sm_ok else None, None if sm_ok else json_ops, source,
                     bool(options.get("allowNameChange")), bool(options.get("allowKindChange")))


def patch_transformer(resmap: ResMap, entry: dict, loader: Loader, schemas: SchemaSource) -> None:
    configure_patch(entry, loader, builtin_config_text(entry)).apply(resmap, schemas)


def builtin_config_text(config: dict) -> str:
    """A builtin plugin's configuration as Kustomize marshals it (sigs.k8s.io/yaml)."""
    from kubelite.manifest import to_yaml

    return to_yaml({k: v for k, v in config.items() if v not in (None, "", {}, [])}) if config else ""
