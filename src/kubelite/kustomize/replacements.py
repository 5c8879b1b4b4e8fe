"""replacements: copy a field of one object into fields of others."""
from __future__ import annotations

import copy

from . import fieldpath, yamlv3
from .errors import KustomizeError
from .fs import Loader
from .resmap import ResMap
from .resource import Resource, split_api_version
from .selectors import labels_match


def load(entries: list, loader: Loader) -> list[dict]:
    out = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise KustomizeError(f"invalid replacement {entry!r}")
        if "path" in entry and len(entry) == 1:
            for doc in yamlv3.load_all(loader.load(str(entry["path"]))):
                if isinstance(doc, list):
                    out.extend(doc)
                elif isinstance(doc, dict):
                    out.append(doc)
        else:
            out.append(entry)
    return out


def _selected(res: Resource, sel: dict) -> bool:
    if not isinstance(sel, dict):
        return False
    rid = res.cur_id()
    gvk = res.gvk
    group, version = sel.get("group"), sel.get("version")
    if sel.get("apiVersion"):
        group, version = split_api_version(sel["apiVersion"])
    if not gvk.selected_by(group or "", version or "", sel.get("kind") or ""):
        return False
    if sel.get("name") and sel["name"] != rid.name:
        return False
    if sel.get("namespace") and sel["namespace"] != rid.effective_namespace():
        return False
    if not labels_match(sel.get("labelSelector"), res.labels()):
        return False
    if not labels_match(sel.get("annotationSelector"), res.annotations()):
        return False
    return True


def _source_value(resmap: ResMap, source: dict) -> object:
    matches = [r for r in resmap if _selected(r, source)]
    if len(matches) > 1:
        raise KustomizeError(f"multiple matches for selector {_sel_str(source)}")
    if not matches:
        raise KustomizeError(f"nothing selected by {_sel_str(source)}")
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
        if source is None:
            raise KustomizeError("replacement source is required")
        value = _source_value(resmap, source)
        for target in rep.get("targets") or []:
            select = target.get("select") or {}
            rejects = target.get("reject") or []
            opts = target.get("options") or {}
            paths = target.get("fieldPaths") or ["metadata.name"]
            for res in resmap:
                if not _selected(res, select) or any(_selected(res, r) for r in rejects):
                    continue
                for path in paths:
                    segs = fieldpath.parse(path)
                    n = fieldpath.set_value(res.obj, segs, lambda old: _with_delimiter(old, value, opts),
                                            create=bool(opts.get("create")))
                    if n == 0 and not opts.get("create"):
                        raise KustomizeError(
                            f"unable to find field \"{path}\" in replacement target")
