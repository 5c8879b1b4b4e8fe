"""The bootstrap RBAC policy kube-apiserver creates at start: the ClusterRoles and
ClusterRoleBindings a real 1.32 server holds (server/data/bootstrap_policy.json, see its NOTICE).

Created when missing and reconciled when present, as kube-apiserver does at start: a role gains
the rules and aggregation selectors it lacks, a binding the subjects it lacks, a binding whose
roleRef changed is created again; an administrator's additions stay, and objects annotated
rbac.authorization.kubernetes.io/autoupdate=false are left alone. The aggregated roles (admin, edit, view, ...) are stored without rules: the
clusterrole-aggregation controller fills them, as in kube-controller-manager.
"""
from __future__ import annotations

import copy
import functools
import json
import pathlib

from kubelite.server.errors import StatusError

GROUP = "rbac.authorization.k8s.io"
API_VERSION = f"{GROUP}/v1"
DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "bootstrap_policy.json"
KINDS = {"clusterroles": "ClusterRole", "clusterrolebindings": "ClusterRoleBinding"}


@functools.lru_cache(maxsize=1)
def _policy() -> dict:
    return json.loads(DATA.read_text())


def objects(resource: str) -> list[dict]:
    """The bootstrap objects of `resource` ("clusterroles" or "clusterrolebindings"), as API bodies."""
    return [{"apiVersion": API_VERSION, "kind": KINDS[resource], **copy.deepcopy(obj)}
            for obj in _policy()[resource]]


def ensure_policy(api) -> None:
    """Create the bootstrap roles and bindings that are missing; reconcile the others."""
    for resource in ("clusterroles", "clusterrolebindings"):
        r = api.registry.lookup(GROUP, "v1", resource)
        for obj in objects(resource):
            try:
                _ensure(api, r, resource, obj)
            except StatusError as err:
                if err.code not in (404, 409):  # another server wrote or removed it meanwhile
                    raise


def _ensure(api, r, resource: str, expected: dict) -> None:
    from kubelite.server.auth import reconcile
    from kubelite.server.core import DeleteOptions, WriteOptions

    opts = WriteOptions(field_manager="kube-apiserver")
    name = expected["metadata"]["name"]
    if api.store.get(api._key(r, "", name)) is None:
        api.create(r, "", expected, opts)
        return
    existing = api.get(r, "", name)
    if _holds(existing, expected):
        return
    compute = reconcile.computed_role if resource == "clusterroles" else reconcile.computed_binding
    result = compute(existing, expected, False)
    if result.protected or result.operation == "none":
        return
    if result.operation == "recreate":  # roleRef is immutable
        api.delete(r, "", name, DeleteOptions())
        api.create(r, "", expected, opts)
        return
    api.update(r, "", name, result.obj, opts)


def _holds(existing: dict, expected: dict) -> bool:
    """Already what reconciling would leave (the usual case at a restart): no need to compute."""
    for key in ("rules", "aggregationRule", "subjects", "roleRef"):
        if key in expected and existing.get(key) != expected[key]:
            return False
    have, want = existing.get("metadata") or {}, expected.get("metadata") or {}
    return all(((have.get(key) or {}).get(k) == v) for key in ("labels", "annotations")
               for k, v in (want.get(key) or {}).items())
