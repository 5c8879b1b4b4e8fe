"""The bootstrap RBAC policy kube-apiserver creates at start: the ClusterRoles and
ClusterRoleBindings a real 1.32 server holds (server/data/bootstrap_policy.json, see its NOTICE).

Created when missing, never overwritten: an administrator's edits to them stay (kube-apiserver
reconciles roles annotated autoupdate=true by adding what is missing; kubelite only adds missing
objects). The aggregated roles (admin, edit, view, ...) are stored without rules: the
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
    """Create the bootstrap roles and bindings that are missing."""
    from kubelite.server.core import WriteOptions

    for resource in ("clusterroles", "clusterrolebindings"):
        r = api.registry.lookup(GROUP, "v1", resource)
        for obj in objects(resource):
            if api.store.get(api._key(r, "", obj["metadata"]["name"])) is not None:
                continue
            try:
                api.create(r, "", obj, WriteOptions(field_manager="kube-apiserver"))
            except StatusError as err:
                if err.code != 409:  # another server created it first
                    raise
