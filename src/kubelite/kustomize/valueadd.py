"""ValueAddTransformer: put one string value at a slash-separated field path of the
selected resources (created when absent), or insert it into a file path held there."""
from __future__ import annotations

import posixpath

from . import yamlv3
from .errors import KustomizeError
from .fs import Loader
from .resmap import ResMap
from .selectors import Selector

NAMESPACE_PATH = "metadata/namespace"


def configure(config: dict, loader: Loader) -> list[dict]:
    """The targets of a ValueAddTransformer config, checked as Kustomize checks them.
    Returns the value (trimmed; the kustomization directory's name when empty) and targets."""
    value = config.get("value")
    value = str(value).strip() if value is not None else ""
    if not value:
        value = posixpath.basename(loader.root.rstrip("/"))
    targets = list(_targets(config.get("targets"), "targets"))
    if config.get("targetFilePath"):
        doc = yamlv3.load_all(loader.load(str(config["targetFilePath"])))
        shared = doc[0] if doc and isinstance(doc[0], dict) else {}
        targets += _targets(shared.get("targets"), "targetFilePath")
    if not targets:
        raise KustomizeError("must specify at least one target")
    for target in targets:
        if not target["fieldPath"]:
            raise KustomizeError("fieldPath cannot be empty")
        if target["filePathPosition"] < 0:
            raise KustomizeError(f"value of FilePathPosition ({target['filePathPosition']}) cannot be negative")
    return [dict(t, value=value) for t in targets]


def _targets(raw: object, where: str) -> list[dict]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise KustomizeError(f"ValueAddTransformer.{where}: expected a list of targets")
    out = []
    for item in raw:
        item = item if isinstance(item, dict) else {}
        position = item.get("filePathPosition") or 0
        if isinstance(position, bool) or not isinstance(position, int):
            raise KustomizeError(f"ValueAddTransformer.{where}: filePathPosition must be an integer")
        out.append({"selector": item.get("selector"), "fieldPath": str(item.get("fieldPath") or ""),
                    "filePathPosition": position})
    return out


def run(resmap: ResMap, targets: list[dict]) -> None:
    from .transformers import _namespace_one

    for target in targets:
        chosen = list(resmap) if target["selector"] is None else Selector(target["selector"]).select(resmap)
        for res in chosen:
            if target["fieldPath"] == NAMESPACE_PATH:
                # Kustomize hands this path to its namespace filter (cluster-scoped kinds kept, subjects named default)
                _namespace_one(res, target["value"], [], "", False)
            else:
                _add(res.obj, _split(target["fieldPath"]), target["value"], target["filePathPosition"])
    resmap.names_changed()


def _split(path: str) -> list[str]:
    """Fields of a slash path; `\\/` keeps a slash inside a field name."""
    fields: list[str] = []
    for part in path.split("/"):
        if fields and fields[-1].endswith("\\"):
            fields[-1] = fields[-1][:-1] + "/" + part
        else:
            fields.append(part)
    return fields


def _add(obj: dict, fields: list[str], value: str, position: int) -> None:
    """kyaml's PathGetter with Create (each missing field made a map, or a list before an index
    or `[k=v]`), then the value set on the scalar found; a list index past the end finds nothing
    and nothing changes."""
    fields = [f.strip() for f in fields if f.strip()]  # kyaml's cleanPath
    if not fields:
        return
    parent: object = None
    node: object = obj
    for i, field in enumerate(fields):
        following = fields[i + 1] if i + 1 < len(fields) else ""
        parent, node = node, _child(node, field, following)
        if node is _MISSING:
            return
    key = fields[-1]
    if isinstance(node, (dict, list)):
        raise _wrong_kind("ScalarNode", node)
    if position > 0:
        value = insert_path_part("" if node is None else _text(node), position - 1, value)
    # kyaml sets an untagged scalar: the text reads back as YAML would (123 a number, true a bool)
    if isinstance(parent, list):
        parent[_index(parent, key)] = yamlv3.resolve_plain(value)
    else:
        parent[key] = yamlv3.resolve_plain(value)


_MISSING = object()


def _index(node: list, field: str) -> int:
    return len(node) - 1 if field == "-" else int(field)


def _child(node: object, field: str, following: str) -> object:
    """The node below `field` as kyaml's PathGetter finds it: a list index (`-` the last element;
    past the end nothing), a `[k=v]` element (appended when absent), or a map field (created when
    absent: a list when an index or `[k=v]` comes next, an empty scalar at the end, else a map)."""
    try:
        number = int(field) if field.lstrip("+-").isdigit() and field.isascii() else None
    except ValueError:
        number = None
    if number is not None or field == "-":
        if number is not None and number < 0:
            raise KustomizeError(f"array index {number} cannot be negative")
        if not isinstance(node, list):
            raise _wrong_kind("SequenceNode", node)
        index = _index(node, field)
        return node[index] if index < len(node) else _MISSING
    if field == "*":
        raise KustomizeError("wildcard is not supported in PathGetter")
    if field.startswith("[") and field.endswith("]") and "=" in field:
        if not isinstance(node, list):
            raise _wrong_kind("SequenceNode", node)
        key, _, want = field[1:-1].partition("=")
        for item in node:
            if isinstance(item, dict) and _text(item.get(key)) == want:
                return item
        item = {key: want}
        node.append(item)
        return item
    if node is None:
        return _MISSING
    if not isinstance(node, dict):
        raise _wrong_kind("MappingNode", node)
    if field not in node or node[field] is None:
        if not following:
            node.setdefault(field, None)
            return None
        is_list = following.startswith("[") and following.endswith("]") or \
            (following.lstrip("+-").isdigit() and following.isascii())
        node[field] = [] if is_list else {}
    return node[field]


def _wrong_kind(expected: str, node: object) -> KustomizeError:
    """kyaml's ErrorIfInvalid, with the node as kyaml writes it."""
    if isinstance(node, (dict, list)):
        import yaml

        kind = "MappingNode" if isinstance(node, dict) else "SequenceNode"
        contents = yaml.safe_dump(node, sort_keys=False, default_flow_style=False, allow_unicode=True) \
            if node else ("{}\n" if kind == "MappingNode" else "[]\n")
    else:
        kind, contents = "ScalarNode", _text(node) + "\n"
    return KustomizeError(f"wrong node kind: expected {expected} but got {kind}: node contents:\n{contents}")


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def insert_path_part(path: str, position: int, part: str) -> str:
    """kyaml's InsertPathPart: `part` becomes the position-th element of the file path
    (an absolute path stays absolute; a position past the end appends)."""
    if not part:
        return path
    parts = _path_split(path)
    position = max(0, min(position, len(parts)))
    if parts and parts[0] == "" and position < len(parts):
        position += 1
    return _path_join(parts[:position] + [part] + parts[position:])


def _path_split(path: str) -> list[str]:
    if not path:
        return []
    head, tail = posixpath.split(path)
    if head == "/":
        return [""] if not tail else ["", tail]
    head = head.rstrip("/") if head != "/" else head
    if not head:
        return [tail]
    return _path_split(head) + [tail]


def _path_join(parts: list[str]) -> str:
    from .origin import go_join

    if not parts:
        return ""
    if parts[0] == "":
        return "/" + go_join(*parts[1:])
    return go_join(*parts)
