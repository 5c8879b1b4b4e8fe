"""vars: $(NAME) references replaced by a field of another object."""
from __future__ import annotations

import re

from . import fieldpath, fieldspec
from .errors import KustomizeError
from .fieldspec import FieldSpec
from .resmap import ResMap
from .resource import Gvk, split_api_version

_REF = re.compile(r"\$\(([A-Za-z0-9_.\-]+)\)|\$\$")


def _objref_id(var: dict):
    ref = var.get("objref") or {}
    group, version = split_api_version(str(ref.get("apiVersion") or ""))
    group = ref.get("group", group) or group
    version = ref.get("version", version) or version
    return group, version, ref.get("kind") or "", ref.get("name") or "", ref.get("namespace") or ""


def _var_str(var: dict) -> str:
    group, version, kind, name, ns = _objref_id(var)
    path = (var.get("fieldref") or {}).get("fieldpath") or "metadata.name"
    return f"{{{var.get('name')} {Gvk(group, version, kind)} {{{path}}}}}"


def match_var(resmap: ResMap, var: dict) -> None:
    """Bind a var to the one object its objref names (Kustomize's MergeVars)."""
    group, version, kind, name, ns = _objref_id(var)
    matched = []
    for res in resmap:
        for rid in res.all_ids():
            if rid.name != name or not rid.gvk.selected_by(group, version, kind):
                continue
            if (ns or rid.cluster_scoped) and rid.effective_namespace() != (ns or rid.effective_namespace()):
                continue
            if ns and rid.namespace != ns and rid.effective_namespace() != ns:
                continue
            matched.append(res)
            break
    if len(matched) > 1:
        raise KustomizeError(f"found {len(matched)} resId matches for var {_var_str(var)} (unable to disambiguate)")
    if matched:
        matched[0].refvars.append(var.get("name"))


def _var_target(resmap: ResMap, var: dict) -> object:
    for res in resmap:
        if var.get("name") in res.refvars:
            path = (var.get("fieldref") or {}).get("fieldpath") or "metadata.name"
            values = fieldpath.lookup(res.obj, fieldpath.parse(path))
            if not values:
                raise KustomizeError(f"field specified in var '{_var_str(var)}' not found in corresponding resource")
            return values[0]
    raise KustomizeError(f"var '{_var_str(var)}' cannot be mapped to a field in the set of known resources")


def _old_var_target(resmap: ResMap, var: dict) -> object:
    ref = var.get("objref") or {}
    group, version = split_api_version(str(ref.get("apiVersion") or ""))
    group = ref.get("group", group) or group
    version = ref.get("version", version) or version
    kind, name, ns = ref.get("kind") or "", ref.get("name") or "", ref.get("namespace") or ""
    matches = []
    for res in resmap:
        for rid in [res.org_id()]:
            if name and rid.name != name:
                continue
            if not rid.gvk.selected_by(group, version, kind):
                continue
            if ns and rid.effective_namespace() != ns:
                continue
            matches.append(res)
            break
    if len(matches) > 1:
        raise KustomizeError(
            f"found {len(matches)} resId matches for var {var.get('name')} (unable to disambiguate)")
    if not matches:
        raise KustomizeError(f"var '{var.get('name')}' cannot be mapped to a field in the set of known resources")
    path = (var.get("fieldref") or {}).get("fieldpath") or "metadata.name"
    values = fieldpath.lookup(matches[0].obj, fieldpath.parse(path))
    if not values:
        raise KustomizeError(f"field specified in var '{var.get('name')}' not found in corresponding resource")
    return values[0]


def _to_string(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _expand(text: str, values: dict, used: set) -> object:
    whole = re.fullmatch(r"\$\(([A-Za-z0-9_.\-]+)\)", text)
    if whole and whole.group(1) in values:
        used.add(whole.group(1))
        return values[whole.group(1)]

    def sub(m):
        if m.group(0) == "$$":
            return "$"
        name = m.group(1)
        if name in values:
            used.add(name)
            return _to_string(values[name])
        return m.group(0)
    return _REF.sub(sub, text)


def resolve_vars(resmap: ResMap, var_list: list, specs: list[FieldSpec]) -> None:
    values = {v.get("name"): _var_target(resmap, v) for v in var_list}
    used: set = set()

    def setter(container, key):
        value = container.get(key) if isinstance(container, dict) else None
        if isinstance(value, str):
            container[key] = _expand(value, values, used)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, str):
                    value[i] = _expand(item, values, used)
        elif isinstance(value, dict):
            for k, item in value.items():
                if isinstance(item, str):
                    value[k] = _expand(item, values, used)

    for res in resmap:
        gvk = res.gvk
        for spec in specs:
            if spec.selects(gvk):
                fieldspec.apply(res.obj, FieldSpec(spec.path, spec.group, spec.version, spec.kind, False), setter)
