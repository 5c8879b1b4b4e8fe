"""What the API server knows about its resources: the built-in table and CustomResourceDefinitions.

The built-in facts (groups in the server's priority order, versions, preferred versions,
resources, kinds, scopes, short names, verbs, categories, subresources) come from
`data/builtin_resources.json`, derived from a recorded kube-apiserver 1.32.13 by
`tools/gen_builtin_resources.py`. That table is loaded once and shared read-only; every server
owns a `Registry`, which adds the resources of the CustomResourceDefinitions it serves.

`Registry.resolve` turns what a user types (`po`, `pod`, `pods`, `Pod`, `deploy.apps`,
`deployments.v1.apps`) into a resource the way kubectl's discovery REST mapper does, so the
client side can reuse it on any discovery data.
"""
from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping

# Not dataclasses: their import (inspect, ast, dis) and the methods they compile at every start
# were ~12 ms of every command that reads discovery (kubelite.record).
from kubelite.record import FrozenRecord, uncompared

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable


SCALE_GROUP, SCALE_VERSION, SCALE_KIND = "autoscaling", "v1", "Scale"
_STATUS_VERBS = ("get", "patch", "update")
# The order in which the apiextensions server lists a custom resource's verbs.
CRD_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")


class ResourceNotFound(LookupError):
    """A user-typed resource name that no served resource answers to."""

    def __init__(self, name: str):
        super().__init__(f'the server doesn\'t have a resource type "{name}"')
        self.name = name


class InvalidCustomResourceDefinition(ValueError):
    """A CustomResourceDefinition the registry cannot serve; the message names the field."""


class SubresourceInfo(FrozenRecord):
    """A subresource such as `status`, `scale` or `log`.

    group/version/kind are the kind the subresource answers with; group and version are ""
    when that kind lives in the parent's group-version (as aggregated discovery prints it).
    """

    name: str
    kind: str
    verbs: tuple[str, ...]
    group: str = ""
    version: str = ""
    # scale of a custom resource: (specReplicasPath, statusReplicasPath, labelSelectorPath)
    paths: tuple[str, ...] = ()


class ResourceInfo(FrozenRecord):
    """One resource in one group-version, e.g. apps/v1 deployments."""

    group: str
    version: str
    resource: str
    kind: str
    singular: str
    namespaced: bool
    verbs: tuple[str, ...] = ()
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[SubresourceInfo, ...] = ()
    storage_version_hash: str = ""
    # Set for custom resources: the CRD's name, list kind, printer columns and schema.
    crd: str | None = None
    list_kind: str = ""
    printer_columns: tuple[Mapping[str, Any], ...] = uncompared(())
    schema: Mapping[str, Any] | None = uncompared(None, repr=False)
    # A custom resource version's selectableFields, as field-selector labels (`spec.color`).
    selectable_fields: tuple[str, ...] = uncompared(())
    # Served as an extension API server would be behind the aggregator (metrics.k8s.io): never
    # stored, answered by its own handler.
    aggregated: bool = False

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    group_version = api_version

    @property
    def scope(self) -> str:
        return "Namespaced" if self.namespaced else "Cluster"

    @property
    def group_resource(self) -> str:
        """`deployments.apps`, or just `pods` in the core group (kubectl's spelling)."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def subresource(self, name: str) -> SubresourceInfo | None:
        for sub in self.subresources:
            if sub.name == name:
                return sub
        return None

    def supports(self, verb: str) -> bool:
        return verb in self.verbs


class GroupInfo(FrozenRecord):
    """A group with its versions in the server's priority order (the preferred one first)."""

    name: str
    versions: tuple[str, ...]
    preferred_version: str


# -- kube-aware version order -------------------------------------------------------------------

_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(version: str) -> tuple:
    """Sort key putting versions in Kubernetes priority order: v2, v1, v1beta2, v1beta1,
    v1alpha1, then anything not shaped like a Kubernetes version, alphabetically."""
    m = _KUBE_VERSION.match(version)
    if not m:
        return (3, 0, 0, version)
    major = int(m.group(1))
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    minor = int(m.group(3) or 0)
    return (stage, -major, -minor, "")


# -- built-in table -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _builtin() -> tuple[tuple[GroupInfo, ...], tuple[ResourceInfo, ...]]:
    # A plain read: importlib.resources brings tempfile, shutil and zipfile (~4 ms at every start)
    with open(os.path.join(os.path.dirname(__file__), "data", "builtin_resources.json"), "rb") as f:
        raw = json.loads(f.read())
    groups, infos = [], []
    for g in raw["groups"]:
        versions = tuple(v["version"] for v in g["versions"])
        groups.append(GroupInfo(g["name"], versions, g["preferredVersion"]))
        for v in g["versions"]:
            for r in v["resources"]:
                infos.append(_from_table(g["name"], v["version"], r))
    return tuple(groups), tuple(infos)


def _from_table(group: str, version: str, r: dict) -> ResourceInfo:
    subs = tuple(SubresourceInfo(s["name"], s["kind"], tuple(s["verbs"]), s.get("group", ""), s.get("version", ""))
                 for s in r.get("subresources", ()))
    return ResourceInfo(
        group=group, version=version, resource=r["resource"], kind=r["kind"], singular=r["singular"],
        namespaced=r["namespaced"], verbs=tuple(r["verbs"]), short_names=tuple(r.get("shortNames", ())),
        categories=tuple(r.get("categories", ())), subresources=subs,
        storage_version_hash=r.get("storageVersionHash", ""),
    )


def _group_from_discovery(item: Mapping[str, Any], infos: list[ResourceInfo]) -> tuple[str, tuple[str, ...]]:
    """Collect one APIGroupDiscovery's resources into `infos`; its name and versions (in the
    server's preference order)."""
    try:
        group = (item.get("metadata") or {}).get("name") or ""
        versions = []
        for version in item.get("versions") or ():
            vname = version["version"]
            versions.append(vname)
            for r in version.get("resources") or ():
                table = {"resource": r["resource"], "kind": (r.get("responseKind") or {}).get("kind", ""),
                         "singular": r.get("singularResource", ""), "namespaced": r.get("scope") == "Namespaced",
                         "verbs": r.get("verbs") or [], "shortNames": r.get("shortNames") or [],
                         "categories": r.get("categories") or [],
                         "subresources": [{"name": s["subresource"], "kind": (s.get("responseKind") or {}).get("kind", ""),
                                           "group": (s.get("responseKind") or {}).get("group", ""),
                                           "version": (s.get("responseKind") or {}).get("version", ""),
                                           "verbs": s.get("verbs") or []}
                                          for s in r.get("subresources") or ()]}
                infos.append(_from_table(group, vname, table))
    except (KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"malformed aggregated discovery group {item.get('metadata') if isinstance(item, Mapping) else item!r}: {err!r}") from None
    return group, tuple(versions)


def builtin_resources() -> tuple[ResourceInfo, ...]:
    """Every built-in resource in every version the 1.32 server serves (shared, immutable)."""
    return _builtin()[1]


# -- the registry -------------------------------------------------------------------------------


class Registry:
    """The resources one server serves: the built-in ones plus those of its CRDs.

    `generation` grows with every CRD change so that cached documents (discovery, OpenAPI)
    can tell when to rebuild.
    """

    def __init__(self, *, builtins: bool = True):
        if builtins:
            self._builtin_groups, self._builtin_infos = _builtin()
        else:
            self._builtin_groups, self._builtin_infos = (), ()
        self._crds: dict[str, tuple[ResourceInfo, ...]] = {}
        self._aggregated: dict[str, tuple[GroupInfo, tuple[ResourceInfo, ...]]] = {}
        self.generation = 0
        self._reindex()

    @classmethod
    def from_discovery(cls, *documents: Mapping[str, Any]) -> "Registry":
        """A registry of what another server announces in aggregated discovery (the
        APIGroupDiscoveryList documents of its /api and /apis), so a client can resolve names
        exactly as against the embedded server. Custom resources there count as plain ones."""
        registry = cls(builtins=False)
        groups, infos = [], []
        for doc_index, document in enumerate(documents):
            items = document.get("items") if isinstance(document, Mapping) else None
            if not isinstance(items, list):
                raise ValueError(f"discovery document {doc_index}: items: must be a list of API groups")
            for item in items:
                group, versions = _group_from_discovery(item, infos)
                if versions:
                    groups.append(GroupInfo(group, versions, versions[0]))
        registry._builtin_groups, registry._builtin_infos = tuple(groups), tuple(infos)
        registry._reindex()
        return registry

    # -- queries --------------------------------------------------------------------------------
    # Each query reads `self._index` once: a CRD change swaps in a whole new index, so a
    # concurrent reader sees either the old resources or the new ones, never a mixture.
    def groups(self) -> tuple[GroupInfo, ...]:
        """Groups in discovery order: the core group "" first, built-ins, then CRD groups."""
        return self._index.groups

    def group(self, name: str) -> GroupInfo | None:
        return self._index.group_by_name.get(name)

    def preferred_version(self, group: str) -> str | None:
        g = self._index.group_by_name.get(group)
        return g.preferred_version if g else None

    def all(self) -> list[ResourceInfo]:
        """Every resource in every served version, in discovery order."""
        return list(self._index.ordered)

    def preferred(self) -> list[ResourceInfo]:
        """Resources at their group's preferred version (what `kubectl api-resources` lists)."""
        idx = self._index
        return [r for r in idx.ordered if r.version == idx.group_by_name[r.group].preferred_version]

    def resources_in(self, group: str, version: str) -> list[ResourceInfo]:
        return list(self._index.by_gv.get((group, version), ()))

    def lookup(self, group: str, version: str, resource: str) -> ResourceInfo | None:
        """The resource `resource` (plural) served at group/version, or None."""
        return self._index.by_gvr.get((group, version, resource))

    def by_kind(self, group: str, version: str, kind: str) -> ResourceInfo | None:
        """The resource whose objects have this kind at group/version, or None."""
        return self._index.by_gvk.get((group, version, kind))

    def by_category(self, category: str) -> list[ResourceInfo]:
        """Resources (preferred versions) in a category such as `all`, as `kubectl get all` expands it."""
        return [r for r in self.preferred() if category in r.categories]

    def resolve(self, name: str) -> ResourceInfo:
        """The resource a user means by `name`, as kubectl resolves it.

        Accepts the plural, singular, a short name or the kind in any case, each optionally
        qualified as `<name>.<group>` or `<name>.<version>.<group>`. Among groups serving the
        same name, the one listed first in discovery wins (so `events` is core/v1 events).
        Raises ResourceNotFound otherwise.
        """
        if not isinstance(name, str) or not name.strip():
            raise ResourceNotFound(str(name))
        idx = self._index
        typed = name.strip()
        parts = typed.lower().split(".")
        if len(parts) >= 3:
            found = _resolve_in(idx, parts[0], ".".join(parts[2:]), parts[1])
            if found:
                return found
        group = ".".join(parts[1:]) if len(parts) > 1 else None
        found = _resolve_in(idx, parts[0], group, None)
        if found:
            return found
        raise ResourceNotFound(typed)

    # -- CustomResourceDefinitions -------------------------------------------------------------
    def register_crd(self, crd: Mapping[str, Any]) -> list[ResourceInfo]:
        """Serve the resources of a CustomResourceDefinition (replacing an earlier registration
        of the same name); returns one ResourceInfo per served version."""
        name, infos = _crd_resources(crd)
        for info in infos:
            clash = self._index.builtin_gvr.get((info.group, info.version, info.resource))
            if clash is not None:
                raise InvalidCustomResourceDefinition(
                    f"spec.names.plural: {info.resource}.{info.group} is a built-in resource")
        self._crds[name] = tuple(infos)
        self._changed()
        return list(infos)

    def unregister_crd(self, name: str) -> bool:
        """Stop serving the CRD named `name` (`<plural>.<group>`); False if it was not registered."""
        if self._crds.pop(name, None) is None:
            return False
        self._changed()
        return True

    def crd_resources(self, name: str) -> list[ResourceInfo]:
        return list(self._crds.get(name, ()))

    # -- aggregated APIs ------------------------------------------------------------------------
    def add_aggregated(self, group: GroupInfo, infos: Iterable[ResourceInfo]) -> None:
        """Serve a group the way the aggregator serves an APIService's: listed after the built-in
        and CRD groups (its low groupPriorityMinimum), resources marked `aggregated`."""
        self._aggregated[group.name] = (group, tuple(infos))
        self._changed()

    # -- indexes --------------------------------------------------------------------------------
    def _changed(self) -> None:
        self._reindex()
        self.generation += 1

    def _reindex(self) -> None:
        crd_infos = [i for infos in self._crds.values() for i in infos]
        self._index = _Index(self._builtin_groups, self._builtin_infos, crd_infos,
                             tuple(self._aggregated.values()))


class _Index:
    """Lookup tables over one snapshot of the served resources."""

    def __init__(self, builtin_groups, builtin_infos, crd_infos, aggregated=()):
        groups = list(builtin_groups)
        known = {g.name for g in groups}
        for gname in sorted({i.group for i in crd_infos} - known):
            versions = sorted({i.version for i in crd_infos if i.group == gname}, key=version_priority)
            groups.append(GroupInfo(gname, tuple(versions), versions[0]))
        served = list(crd_infos)
        for group, infos in aggregated:
            groups.append(group)
            served.extend(infos)
        self.groups = tuple(groups)
        self.group_by_name = {g.name: g for g in groups}
        self.builtin_gvr = {(i.group, i.version, i.resource): i for i in builtin_infos}
        by_gv: dict[tuple[str, str], list[ResourceInfo]] = {}
        for info in list(builtin_infos) + served:
            by_gv.setdefault((info.group, info.version), []).append(info)
        for members in by_gv.values():
            members.sort(key=lambda i: i.resource)
        self.by_gv = {k: tuple(v) for k, v in by_gv.items()}
        self.ordered = tuple(i for g in groups for v in g.versions for i in self.by_gv.get((g.name, v), ()))
        self.by_gvr = {(i.group, i.version, i.resource): i for i in self.ordered}
        self.by_gvk: dict[tuple[str, str, str], ResourceInfo] = {}
        for i in self.ordered:
            self.by_gvk.setdefault((i.group, i.version, i.kind), i)


def _resolve_in(idx: _Index, word: str, group: str | None, version: str | None) -> ResourceInfo | None:
    candidates = [r for r in idx.ordered
                  if (group is None or r.group == group) and (version is None or r.version == version)]
    for match in (_is_short_name, _is_plural_or_singular, _is_kind):
        hits = [r for r in candidates if match(r, word)]
        if hits:
            return hits[0] if version else _preferred_of(idx, hits)
    return None


def _preferred_of(idx: _Index, hits: list[ResourceInfo]) -> ResourceInfo:
    first = hits[0]
    preferred = idx.group_by_name[first.group].preferred_version
    for r in hits:
        if r.group == first.group and r.resource == first.resource and r.version == preferred:
            return r
    return first


def _is_short_name(r: ResourceInfo, word: str) -> bool:
    return word in r.short_names


def _is_plural_or_singular(r: ResourceInfo, word: str) -> bool:
    return word == r.resource or word == (r.singular or r.kind.lower())


def _is_kind(r: ResourceInfo, word: str) -> bool:
    return word == r.kind.lower()


# -- CRD -> ResourceInfo ------------------------------------------------------------------------


def _crd_resources(crd: Mapping[str, Any]) -> tuple[str, list[ResourceInfo]]:
    if not isinstance(crd, Mapping):
        raise InvalidCustomResourceDefinition("CustomResourceDefinition must be an object")
    spec = _mapping(crd, "spec", "spec")
    names = _mapping(spec, "names", "spec.names")
    group = _string(spec, "group", "spec.group")
    plural = _string(names, "plural", "spec.names.plural")
    kind = _string(names, "kind", "spec.names.kind")
    singular = names.get("singular") or kind.lower()
    list_kind = names.get("listKind") or kind + "List"
    short_names = tuple(_string_list(names, "shortNames", "spec.names.shortNames"))
    categories = tuple(_string_list(names, "categories", "spec.names.categories"))
    scope = spec.get("scope")
    if scope not in ("Namespaced", "Cluster"):
        raise InvalidCustomResourceDefinition(
            f'spec.scope: Unsupported value: {json.dumps(scope)}: supported values: "Cluster", "Namespaced"')
    expected = f"{plural}.{group}"
    name = (crd.get("metadata") or {}).get("name") or expected
    if name != expected:
        raise InvalidCustomResourceDefinition(f'metadata.name: Invalid value: "{name}": must be spec.names.plural+"."+spec.group')
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        raise InvalidCustomResourceDefinition("spec.versions: Required value: must have exactly one version marked as storage version")
    for index, version in enumerate(versions):
        if not isinstance(version, Mapping):
            raise InvalidCustomResourceDefinition(f"spec.versions[{index}]: must be an object")
    storage = [v for v in versions if v.get("storage")]
    if len(storage) != 1:
        raise InvalidCustomResourceDefinition("spec.versions: Invalid value: must have exactly one version marked as storage version")
    storage_hash = _storage_version_hash(group, storage[0].get("name", ""), kind)
    infos = []
    for index, version in enumerate(versions):
        where = f"spec.versions[{index}]"
        vname = _string(version, "name", f"{where}.name")
        if not version.get("served"):
            continue
        infos.append(ResourceInfo(
            group=group, version=vname, resource=plural, kind=kind, singular=singular,
            namespaced=scope == "Namespaced", verbs=CRD_VERBS, short_names=short_names,
            categories=categories, subresources=_crd_subresources(version, kind, where),
            storage_version_hash=storage_hash, crd=name, list_kind=list_kind,
            printer_columns=_printer_columns(version, where),
            schema=_version_schema(version, where),
            selectable_fields=_selectable_fields(version, where),
        ))
    return name, infos


def _selectable_fields(version: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """The field-selector labels a version declares: each jsonPath without its leading dot."""
    fields = version.get("selectableFields") or []
    if not isinstance(fields, list):
        raise InvalidCustomResourceDefinition(f"{where}.selectableFields: must be a list")
    labels = []
    for index, entry in enumerate(fields):
        path = entry.get("jsonPath") if isinstance(entry, Mapping) else None
        if not isinstance(path, str) or not path:
            raise InvalidCustomResourceDefinition(f"{where}.selectableFields[{index}].jsonPath: Required value")
        labels.append(path[1:] if path.startswith(".") else path)
    return tuple(labels)


def _crd_subresources(version: Mapping[str, Any], kind: str, where: str) -> tuple[SubresourceInfo, ...]:
    subs = version.get("subresources") or {}
    if not isinstance(subs, Mapping):
        raise InvalidCustomResourceDefinition(f"{where}.subresources: must be an object")
    out = []
    # Discovery lists scale before status (sorted by name), like the built-in resources.
    if subs.get("scale") is not None:
        scale = subs["scale"]
        if not isinstance(scale, Mapping) or not scale.get("specReplicasPath") or not scale.get("statusReplicasPath"):
            raise InvalidCustomResourceDefinition(
                f"{where}.subresources.scale.specReplicasPath: Required value")
        paths = (scale["specReplicasPath"], scale["statusReplicasPath"], scale.get("labelSelectorPath") or "")
        out.append(SubresourceInfo("scale", SCALE_KIND, _STATUS_VERBS, SCALE_GROUP, SCALE_VERSION, paths))
    if subs.get("status") is not None:
        out.append(SubresourceInfo("status", kind, _STATUS_VERBS))
    return tuple(out)


def _printer_columns(version: Mapping[str, Any], where: str) -> tuple[Mapping[str, Any], ...]:
    columns = version.get("additionalPrinterColumns") or []
    if not isinstance(columns, list) or not all(isinstance(c, Mapping) for c in columns):
        raise InvalidCustomResourceDefinition(f"{where}.additionalPrinterColumns: must be a list of objects")
    import copy  # here: a client's discovery (every command) reads no CRD

    return tuple(copy.deepcopy(columns))


def _version_schema(version: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    holder = version.get("schema") or {}
    schema = holder.get("openAPIV3Schema") if isinstance(holder, Mapping) else None
    if schema is not None and not isinstance(schema, Mapping):
        raise InvalidCustomResourceDefinition(f"{where}.schema.openAPIV3Schema: must be an object")
    import copy

    return copy.deepcopy(schema)


def _storage_version_hash(group: str, version: str, kind: str) -> str:
    import base64
    import hashlib

    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _mapping(obj: Mapping, key: str, path: str) -> Mapping:
    value = obj.get(key)
    if not isinstance(value, Mapping):
        raise InvalidCustomResourceDefinition(f"{path}: Required value")
    return value


def _string(obj: Mapping, key: str, path: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidCustomResourceDefinition(f"{path}: Required value")
    return value


def _string_list(obj: Mapping, key: str, path: str) -> Iterable[str]:
    value = obj.get(key) or []
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InvalidCustomResourceDefinition(f"{path}: must be a list of strings")
    return value
