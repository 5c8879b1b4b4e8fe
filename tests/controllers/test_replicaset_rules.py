"""ReplicaSet / ReplicationController behaviour beyond the recordings: the order a scale-down
deletes pods in, refused pod creations (FailedCreate Events, the ReplicaFailure condition, retries
with backoff, the Deployment's copy of the condition), minReadySeconds, and the status a
ReplicationController writes. Cluster tests run every default controller on a FakeClock."""
from __future__ import annotations

import json

from kubelite.server.controllers.replicaset import rank_for_deletion

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"
NOW = 1_800_000_000.0


def pod(name, *, node="node-a", phase="Running", ready=True, ready_for=100.0, created_ago=100.0, restarts=0,
        cost=None) -> dict:
    from kubelite.server.clock import format_time
    import datetime

    def at(ago):
        return format_time(datetime.datetime.fromtimestamp(NOW - ago, datetime.timezone.utc))

    meta = {"name": name, "creationTimestamp": at(created_ago)}
    if cost is not None:
        meta["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": str(cost)}
    conditions = [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": at(ready_for)}]
    return {"metadata": meta, "spec": {"nodeName": node} if node else {},
            "status": {"phase": phase, "conditions": conditions,
                       "containerStatuses": [{"name": "c", "restartCount": restarts}]}}


def order(pods) -> list[str]:
    return [p["metadata"]["name"] for p in rank_for_deletion(pods, pods, NOW)]


def test_scale_down_takes_unscheduled_then_pending_then_unready_pods_first():
    pods = [pod("running"), pod("unready", ready=False), pod("pending", phase="Pending", ready=False),
            pod("unscheduled", node=None, phase="Pending", ready=False)]
    assert order(pods) == ["unscheduled", "pending", "unready", "running"]


def test_scale_down_honours_deletion_cost_before_age():
    pods = [pod("cheap-old", cost=-5, created_ago=5000), pod("dear-new", cost=10, created_ago=1),
            pod("plain", created_ago=3000)]
    assert order(pods) == ["cheap-old", "plain", "dear-new"]


def test_scale_down_takes_the_recently_ready_the_restarted_and_the_newer_first():
    assert order([pod("long-ready", ready_for=4000), pod("just-ready", ready_for=2)]) == ["just-ready", "long-ready"]
    assert order([pod("steady"), pod("crashy", restarts=3)]) == ["crashy", "steady"]
    assert order([pod("old", created_ago=4000, ready_for=4000),
                  pod("new", created_ago=4, ready_for=4000)]) == ["new", "old"]


# -- on a cluster -------------------------------------------------------------------------------------

def replica_set(name="frontend", replicas=2, **template_spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}], **template_spec}}}}


def events(api, name) -> list[tuple[str, str, str, int]]:
    return [(e["type"], e["reason"], e["message"], e["count"]) for e in api.get(f"{CORE}/events").json()["items"]
            if e["involvedObject"]["name"] == name]


def test_refused_pods_are_reported_retried_and_shown_as_replica_failure(cluster, api):
    assert api.post(f"{APPS}/replicasets", json=replica_set(serviceAccountName="nope")).status_code == 201
    cluster.settle()
    refused = ('pods "frontend-" is forbidden: error looking up service account default/nope: '
               'serviceaccount "nope" not found')
    [(kind, reason, message, count)] = events(api, "frontend")
    assert (kind, reason, message) == ("Warning", "FailedCreate", f"Error creating: {refused}")
    status = api.get(f"{APPS}/replicasets/frontend").json()["status"]
    [failure] = status["conditions"]
    assert (failure["type"], failure["status"], failure["reason"], failure["message"]) == \
        ("ReplicaFailure", "True", "FailedCreate", refused)
    cluster.advance(5)  # retried with backoff on the cluster clock: the same Event counted again
    assert events(api, "frontend")[0][3] > count
    # Once the service account exists, the pods are made and the condition goes.
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "nope"}}
    assert api.post(f"{CORE}/serviceaccounts", json=sa).status_code == 201
    cluster.advance(60)
    status = api.get(f"{APPS}/replicasets/frontend").json()["status"]
    assert status.get("readyReplicas") == 2 and "conditions" not in status


def test_a_deployment_shows_its_replica_sets_failure(cluster, api):
    rs = replica_set(name="web", replicas=1, serviceAccountName="nope")
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
         "spec": {"replicas": 1, "selector": rs["spec"]["selector"], "template": rs["spec"]["template"]}}
    assert api.post(f"{APPS}/deployments", json=d).status_code == 201
    cluster.settle()
    conditions = {c["type"]: c for c in api.get(f"{APPS}/deployments/web").json()["status"]["conditions"]}
    assert conditions["ReplicaFailure"]["reason"] == "FailedCreate"
    assert "serviceaccount \"nope\" not found" in conditions["ReplicaFailure"]["message"]


def test_min_ready_seconds_of_a_replica_set_counts_on_the_cluster_clock(cluster, api):
    rs = replica_set()
    rs["spec"]["minReadySeconds"] = 30
    assert api.post(f"{APPS}/replicasets", json=rs).status_code == 201
    cluster.settle()
    status = api.get(f"{APPS}/replicasets/frontend").json()["status"]
    assert (status.get("readyReplicas"), status.get("availableReplicas")) == (2, None)
    cluster.advance(31)
    status = api.get(f"{APPS}/replicasets/frontend").json()["status"]
    assert (status.get("readyReplicas"), status.get("availableReplicas")) == (2, 2)


def test_replication_controller_status_and_events(cluster, api):
    rc = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "frontend"},
          "spec": {"replicas": 3, "selector": {"app": "frontend"},
                   "template": {"metadata": {"labels": {"app": "frontend", "tier": "web"}},
                                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    assert api.post(f"{CORE}/replicationcontrollers", json=rc).status_code == 201
    cluster.settle()
    got = api.get(f"{CORE}/replicationcontrollers/frontend").json()
    assert list(got["status"].items()) == [("replicas", 3), ("fullyLabeledReplicas", 3), ("readyReplicas", 3),
                                           ("availableReplicas", 3), ("observedGeneration", 1)]
    created = [e for e in events(api, "frontend") if e[1] == "SuccessfulCreate"]
    assert len(created) == 3
    r = api.patch(f"{CORE}/replicationcontrollers/frontend/scale", content=json.dumps({"spec": {"replicas": 1}}),
                  headers={"content-type": "application/merge-patch+json"})
    assert r.status_code == 200
    cluster.settle()
    assert len([e for e in events(api, "frontend") if e[1] == "SuccessfulDelete"]) == 2
    sources = {e["source"]["component"] for e in api.get(f"{CORE}/events").json()["items"]
               if e["involvedObject"]["kind"] == "ReplicationController"}
    assert sources == {"replication-controller"}


def test_many_pods_make_combined_events_and_the_spam_filter_stops_them(cluster, api):
    """client-go's correlator: 9 "Created pod" Events, then one combined Event counted up, and no
    more than 25 writes about one object in a burst (tokens come back one per 5 minutes)."""
    assert api.post(f"{APPS}/replicasets", json=replica_set(replicas=40)).status_code == 201
    cluster.settle()
    created = [e for e in events(api, "frontend") if e[1] == "SuccessfulCreate"]
    plain = [e for e in created if not e[2].startswith("(combined from similar events): ")]
    combined = [e for e in created if e[2].startswith("(combined from similar events): ")]
    assert len(plain) == 9 and len(combined) == 1
    assert len(plain) + combined[0][3] == 25
    assert len(items_of(api, f"{CORE}/pods")) == 40
    cluster.advance(301)  # one token back: the next Event about the ReplicaSet is written
    r = api.patch(f"{APPS}/replicasets/frontend/scale", content=json.dumps({"spec": {"replicas": 39}}),
                  headers={"content-type": "application/merge-patch+json"})
    assert r.status_code == 200
    cluster.settle()
    assert [e[1] for e in events(api, "frontend")].count("SuccessfulDelete") == 1


def items_of(api, path) -> list[dict]:
    return api.get(path).json()["items"]


def test_a_selector_read_once_selects_what_selects_does():
    import itertools

    from kubelite.server.controllers.podtemplate import selector_matcher, selects

    selectors = [None, {}, {"matchLabels": {}}, {"matchLabels": {"app": "a"}},
                 {"matchLabels": {"app": "a", "tier": "web"}}, {"matchLabels": {"app": None}},
                 {"matchLabels": {"app": "a"}, "matchExpressions": []},
                 {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a", "b"]}]},
                 {"matchLabels": {"app": "a"}, "matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}]
    labels = [None, {}, "not a map", {"app": "a"}, {"app": "b"}, {"app": "a", "tier": "web"}, {"tier": "web"}]
    for selector, have in itertools.product(selectors, labels):
        assert selector_matcher(selector)(have) == selects(selector, have), (selector, have)


def test_create_pod_answers_the_stored_name_and_uid():
    """create_pod gives the caller the metadata the server wrote (the pod is not read back)."""
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster
    from kubelite.server.controllers.podtemplate import create_pod
    from kubelite.server.controllers.replicaset import ReplicaSetController

    with Cluster("memory://", clock=FakeClock(), controllers=[ReplicaSetController]) as c:
        controller = c.manager.controllers[0]
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                 "metadata": {"name": "rs", "namespace": "default", "uid": "0000-rs"}}
        template = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
        meta = create_pod(controller, template, owner, record=False)
        stored = c.api.get(c.api.registry.lookup("", "v1", "pods"), "default", meta["name"])
        assert meta["name"].startswith("rs-") and meta["uid"] == stored["metadata"]["uid"]
        assert "resourceVersion" not in meta
