"""The simple built-in transformers: namespace, name prefix/suffix, labels,
annotations, images and replicas. Each is a function over a ResMap."""
from __future__ import annotations

import re

from . import fieldspec
from .errors import KustomizeError
from .fieldspec import FieldSpec
from .resmap import ResMap
from .resource import Gvk, Resource, scalar_text

_PREFIX_SKIP = (("", "CustomResourceDefinition"), ("apiregistration.k8s.io", "APIService"), ("", "Namespace"))


def _scalar_setter(value: str, create: bool, only_if_empty: bool = False):
    def set_(container: dict, key: str) -> None:
        current = container.get(key)
        if key not in container or current is None:
            if create:
                container[key] = value
            return
        if isinstance(current, (dict, list)):
            raise KustomizeError(f"namespace field specs must target scalar nodes")
        if only_if_empty and current not in ("", None):
            return
        container[key] = value
    return set_


# -- namespace -------------------------------------------------------------------------
def namespace(resmap: ResMap, ns: str, specs: list[FieldSpec], subjects_mode: str = "", unset_only: bool = False) -> None:
    for res in list(resmap):
        if not res.obj:
            continue
        res.store_previous_id()
        _namespace_one(res, ns, specs, subjects_mode, unset_only)
        if res.kind == "Namespace":
            resmap.names_changed()
        matches = resmap.by_current_id(res.cur_id())
        if len(matches) != 1:
            from .printing import go_json_list

            raise KustomizeError(f"namespace transformation produces ID conflict: {go_json_list(matches)}")


def _namespace_one(res: Resource, ns: str, specs: list[FieldSpec], mode: str, unset_only: bool) -> None:
    gvk = res.gvk
    api_version = res.obj.get("apiVersion")
    kept = [s for s in specs if s.path != "metadata/namespace" and not (api_version != "v1" and s.path == "metadata/name")]
    if not res.cur_id().cluster_scoped:
        meta = res.meta
        if not (unset_only and meta.get("namespace")):
            meta["namespace"] = ns
    if gvk.kind in ("RoleBinding", "ClusterRoleBinding"):
        kept = [s for s in kept if not (s.kind in ("RoleBinding", "ClusterRoleBinding") and s.path == "subjects/namespace")]
        _subjects(res, ns, mode, unset_only)
    for spec in kept:
        if spec.selects(gvk):
            fieldspec.apply(res.obj, spec, _scalar_setter(ns, spec.create, unset_only))


def check_subjects_mode(mode: str) -> None:
    if mode not in ("", "defaultOnly", "allServiceAccounts", "none"):
        raise KustomizeError(f'invalid value "{mode}" for setRoleBindingSubjects: '
                             'must be one of "defaultOnly", "none" or "allServiceAccounts"')


def _subjects(res: Resource, ns: str, mode: str, unset_only: bool) -> None:
    if mode == "none":
        return
    check_subjects_mode(mode)
    subjects = res.obj.get("subjects")
    if not isinstance(subjects, list):
        return
    for subject in subjects:
        if not isinstance(subject, dict):
            continue
        if mode == "allServiceAccounts":
            if subject.get("kind") != "ServiceAccount":
                continue
        elif subject.get("name") != "default":
            continue
        if unset_only and subject.get("namespace"):
            continue
        subject["namespace"] = ns


# -- prefix / suffix -------------------------------------------------------------------
def _skips_prefix(gvk: Gvk) -> bool:
    return any(gvk.selected_by(group=g, kind=k) for g, k in _PREFIX_SKIP)


def prefix_suffix(resmap: ResMap, prefix: str, suffix: str, specs: list[FieldSpec]) -> None:
    resmap.names_changed()
    for res in resmap:
        org = res.org_id()
        if _skips_prefix(org.gvk):
            continue
        for spec in specs:
            if not spec.selects(org.gvk):
                continue
            if spec.path == "metadata/name":
                if prefix or not suffix:
                    res.prefixes.append(prefix) if prefix else None
                if suffix:
                    res.suffixes.append(suffix)
                if prefix or suffix:
                    res.store_previous_id()

            def set_(container: dict, key: str, create: bool = spec.create) -> None:
                value = scalar_text(container.get(key))  # kyaml renames `name: 5` to "p-5"
                if value or isinstance(container.get(key), str) or (create and key not in container):
                    container[key] = f"{prefix}{value}{suffix}"  # a field created empty: the affixes alone
            fieldspec.apply(res.obj, spec, set_)


# -- labels / annotations --------------------------------------------------------------
def _map_setter(pairs: dict):
    def set_(container: dict, key: str) -> None:
        current = container.get(key)
        if not isinstance(current, dict):
            if current is not None and not isinstance(current, dict):
                return
            current = {}
            container[key] = current
        for k, v in pairs.items():
            current[k] = v
    return set_


def add_map_entries(resmap: ResMap, pairs: dict, specs: list[FieldSpec]) -> None:
    if not pairs:
        return
    pairs = {str(k): _stringify(v) for k, v in pairs.items()}
    for res in resmap:
        gvk = res.gvk
        for spec in specs:
            if not spec.selects(gvk):
                continue
            fieldspec.apply(res.obj, spec, _map_setter_create(pairs, spec.create))


def _map_setter_create(pairs: dict, create: bool):
    def set_(container: dict, key: str) -> None:
        current = container.get(key)
        if current is None:
            if not create:
                return
            current = {}
            container[key] = current
        if not isinstance(current, dict):
            return
        for k, v in pairs.items():
            current[k] = v
    return set_


def _stringify(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        from kubelite.manifest import _gonum

        return _gonum.go_g(value)
    return str(value)


# -- images ----------------------------------------------------------------------------
def image_matches(value: str, name: str) -> bool:
    return re.match("^" + name + r"(@sha256)?(:[a-zA-Z0-9_.{}-]*)?$", value) is not None


def split_image(image: str) -> tuple[str, str, str]:
    name, digest = image, ""
    if "@" in image:
        name, _, digest = image.partition("@")
    tag = ""
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1:]
    return name, tag, digest


def _new_image(value: str, spec: dict) -> str:
    name, tag, digest = split_image(value)
    new_name = spec.get("newName") or ""
    new_tag = _stringify(spec.get("newTag")) if spec.get("newTag") not in (None, "") else ""
    new_digest = spec.get("digest") or ""
    if new_name:
        name = new_name
    if new_tag and new_digest:
        tag, digest = new_tag, new_digest
    elif new_tag:
        tag, digest = new_tag, ""
    elif new_digest:
        tag, digest = "", new_digest
    if spec.get("tagSuffix"):
        tag = tag + str(spec["tagSuffix"])
    out = name
    if tag:
        out += ":" + tag
    if digest:
        out += "@" + digest
    return out


def images(resmap: ResMap, spec: dict, specs: list[FieldSpec]) -> None:
    name = spec.get("name") or ""
    try:
        re.compile(name)
    except re.error:
        name = re.escape(name)

    def update(container: dict, key: str) -> None:
        value = container.get(key)
        if isinstance(value, str) and image_matches(value, name):
            container[key] = _new_image(value, spec)

    for res in resmap:
        _legacy_images(res.obj, update)
        gvk = res.gvk
        for fs in specs:
            if fs.selects(gvk):
                fieldspec.apply(res.obj, FieldSpec(fs.path, fs.group, fs.version, fs.kind, False), update)


def _legacy_images(node: object, update) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("containers", "initContainers") and isinstance(value, list):
                for item in value:
                    if isinstance(item, dict) and "image" in item:
                        update(item, "image")
            _legacy_images(value, update)
    elif isinstance(node, list):
        for item in node:
            _legacy_images(item, update)


# -- replicas --------------------------------------------------------------------------
def replicas(resmap: ResMap, spec: dict, specs: list[FieldSpec]) -> None:
    name = spec.get("name") or ""
    count = spec.get("count", 0)
    found = [r for r in resmap if any(i.name == name for i in r.all_ids())]
    applied = False
    for res in found:
        gvk = res.gvk
        for fs in specs:
            if fs.selects(gvk):
                applied = True

                def set_(container: dict, key: str) -> None:
                    container[key] = count
                fieldspec.apply(res.obj, fs, set_)
    if not applied:
        from .sorting import DEFAULT_FIRST, DEFAULT_LAST

        # Kustomize keeps field specs sorted by kind priority (as the legacy sort), then id
        rank = {kind: i - len(DEFAULT_FIRST) for i, kind in enumerate(DEFAULT_FIRST)}
        rank.update({kind: 1 + i for i, kind in enumerate(DEFAULT_LAST)})
        ordered = sorted((Gvk(fs.group, fs.version, fs.kind) for fs in specs),
                         key=lambda g: (rank.get(g.kind, 0), str(g)))
        gvks = " ".join(str(g) for g in ordered)
        raise KustomizeError(f"resource with name {name} does not match a config with the following GVK [{gvks}]")
