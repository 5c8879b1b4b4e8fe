"""Namespace lifecycle against the namespace-termination recording: Terminating at once, content
deleted, the five conditions with v1.32's reasons and messages while a finalizer holds a
ConfigMap, creation refused meanwhile, and the namespace gone once the finalizer is removed."""
from __future__ import annotations

import json

import pytest
import yaml

from replay_b import MERGE, create_namespace, recorded_cluster, recorder  # noqa: F401
from test_workloads_support import DATA, manifest, stream

CASE, NS = "namespace-termination", "pub-namespace-termination"


def _recorded_namespace(at_least: float) -> dict:
    """The namespace as the recording's first event at or after `at_least` seconds showed it."""
    return next(e["object"] for e in stream(CASE) if e["resource"] == "namespaces" and e["t"] >= at_least)


def _conditions(ns: dict) -> list[tuple]:
    return [(c["type"], c["status"], c["reason"], c["message"]) for c in ns["status"].get("conditions") or []]


def seen_namespace_events(cluster) -> list[tuple]:
    return [(rid, kind, obj) for rid, kind, obj in recorder(cluster).seen
            if rid == "namespaces" and obj["metadata"]["name"] == NS]


def _start(cluster, api) -> None:
    create_namespace(api, NS)
    assert api.post(f"/apis/apps/v1/namespaces/{NS}/deployments", json=manifest(CASE, "deploy.yaml")).status_code == 201
    for doc in yaml.safe_load_all((DATA / CASE / "files" / "content.yaml").read_text()):
        path = "configmaps" if doc["kind"] == "ConfigMap" else "secrets"
        assert api.post(f"/api/v1/namespaces/{NS}/{path}", json=doc).status_code == 201
    assert cluster.settle()


def test_termination_waits_for_the_finalizer_as_recorded(recorded_cluster):
    with recorded_cluster.http_client() as api:
        _start(recorded_cluster, api)
        deleted = api.delete(f"/api/v1/namespaces/{NS}")
        assert deleted.status_code == 200
        assert deleted.json()["status"] == {"phase": "Terminating"}
        assert deleted.json()["spec"] == {"finalizers": ["kubernetes"]}
        assert recorded_cluster.settle()
        # Nothing happens for 5 s (as recorded: content deleted and conditions written ~5 s later).
        assert "conditions" not in api.get(f"/api/v1/namespaces/{NS}").json()["status"]
        recorded_cluster.advance(5)

        ns = api.get(f"/api/v1/namespaces/{NS}").json()
        recorded = _recorded_namespace(8.7)
        assert _conditions(ns) == _conditions(recorded)
        assert ns["status"]["phase"] == "Terminating" and ns["spec"] == recorded["spec"]
        left = {(kind, item["metadata"]["name"]) for kind in ("configmaps", "secrets", "serviceaccounts", "pods")
                for item in api.get(f"/api/v1/namespaces/{NS}/{kind}").json()["items"]}
        assert left == {("configmaps", "hold")}
        hold = api.get(f"/api/v1/namespaces/{NS}/configmaps/hold").json()["metadata"]
        assert (hold["finalizers"], hold["deletionGracePeriodSeconds"]) == (["example.com/hold"], 0)
        late = api.post(f"/api/v1/namespaces/{NS}/configmaps", json={"metadata": {"name": "late"}})
        assert late.status_code == 403
        assert late.json()["message"] == ('configmaps "late" is forbidden: unable to create new content in namespace '
                                          f"{NS} because it is being terminated")

        api.patch(f"/api/v1/namespaces/{NS}/configmaps/hold", content=json.dumps(
            {"metadata": {"finalizers": None}}), headers=MERGE)
        assert recorded_cluster.settle()
        # The controller looks again on its own schedule (recorded: ~8 s later), not at once.
        assert api.get(f"/api/v1/namespaces/{NS}").status_code == 200
        recorded_cluster.advance(8)
        assert api.get(f"/api/v1/namespaces/{NS}").status_code == 404
        # The last state before it went carries the final conditions, as recorded.
        last = [obj for rid, kind, obj in seen_namespace_events(recorded_cluster)][-1]
        assert _conditions(last) == _conditions(_recorded_namespace(22.0))


def test_namespace_transitions_match_the_recording(recorded_cluster):
    with recorded_cluster.http_client() as api:
        _start(recorded_cluster, api)
        api.delete(f"/api/v1/namespaces/{NS}")
        assert recorded_cluster.settle()  # the deletion is seen now; the controller acts 5 s later
        recorded_cluster.advance(5)
        api.patch(f"/api/v1/namespaces/{NS}/configmaps/hold", content=json.dumps(
            {"metadata": {"finalizers": None}}), headers=MERGE)
        recorded_cluster.advance(8)
    seen = [(kind, obj["status"].get("phase"), [c[:3] for c in _conditions(obj)])
            for _, kind, obj in seen_namespace_events(recorded_cluster)]
    recorded = [(e["type"], e["object"]["status"].get("phase"), [c[:3] for c in _conditions(e["object"])])
                for e in stream(CASE) if e["resource"] == "namespaces"]
    assert seen == recorded


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_system_namespaces_cannot_be_deleted(recorded_cluster, name):
    with recorded_cluster.http_client() as api:
        response = api.delete(f"/api/v1/namespaces/{name}")
        assert response.status_code == 403
        assert response.json()["message"] == f'namespaces "{name}" is forbidden: this namespace may not be deleted'
        assert recorded_cluster.settle()
        assert "deletionTimestamp" not in api.get(f"/api/v1/namespaces/{name}").json()["metadata"]


def test_an_empty_namespace_goes_after_the_grace_period(recorded_cluster):
    with recorded_cluster.http_client() as api:
        create_namespace(api, "empty")
        assert recorded_cluster.settle()
        api.delete("/api/v1/namespaces/empty")
        assert recorded_cluster.settle()
        assert api.get("/api/v1/namespaces/empty").json()["status"] == {"phase": "Terminating"}
        recorded_cluster.advance(5)
        assert api.get("/api/v1/namespaces/empty").status_code == 404


def test_kube_node_lease_can_be_deleted_and_comes_back(recorded_cluster):
    # Only default, kube-system and kube-public are immortal (kube-apiserver's NamespaceLifecycle);
    # the API server's system-namespaces loop makes kube-node-lease again within a minute.
    with recorded_cluster.http_client() as api:
        uid = api.get("/api/v1/namespaces/kube-node-lease").json()["metadata"]["uid"]
        assert api.delete("/api/v1/namespaces/kube-node-lease").status_code == 200
        assert recorded_cluster.settle()
        recorded_cluster.advance(5)
        assert api.get("/api/v1/namespaces/kube-node-lease").status_code == 404
        recorded_cluster.advance(60)
        again = api.get("/api/v1/namespaces/kube-node-lease").json()
        assert again["metadata"]["uid"] != uid and again["status"]["phase"] == "Active"


def test_a_new_process_takes_up_a_namespace_deleted_long_ago(tmp_path):
    # Each embedded command is a new process on the same store: a namespace whose deletion is
    # older than the 5 s grace is processed at once, not 5 s after the process started.
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    path, clock = str(tmp_path / "state.db"), FakeClock()
    with Cluster(path, clock=clock) as first, first.http_client() as api:
        create_namespace(api, "old")
        assert first.settle()
        api.delete("/api/v1/namespaces/old")
    clock.advance(60)
    with Cluster(path, clock=clock) as second, second.http_client() as api:
        assert second.settle()
        assert api.get("/api/v1/namespaces/old").status_code == 404


def test_a_new_process_rechecks_a_processed_namespace_on_schedule(tmp_path):
    # Once conditions show the namespace was processed, a new process looks again at the next
    # recheck (8 s), as the long-running controller would: the finalizer removal does not end it
    # at once (a `wait --for=delete` started right after still sees it go).
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    path, clock = str(tmp_path / "state.db"), FakeClock()
    with Cluster(path, clock=clock) as first, first.http_client() as api:
        create_namespace(api, "held")
        api.post("/api/v1/namespaces/held/configmaps",
                 json={"metadata": {"name": "hold", "finalizers": ["example.com/hold"]}})
        assert first.settle()
        api.delete("/api/v1/namespaces/held")
        assert first.settle()
        first.advance(5)
        assert api.get("/api/v1/namespaces/held").json()["status"]["conditions"]
    with Cluster(path, clock=clock) as second, second.http_client() as api:
        api.patch("/api/v1/namespaces/held/configmaps/hold", content=json.dumps({"metadata": {"finalizers": None}}),
                  headers=MERGE)
        assert second.settle()
        assert api.get("/api/v1/namespaces/held").status_code == 200
        second.advance(8)
        assert api.get("/api/v1/namespaces/held").status_code == 404
