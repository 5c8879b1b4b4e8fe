"""The bootstrap RBAC policy kube-apiserver creates at start: the ClusterRoles and
ClusterRoleBindings a real 1.32 server holds (server/data/bootstrap_policy.json, see its NOTICE).

Created when missing and reconciled when present, as kube-apiserver does at start: a role gains
the rules and aggregation selectors it lacks, a binding the subjects it lacks, a binding whose
roleRef changed is created again; an administrator's additions stay, and objects annotated
rbac.authorization.kubernetes.io/autoupdate=false are left alone. The aggregated roles (admin, edit, view, ...) are stored without rules: the
clusterrole-aggregation controller fills them, as in kube-controller-manager.

On a new store (no ClusterRole, no ClusterRoleBinding, no admission webhook or policy) every
object is created, and each create would come to the same stored object but for its uid and
time: data/bootstrap_policy_stored.json holds that result (tools/gen_bootstrap_stored.py takes
each object through the create path; tests/server/test_rbac.py checks the file against it), and
the objects are written from it with their own uid and the time (~4 ms rather than ~30 ms of a
first start before /readyz).
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
STORED = DATA.with_name("bootstrap_policy_stored.json")
KINDS = {"clusterroles": "ClusterRole", "clusterrolebindings": "ClusterRoleBinding"}
RESOURCES = {kind: resource for resource, kind in KINDS.items()}


@functools.lru_cache(maxsize=1)
def _policy() -> dict:
    return json.loads(DATA.read_text())


def objects(resource: str) -> list[dict]:
    """The bootstrap objects of `resource` ("clusterroles" or "clusterrolebindings"), as API bodies."""
    return [{"apiVersion": API_VERSION, "kind": KINDS[resource], **copy.deepcopy(obj)}
            for obj in _policy()[resource]]


def written() -> list[tuple[str, str]]:
    """(resource, name) of each bootstrap object, in the order ensure_policy creates them."""
    return [(resource, obj["metadata"]["name"]) for resource in ("clusterroles", "clusterrolebindings")
            for obj in _policy()[resource]]


def ensure_policy(api, prepared: bool = True) -> None:
    """Create the bootstrap roles and bindings that are missing; reconcile the others.
    `prepared`: on a new store, write the prepared objects (False: every one through the create path)."""
    if prepared and _new_store(api):
        _write_prepared(api)
        return
    for resource in ("clusterroles", "clusterrolebindings"):
        r = api.registry.lookup(GROUP, "v1", resource)
        # One read of what is stored: at a restart each object is usually what reconciling leaves.
        stored = {kv.key: kv.value for kv in api.store.range(api._prefix(r)).kvs}
        for raw in _policy()[resource]:
            value = stored.get(api._key(r, "", raw["metadata"]["name"]))
            if value is not None and _holds(json.loads(value), raw):
                continue
            obj = {"apiVersion": API_VERSION, "kind": KINDS[resource], **copy.deepcopy(raw)}
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


def _new_store(api) -> bool:
    """No RBAC object for the policy to reconcile with, no webhook or policy that could see or
    change a create: what the prepared objects were made for."""
    for resource in ("clusterroles", "clusterrolebindings"):
        if api.store.range(f"/registry/{GROUP}/{resource}/", limit=1).kvs:
            return False
    stage = api.webhooks
    return not (stage.admission.configured() or stage.policies.configured())


def _write_prepared(api) -> None:
    """The prepared objects, each with a uid of its own and now as its creation and field time,
    stored as the create path would store them (the Kubernetes order of their keys kept)."""
    from kubelite.uuids import uuid4

    from kubelite.server.storage.errors import KeyExists

    now = api.clock.rfc3339()
    for obj in json.loads(STORED.read_text()):
        meta = obj["metadata"]
        meta["uid"] = uuid4()
        meta["creationTimestamp"] = now
        meta["managedFields"][0]["time"] = now
        key = f"/registry/{GROUP}/{RESOURCES[obj['kind']]}/{meta['name']}"
        try:
            api.store.create(key, api._encode(obj))
        except KeyExists:
            pass  # another server on this store wrote it meanwhile (the create path's 409)
