"""Garbage-collector rules beyond the recordings (kube-controller-manager v1.32 semantics):
several owners, owners in other scopes, unknown kinds, and a foreground cascade several levels
deep that waits for blocking dependents only."""
from __future__ import annotations

import json

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.garbagecollector import GarbageCollector

MERGE = {"content-type": "application/merge-patch+json"}


@pytest.fixture
def gc():
    """Only the garbage collector runs, so nothing else touches the objects."""
    with Cluster("memory://", clock=FakeClock(), controllers=[GarbageCollector]) as cluster, \
            cluster.http_client() as api:
        assert cluster.settle()
        yield cluster, api


def _cm(api, name: str, owners=(), namespace: str = "default", finalizers=None) -> dict:
    meta = {"name": name, "ownerReferences": [dict(o) for o in owners]}
    if finalizers:
        meta["finalizers"] = finalizers
    response = api.post(f"/api/v1/namespaces/{namespace}/configmaps", json={"metadata": meta})
    assert response.status_code == 201, response.text
    return response.json()


def _ref(obj: dict, block: bool | None = None) -> dict:
    ref = {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj["kind"], "name": obj["metadata"]["name"],
           "uid": obj["metadata"]["uid"]}
    if block is not None:
        ref["blockOwnerDeletion"] = block
    return ref


def _names(api, namespace: str = "default") -> set[str]:
    return {i["metadata"]["name"] for i in api.get(f"/api/v1/namespaces/{namespace}/configmaps").json()["items"]}


def test_a_dependent_with_one_live_owner_only_loses_the_dead_reference(gc):
    cluster, api = gc
    alive, doomed = _cm(api, "alive"), _cm(api, "doomed")
    _cm(api, "dep", [_ref(alive), _ref(doomed)])
    assert cluster.settle()
    api.delete("/api/v1/namespaces/default/configmaps/doomed")
    assert cluster.settle()
    dep = api.get("/api/v1/namespaces/default/configmaps/dep").json()
    assert [r["name"] for r in dep["metadata"]["ownerReferences"]] == ["alive"]


def test_a_namespaced_owner_is_looked_up_in_the_dependents_namespace(gc):
    cluster, api = gc
    api.post("/api/v1/namespaces", json={"metadata": {"name": "other"}})
    owner = _cm(api, "owner")  # in default
    _cm(api, "elsewhere", [_ref(owner)], namespace="other")  # names an owner "owner" in "other": none
    _cm(api, "here", [_ref(owner)])
    assert cluster.settle()
    assert "elsewhere" not in _names(api, "other")
    assert "here" in _names(api)


def test_a_cluster_scoped_owner_of_a_namespaced_dependent(gc):
    cluster, api = gc
    ns = api.post("/api/v1/namespaces", json={"metadata": {"name": "owned"}}).json()
    _cm(api, "dep", [_ref(ns)])
    assert cluster.settle()
    assert "dep" in _names(api)
    api.delete("/api/v1/namespaces/default/configmaps/dep")
    gone = {"apiVersion": "v1", "kind": "Namespace", "name": "nope", "uid": "0000"}
    _cm(api, "dep2", [gone])
    assert cluster.settle()
    assert "dep2" not in _names(api)


def test_a_cluster_scoped_dependent_of_a_namespaced_owner_is_left_alone(gc):
    cluster, api = gc
    owner = _cm(api, "owner")
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "dependent", "ownerReferences": [_ref(owner)]}, "rules": []}
    assert api.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", json=role).status_code == 201
    api.delete("/api/v1/namespaces/default/configmaps/owner")
    assert cluster.settle()
    assert api.get("/apis/rbac.authorization.k8s.io/v1/clusterroles/dependent").status_code == 200


def test_an_owner_of_an_unknown_kind_is_left_alone(gc):
    cluster, api = gc
    _cm(api, "dep", [{"apiVersion": "example.com/v1", "kind": "Gadget", "name": "g", "uid": "1234"}])
    assert cluster.settle()
    assert "dep" in _names(api)


def test_foreground_waits_for_blocking_dependents_all_the_way_down(gc):
    cluster, api = gc
    top = _cm(api, "top")
    middle = _cm(api, "middle", [_ref(top, block=True)])
    _cm(api, "bottom", [_ref(middle, block=True)], finalizers=["example.com/hold"])
    _cm(api, "loose", [_ref(top)])
    assert cluster.settle()
    api.request("DELETE", "/api/v1/namespaces/default/configmaps/top", json={"propagationPolicy": "Foreground"})
    assert cluster.settle()
    # The middle one is deleted in the foreground too (it has a dependent); the held bottom one
    # keeps both waiting. The non-blocking dependent went.
    assert _names(api) >= {"top", "middle", "bottom"} and "loose" not in _names(api)
    middle_now = api.get("/api/v1/namespaces/default/configmaps/middle").json()["metadata"]
    assert middle_now["finalizers"] == ["foregroundDeletion"] and middle_now["deletionTimestamp"]
    api.patch("/api/v1/namespaces/default/configmaps/bottom",
              content=json.dumps({"metadata": {"finalizers": None}}), headers=MERGE)
    assert cluster.settle()
    assert not _names(api) & {"top", "middle", "bottom"}


def test_orphaning_keeps_every_dependent_without_the_reference(gc):
    cluster, api = gc
    owner, other = _cm(api, "owner"), _cm(api, "other")
    _cm(api, "only", [_ref(owner)])
    _cm(api, "shared", [_ref(owner), _ref(other)])
    assert cluster.settle()
    api.request("DELETE", "/api/v1/namespaces/default/configmaps/owner", json={"propagationPolicy": "Orphan"})
    assert cluster.settle()
    assert "owner" not in _names(api)
    only = api.get("/api/v1/namespaces/default/configmaps/only").json()["metadata"]
    shared = api.get("/api/v1/namespaces/default/configmaps/shared").json()["metadata"]
    assert "ownerReferences" not in only
    assert [r["name"] for r in shared["ownerReferences"]] == ["other"]


def test_foreground_owner_does_not_take_a_dependent_another_owner_keeps(gc):
    cluster, api = gc
    doomed, keeper = _cm(api, "doomed"), _cm(api, "keeper")
    _cm(api, "shared", [_ref(doomed, block=True), _ref(keeper)])
    assert cluster.settle()
    api.request("DELETE", "/api/v1/namespaces/default/configmaps/doomed", json={"propagationPolicy": "Foreground"})
    assert cluster.settle()
    assert _names(api) >= {"shared", "keeper"} and "doomed" not in _names(api)
    shared = api.get("/api/v1/namespaces/default/configmaps/shared").json()["metadata"]
    assert [r["name"] for r in shared["ownerReferences"]] == ["keeper"]
