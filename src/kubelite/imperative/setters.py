"""kubectl set image | resources | selector | serviceaccount | subject | env, as pure functions.

Each takes an object dict and returns ``(new_object, errors)``; the input is never modified.
``errors`` are kubectl's per-container messages (the command still prints the object).
An object kubectl cannot update raises :class:`ImperativeError`.
"""
from __future__ import annotations

import copy

from .errors import ImperativeError

_TEMPLATED = {"ReplicationController", "Deployment", "DaemonSet", "ReplicaSet", "StatefulSet", "Job"}


def pod_spec(obj: dict) -> dict:
    """The PodSpec kubectl's UpdatePodSpecForObject edits (created empty where missing)."""
    kind = obj.get("kind")
    if kind == "Pod":
        return obj.setdefault("spec", {})
    if kind in _TEMPLATED:
        return obj.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
    if kind == "CronJob":
        job = obj.setdefault("spec", {}).setdefault("jobTemplate", {}).setdefault("spec", {})
        return job.setdefault("template", {}).setdefault("spec", {})
    raise ImperativeError(f"the object is not a pod or does not have a pod template: *{_go_type(obj)}")


def _go_type(obj: dict) -> str:
    version = str(obj.get("apiVersion", "")).split("/")[-1]
    return f"{version}.{obj.get('kind', '')}"


def _select(containers: list | None, selector: str) -> list[dict]:
    import fnmatch

    return [c for c in containers or () if fnmatch.fnmatchcase(c.get("name", ""), selector)]


def set_image(obj: dict, images: dict[str, str]) -> tuple[dict, list[str]]:
    obj = copy.deepcopy(obj)
    spec = pod_spec(obj)
    errors = []
    for name, image in images.items():
        found = False
        for key in ("initContainers", "containers"):
            for c in spec.get(key) or ():
                if name == "*" or c.get("name") == name:
                    c["image"] = image
                    found = True
        if not found:
            errors.append(f'error: unable to find container named "{name}"')
    return obj, errors


def parse_image_args(args: list[str]) -> tuple[list[str], dict[str, str]]:
    """Split ``TYPE NAME ... c1=img c2=img`` into resource args and container images."""
    resources, images = [], {}
    for arg in args:
        if "=" in arg:
            name, image = arg.split("=", 1)
            images[name] = image
        else:
            resources.append(arg)
    return resources, images


def set_resources(obj: dict, limits: dict, requests: dict, container: str = "*") -> tuple[dict, list[str], bool]:
    obj = copy.deepcopy(obj)
    spec = pod_spec(obj)
    targets = _select(spec.get("containers"), container) + _select(spec.get("initContainers"), container)
    if not targets:
        return obj, [f"error: unable to find container named {container}"], False
    for c in targets:
        resources = c.setdefault("resources", {})
        if limits:
            resources.setdefault("limits", {}).update(limits)
        if requests:
            resources.setdefault("requests", {}).update(requests)
    return obj, [], True


def set_selector(obj: dict, selector: dict) -> dict:
    """``selector`` as parse_to_label_selector returns it; only Services accept one."""
    if obj.get("kind") != "Service":
        raise ImperativeError("setting a selector is only supported for Services")
    if selector.get("matchExpressions"):
        raise ImperativeError(f"match expression {_go_expressions(selector['matchExpressions'])} "
                              "not supported on this object")
    obj = copy.deepcopy(obj)
    labels = dict(selector.get("matchLabels") or {})
    spec = obj.setdefault("spec", {})
    if labels:
        spec["selector"] = labels
    else:
        spec.pop("selector", None)
    return obj


def _go_expressions(exprs: list[dict]) -> str:
    parts = [f"{{{e['key']} {e['operator']} [{' '.join(e.get('values') or [])}]}}" for e in exprs]
    return "[" + " ".join(parts) + "]"


def set_service_account(obj: dict, name: str) -> dict:
    obj = copy.deepcopy(obj)
    spec = pod_spec(obj)
    if name:
        spec["serviceAccountName"] = name
    else:
        spec.pop("serviceAccountName", None)
    return obj


def set_subject(obj: dict, users: list[str] = (), groups: list[str] = (),
                service_accounts: list[str] = ()) -> tuple[dict, bool]:
    from .rbac import RBAC

    if obj.get("kind") not in ("RoleBinding", "ClusterRoleBinding"):
        raise ImperativeError("setting subjects is only supported for RoleBinding/ClusterRoleBinding")
    wanted = [{"kind": "User", "apiGroup": RBAC, "name": u} for u in users]
    wanted += [{"kind": "Group", "apiGroup": RBAC, "name": g} for g in groups]
    for sa in service_accounts:
        namespace, _, name = sa.partition(":")
        if not name:
            name, namespace = namespace, ""
        wanted.append({"kind": "ServiceAccount", "name": name, "namespace": namespace})
    obj = copy.deepcopy(obj)
    existing = obj.get("subjects") or []
    added = False
    for subject in wanted:
        if not any(_same_subject(subject, e) for e in existing):
            existing.append(subject)
            added = True
    obj["subjects"] = existing
    return obj, added


def _same_subject(a: dict, b: dict) -> bool:
    return all(a.get(k, "") == b.get(k, "") for k in ("kind", "apiGroup", "name", "namespace"))


def set_env(obj: dict, add: list[dict], remove: list[str], container: str = "*",
            overwrite: bool = True) -> tuple[dict, list[str], bool]:
    """Add/replace ``add`` (EnvVar dicts) and drop ``remove`` names in the selected containers."""
    obj = copy.deepcopy(obj)
    spec = pod_spec(obj)
    targets = _select(spec.get("containers"), container) + _select(spec.get("initContainers"), container)
    if not targets:
        return obj, [no_container_warning(obj, container)], False
    errors: list[str] = []
    for c in targets:
        env = list(c.get("env") or [])
        for var in add:
            index = next((i for i, e in enumerate(env) if e.get("name") == var["name"]), None)
            if index is None:
                env.append(var)
            elif overwrite:
                env[index] = var
            else:
                errors.append(f"'{var['name']}' already has a value ({env[index].get('value', '')}), "
                              "and --overwrite is false")
        env = [e for e in env if e.get("name") not in remove]
        if env:
            c["env"] = env
        else:
            c.pop("env", None)
    return obj, errors, True


def no_container_warning(obj: dict, container: str) -> str:
    """Not an error for kubectl: the object is left alone and the command goes on."""
    name = (obj.get("metadata") or {}).get("name", "")
    return f'Warning: {obj.get("kind", "")}/{name} does not have any containers matching "{container}"'


def parse_env_args(args: list[str]) -> tuple[list[dict], list[str]]:
    """``KEY=value`` and ``KEY-`` arguments -> (env vars to set, names to remove)."""
    from .validation import env_var_name_errors

    add, remove = [], []
    for arg in args:
        if arg.endswith("-") and "=" not in arg:
            remove.append(arg[:-1])
            continue
        name, sep, value = arg.partition("=")
        if not sep:
            raise ImperativeError(f"environment variables must be of the form key=value and can only contain "
                                  f"letters, numbers, and underscores")
        errs = env_var_name_errors(name)
        if errs:
            raise ImperativeError(f"invalid key name: {'; '.join(errs)}")
        add.append({"name": name, "value": value})
    return add, remove


def env_name_for_key(key: str) -> str:
    """kubectl's keyToEnvName: characters outside [A-Za-z0-9_] become `_`, then upper case."""
    import re

    return re.sub(r"[^A-Za-z0-9_]", "_", key).upper()


def env_from_source(kind: str, name: str, data: dict, prefix: str = "", keys: list[str] | None = None) -> list[dict]:
    """``--from=configmap/x`` or ``secret/x``: one EnvVar per key (of ``keys``, if given) referencing
    the source. kubectl walks a Go map here, so its order varies from run to run; sorted here."""
    ref = "configMapKeyRef" if kind == "ConfigMap" else "secretKeyRef"
    return [{"name": prefix + env_name_for_key(key), "valueFrom": {ref: {"name": name, "key": key}}}
            for key in sorted(data or {}) if not keys or key in keys]


def env_ref_text(source: dict) -> str:
    """How ``set env --list`` names a valueFrom it does not resolve."""
    if source.get("configMapKeyRef"):
        ref = source["configMapKeyRef"]
        return f"configmap {ref.get('name', '')}, key {ref.get('key', '')}"
    if source.get("secretKeyRef"):
        ref = source["secretKeyRef"]
        return f"secret {ref.get('name', '')}, key {ref.get('key', '')}"
    if source.get("fieldRef"):
        return f"field path {source['fieldRef'].get('fieldPath', '')}"
    if source.get("resourceFieldRef"):
        ref = source["resourceFieldRef"]
        container = f"{ref['containerName']}/" if ref.get("containerName") else ""
        return f"resource field {container}{ref.get('resource', '')}"
    return "invalid valueFrom"


def field_ref_value(obj: dict, path: str) -> str:
    """The object fields ``--resolve`` can read through a fieldRef."""
    meta = obj.get("metadata") or {}
    if path.endswith("']") and "['" in path and not path.startswith("['"):
        base, _, key = path[:-2].partition("['")
        if base == "metadata.annotations":
            return (meta.get("annotations") or {}).get(key, "")
        if base == "metadata.labels":
            return (meta.get("labels") or {}).get(key, "")
        raise ImperativeError(f'fieldPath "{path}" does not support subscript')
    if path in ("metadata.annotations", "metadata.labels"):
        values = meta.get(path.split(".")[1]) or {}
        import json

        return "\n".join(f"{k}={json.dumps(values[k])}" for k in sorted(values))
    simple = {"metadata.name": "name", "metadata.namespace": "namespace", "metadata.uid": "uid"}
    if path in simple:
        return str(meta.get(simple[path], ""))
    raise ImperativeError(f"unsupported fieldPath: {path}")


def env_listing(obj: dict, kind: str, container: str, resolve=None) -> tuple[str, list[str]]:
    """``set env --list``: the text for the selected containers, and resolution errors (sorted).

    ``resolve(source, container)`` returns a value or raises ImperativeError; None lists references.
    """
    spec = pod_spec(obj)
    name = (obj.get("metadata") or {}).get("name", "")
    out: list[str] = []
    problems: dict[str, list[str]] = {}
    for c in _select(spec.get("containers"), container) + _select(spec.get("initContainers"), container):
        out.append(f"# {kind} {name}, container {c.get('name', '')}\n")
        for var in c.get("env") or []:
            source = var.get("valueFrom")
            if source is None:
                out.append(f"{var.get('name', '')}={var.get('value', '')}\n")
                continue
            if resolve is not None:
                try:
                    out.append(f"{var.get('name', '')}={resolve(source, c)}\n")
                    continue
                except ImperativeError as err:
                    problems.setdefault(str(err), []).append(var.get("name", ""))
            out.append(f"# {var.get('name', '')} from {env_ref_text(source)}\n")
    errors = sorted(f"error retrieving reference for {', '.join(sorted(names))}: {err}"
                    for err, names in problems.items())
    return "".join(out), errors
