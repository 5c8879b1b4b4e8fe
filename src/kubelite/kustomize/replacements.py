"""replacements: copy a field of one object into fields of others."""
from __future__ import annotations

import copy

from . import fieldpath, yamlv3
from .errors import KustomizeError
from .fs import Loader
from .resmap import ResMap
from .resource import Gvk, Resource, ResId, split_api_version
from .selectors import labels_match


def load(entries: list, loader: Loader) -> list[dict]:
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise KustomizeError(f"invalid replacement {entry!r}")
        if entry.get("path") and (entry.get("source") is not None or entry.get("targets")):
            raise KustomizeError("cannot specify both path and inline replacement")
        if entry.get("path"):
            for doc in yamlv3.load_all(loader.load(str(entry["path"]))):
                if isinstance(doc, list):
                    out.extend(doc)
                elif isinstance(doc, dict):
                    out.append(doc)
        else:
            out.append(entry)
    return out


def _selector_id(sel: dict) -> ResId:
    group, version = sel.get("group"), sel.get("version")
    if sel.get("apiVersion"):
        group, version = split_api_version(sel["apiVersion"])
    return ResId(Gvk(str(group or ""), str(version or ""), str(sel.get("kind") or "")),
                 str(sel.get("name") or ""), str(sel.get("namespace") or ""))


def _id_selected_by(rid: ResId, selector: ResId) -> bool:
    """ResId.IsSelectedBy: blank selector fields match anything."""
    return ((not selector.name or selector.name == rid.name)
            and (not selector.namespace or selector.effective_namespace() == rid.effective_namespace())
            and rid.gvk.selected_by(*selector.gvk))


def _any_id_selected(res: Resource, sel: dict) -> bool:
    """Replacements select by any of a resource's ids, current or earlier (names before
    prefixes, suffixes and hashes)."""
    selector = _selector_id(sel)
    return any(_id_selected_by(rid, selector) for rid in res.all_ids())


def _labels_selected(res: Resource, sel: dict) -> bool:
    return (labels_match(sel.get("labelSelector"), res.labels())
            and labels_match(sel.get("annotationSelector"), res.annotations()))


def _target_selected(res: Resource, select: dict, rejects: list) -> bool:
    if not _labels_selected(res, select):
        return False
    for reject in rejects:
        if isinstance(reject, dict) and (reject.get("labelSelector") or reject.get("annotationSelector")) \
                and _labels_selected(res, reject):
            return False
    if not _any_id_selected(res, select):
        return False
    for reject in rejects:
        if isinstance(reject, dict) and _selector_id(reject) != _EMPTY_ID and _any_id_selected(res, reject):
            return False
    return True


_EMPTY_ID = ResId(Gvk("", "", ""), "", "")


def _source_value(resmap: ResMap, source: dict) -> object:
    matches = []
    for res in resmap:
        if _any_id_selected(res, source):
            if matches:
                raise KustomizeError(f"multiple matches for selector {_source_str(source)}")
            matches.append(res)
    if not matches:
        raise KustomizeError(f"nothing selected by {_source_str(source)}")
    path = source.get("fieldPath") or "metadata.name"
    values = fieldpath.lookup(matches[0].obj, fieldpath.parse(path))
    if not values:
        raise KustomizeError(f"fieldPath `{path}` is missing for replacement source {_sel_str(source)}")
    value = values[0]
    opts = source.get("options") or {}
    if opts.get("delimiter") is not None and isinstance(value, str):
        parts = value.split(opts["delimiter"])
        index = int(opts.get("index") or 0)
        if index < 0 or index >= len(parts):
            raise KustomizeError(f"options.index {index} is out of bounds for value {value}")
        value = parts[index]
    return copy.deepcopy(value)


def _source_str(source: dict) -> str:
    """SourceSelector.String(): the id, then the field path and options when set."""
    parts = [_sel_str(source)]
    if source.get("fieldPath"):
        parts.append(str(source["fieldPath"]))
    opts = source.get("options") if isinstance(source.get("options"), dict) else {}
    if opts.get("delimiter") or opts.get("create"):
        create = "true" if opts.get("create") else "false"
        parts.append(f"{opts.get('delimiter') or ''}({int(opts.get('index') or 0)}), create={create}")
    return ":".join(parts)


def _sel_str(sel: dict) -> str:
    kind = sel.get("kind") or "[noKind]"
    version = sel.get("version") or "[noVer]"
    group = sel.get("group") or "[noGrp]"
    return f"{kind}.{version}.{group}/{sel.get('name') or '[noName]'}.{sel.get('namespace') or '[noNs]'}"


def _with_delimiter(old: object, value: object, opts: dict) -> object:
    delim = opts.get("delimiter")
    if delim is None or not isinstance(old, str):
        return value
    parts = old.split(delim)
    index = int(opts.get("index") or 0)
    text = value if isinstance(value, str) else str(value)
    if index < 0:
        parts.insert(0, text)
    elif index >= len(parts):
        parts.append(text)
    else:
        parts[index] = text
    return delim.join(parts)


def run(resmap: ResMap, replacements: list[dict]) -> None:
    for rep in replacements:
        source = rep.get("source")
        if source is None or rep.get("targets") is None:
            raise KustomizeError("replacements must specify a source and at least one target")
        value = _source_value(resmap, source)
        for target in rep.get("targets") or []:
            select = target.get("select")
            if select is None:
                raise KustomizeError("target must specify resources to select")
            rejects = target.get("reject") or []
            opts = target.get("options") or {}
            paths = target.get("fieldPaths") or ["metadata.name"]
            for res in resmap:
                if not _target_selected(res, select, rejects):
                    continue
                for path in paths:
                    segs = fieldpath.parse(path)
                    n = fieldpath.set_value(res.obj, segs, lambda old: _with_delimiter(old, value, opts),
                                            create=bool(opts.get("create")))
                    if n == 0 and not opts.get("create"):
                        raise KustomizeError(
                            f"unable to find field \"{path}\" in replacement target")
