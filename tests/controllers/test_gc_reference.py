"""The garbage collector against the gc-* recordings of a real kube-controller-manager: the
transitions of owners and dependents (finalizers, deletionTimestamp, ownerReferences) after
background / foreground / orphan deletion, and dangling owners."""
from __future__ import annotations

import pytest

from replay_b import (create_namespace, recorded_cluster, recorded_transitions, recorder,  # noqa: F401
                      seen_transitions, stdin_documents)
from test_workloads_support import DATA, final, manifest

# When each case deleted the Deployment, then the ConfigMap owner (seconds into the recording).
CASES = {"gc-background": ("Background", 3.8, 7.0), "gc-foreground": ("Foreground", 3.7, 7.0),
         "gc-orphan": ("Orphan", 3.7, 7.0)}


def _setup(cluster, api, case: str) -> None:
    ns = f"pub-{case}"
    create_namespace(api, ns)
    deploy = manifest(case, "deploy.yaml")
    assert api.post(f"/apis/apps/v1/namespaces/{ns}/deployments", json=deploy).status_code == 201
    owner = api.post(f"/api/v1/namespaces/{ns}/configmaps",
                     json={"metadata": {"name": "owner"}, "data": {"role": "owner"}}).json()
    for doc in stdin_documents(case):
        for ref in doc["metadata"]["ownerReferences"]:
            ref["uid"] = owner["metadata"]["uid"]
        assert api.post(f"/api/v1/namespaces/{ns}/configmaps", json=doc).status_code == 201
    assert cluster.settle()


def _delete(cluster, api, path: str, policy: str) -> int:
    since = len(recorder(cluster).seen)
    response = api.request("DELETE", path, json={"propagationPolicy": policy})
    assert response.status_code in (200, 202), response.text
    assert cluster.settle()
    return since


@pytest.mark.parametrize("case", sorted(CASES))
def test_deployment_cascade_as_recorded(recorded_cluster, case):
    policy, deleted_at, _ = CASES[case]
    with recorded_cluster.http_client() as api:
        _setup(recorded_cluster, api, case)
        since = _delete(recorded_cluster, api, f"/apis/apps/v1/namespaces/pub-{case}/deployments/web", policy)
        for rid, resource in (("apps/deployments", "deployments"), ("apps/replicasets", "replicasets"),
                              ("pods", "pods")):
            assert seen_transitions(recorded_cluster, rid, since) == \
                recorded_transitions(case, resource, deleted_at), resource
        for path, resource in ((f"/apis/apps/v1/namespaces/pub-{case}/replicasets", "replicasets"),
                               (f"/api/v1/namespaces/pub-{case}/pods", "pods")):
            left = api.get(path).json()["items"]
            expected = final(case, resource) if (DATA / case / "final" / f"{resource}.json").exists() else []
            assert sorted(_owner_kinds(o) for o in left) == sorted(_owner_kinds(o) for o in expected), resource


def _owner_kinds(obj: dict) -> tuple:
    return tuple(r["kind"] for r in obj["metadata"].get("ownerReferences") or [])


@pytest.mark.parametrize("case", sorted(CASES))
def test_configmap_owner_cascade_as_recorded(recorded_cluster, case):
    policy, _, deleted_at = CASES[case]
    with recorded_cluster.http_client() as api:
        _setup(recorded_cluster, api, case)
        since = _delete(recorded_cluster, api, f"/api/v1/namespaces/pub-{case}/configmaps/owner", policy)
        assert seen_transitions(recorded_cluster, "configmaps", since) == \
            recorded_transitions(case, "configmaps", deleted_at)
        left = api.get(f"/api/v1/namespaces/pub-{case}/configmaps").json()["items"]
        expected = final(case, "configmaps")
        assert [(c["metadata"]["name"], c["metadata"].get("ownerReferences")) for c in left] == \
            [(c["metadata"]["name"], c["metadata"].get("ownerReferences")) for c in expected]


def test_dangling_owners_are_collected_as_recorded(recorded_cluster):
    case, ns = "gc-dangling", "pub-gc-dangling"
    with recorded_cluster.http_client() as api:
        create_namespace(api, ns)
        real = api.post(f"/api/v1/namespaces/{ns}/configmaps",
                        json={"metadata": {"name": "real"}, "data": {"role": "owner"}}).json()
        valid = next(c for c in final(case, "configmaps") if c["metadata"]["name"] == "dep-valid")
        recorded_uid = valid["metadata"]["ownerReferences"][0]["uid"]
        for doc in stdin_documents(case):
            for ref in doc["metadata"]["ownerReferences"]:
                if ref["uid"] == recorded_uid:  # the valid dependent names the real owner's uid
                    ref["uid"] = real["metadata"]["uid"]
            assert api.post(f"/api/v1/namespaces/{ns}/configmaps", json=doc).status_code == 201
        assert recorded_cluster.settle()
        names = [c["metadata"]["name"] for c in api.get(f"/api/v1/namespaces/{ns}/configmaps").json()["items"]]
        assert names == [c["metadata"]["name"] for c in final(case, "configmaps")]
        deleted = [t for t in seen_transitions(recorded_cluster, "configmaps") if t[-1][0] == "DELETED"]
        assert deleted and deleted == [t for t in recorded_transitions(case, "configmaps") if t[-1][0] == "DELETED"]
