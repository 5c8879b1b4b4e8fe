"""An ordered collection of resources with Kustomize's id rules."""
from __future__ import annotations

from .errors import KustomizeError
from .resource import Resource, ResId


class ResMap:
    """Resources in order. Lookups go through an index by name, rebuilt after
    `names_changed()` (transformers that may rename call it)."""

    def __init__(self, resources: list | None = None) -> None:
        self.resources: list[Resource] = list(resources or [])
        self._index: dict | None = None
        self._filed: dict[int, set] = {}  # id(resource) -> the names it is indexed under

    def __iter__(self):
        return iter(list(self.resources))

    def __len__(self) -> int:
        return len(self.resources)

    def names_changed(self, *changed: Resource) -> None:
        """Names may have changed: of the resources given (the index stays if theirs did not: a
        patch seldom renames), or of any."""
        if self._index is not None and changed and \
                all(self._filed.get(id(r)) == _index_names(r) for r in changed):
            return
        self._index = None

    def _names(self) -> dict:
        if self._index is None:
            index: dict = {}
            self._filed = {}
            for r in self.resources:
                names = self._filed[id(r)] = _index_names(r)
                for name in names:
                    index.setdefault(name, []).append(r)
            self._index = index
        return self._index

    def _candidates(self, name: str) -> list[Resource]:
        return self._names().get(name, ())

    def by_current_id(self, rid: ResId) -> list[Resource]:
        return [r for r in self._candidates(rid.name) if r.cur_id().equals(rid)]

    def by_any_id(self, rid: ResId) -> list[Resource]:
        return [r for r in self._candidates(rid.name) if any(i.equals(rid) for i in r.all_ids())]

    def append(self, res: Resource) -> None:
        rid = res.cur_id()
        if self.by_current_id(rid):
            raise KustomizeError(f"may not add resource with an already registered id: {rid}")
        self.resources.append(res)
        if self._index is not None:
            names = self._filed[id(res)] = _index_names(res)
            for name in names:
                self._index.setdefault(name, []).append(res)

    def append_all(self, other: "ResMap") -> None:
        for res in other:
            self.append(res)

    def absorb(self, res: Resource) -> None:
        """Add a generated resource, honouring its behavior (create, merge, replace)."""
        rid = res.cur_id()
        matches = self.by_any_id(rid)
        if not matches:
            if res.behavior in ("merge", "replace"):
                raise KustomizeError(f"id {_go_id(rid)} does not exist; cannot merge or replace")
            self.append(res)
            return
        if len(matches) > 1:
            raise KustomizeError(f"found multiple objects {[str(m.cur_id()) for m in matches]} that could accept merge of {rid}")
        old = matches[0]
        if res.behavior == "replace":
            _copy_merge_meta(res, old)
        elif res.behavior == "merge":
            _copy_merge_meta(res, old)
            if old.origin is not None:  # a merge keeps where the object first came from
                res.origin = old.origin
            for key in ("data", "binaryData"):
                merged = dict(old.obj.get(key) or {})
                merged.update(res.obj.get(key) or {})
                if merged:
                    res.obj[key] = merged
        else:
            raise KustomizeError(f"id {_go_id(rid)} exists; behavior must be merge or replace")
        self.resources[self.resources.index(old)] = res
        self._index = None

    def replace(self, old: Resource, new: Resource) -> None:
        self.resources[self.resources.index(old)] = new
        self._index = None

    def remove(self, res: Resource) -> None:
        self.resources.remove(res)
        self._index = None


def _index_names(res: Resource) -> set:
    return {res.name, *(i.name for i in res.prev_ids)}


def _copy_merge_meta(res: Resource, old: Resource) -> None:
    labels = dict(old.labels())
    labels.update(res.labels())
    if labels:
        res.meta["labels"] = labels
    annotations = dict(old.annotations())
    annotations.update(res.annotations())
    if annotations:
        res.meta["annotations"] = annotations
    res.name = old.name
    if old.namespace:
        res.namespace = old.namespace
    else:
        res.meta.pop("namespace", None)
    res.copy_tracking_from(old)
    # the hash mark survives only when both objects carry it (Kustomize's build annotations)
    res.needs_hash = res.needs_hash and old.needs_hash
    # annotations merge with the new object's winning: its origin, the old transformations
    if res.origin is None:
        res.origin = old.origin
    res.transformations = list(old.transformations) + res.transformations


def _go_id(rid: ResId) -> str:
    gvk = rid.gvk
    return (f'resid.ResId{{Gvk:resid.Gvk{{Group:"{gvk.group}", Version:"{gvk.version}", Kind:"{gvk.kind}", '
            f'isClusterScoped:{str(rid.cluster_scoped).lower()}}}, Name:"{rid.name}", Namespace:"{rid.namespace}"}}')
