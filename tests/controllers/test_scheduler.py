"""The scheduler: binding, Scheduled / FailedScheduling events and the PodScheduled condition as the
reference kube-scheduler wrote them, and the filters (selector, affinity, taints, cordon, resources)."""
from __future__ import annotations

from collections import Counter

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.scheduler import AFFINITY, failure_message
from tests.controllers.sim_support import events_for, pod, reference_stream

NS = "/api/v1/namespaces/default/pods"
NOT_HELPFUL = "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."


def _reference_event(case: str, reason: str) -> dict:
    for e in reference_stream(case):
        if e["resource"] == "events" and e["object"]["reason"] == reason:
            return e["object"]
    raise AssertionError(reason)


def _reference_condition(case: str) -> dict:
    for e in reference_stream(case):
        for cond in (e["object"].get("status") or {}).get("conditions") or []:
            if e["resource"] == "pods" and cond["type"] == "PodScheduled" and cond["status"] == "False":
                return cond
    raise AssertionError("no PodScheduled=False")


def _shape(event: dict) -> dict:
    keep = ("type", "reason", "action", "reportingComponent", "source", "firstTimestamp", "lastTimestamp")
    out = {k: event.get(k) for k in keep}
    out["involvedObject"] = sorted(event["involvedObject"])
    return out


def test_binds_and_records_scheduled_as_the_reference(cluster, api):
    assert api.post(NS, json=pod("web")).status_code == 201
    assert cluster.settle()
    assert api.get(f"{NS}/web").json()["spec"]["nodeName"] == "node-a"
    (event,) = [e for e in events_for(api, "default", "web") if e["reason"] == "Scheduled"]
    ref = _reference_event("deploy-create-3", "Scheduled")
    assert event["message"] == "Successfully assigned default/web to node-a"
    assert ref["message"].startswith("Successfully assigned pub-deploy-create-3/web-")
    assert _shape(event) == _shape(ref)
    assert event["eventTime"].endswith("Z") and "." in event["eventTime"]


def test_unmatched_node_selector_fails_with_the_reference_message(cluster, api):
    assert api.post(NS, json=pod("web", nodeSelector={"pub.example.com/no-such-node": "true"})).status_code == 201
    assert cluster.settle()
    got = api.get(f"{NS}/web").json()
    assert "nodeName" not in got["spec"]
    (cond,) = [c for c in got["status"]["conditions"] if c["type"] == "PodScheduled"]
    ref = _reference_condition("deploy-progress-deadline")
    assert {k: v for k, v in cond.items() if k != "lastTransitionTime"} == \
        {k: v for k, v in ref.items() if k != "lastTransitionTime"}
    (event,) = [e for e in events_for(api, "default", "web") if e["reason"] == "FailedScheduling"]
    ref_event = _reference_event("deploy-progress-deadline", "FailedScheduling")
    assert event["message"] == ref_event["message"]
    assert _shape(event) == _shape(ref_event)


def test_labelling_the_node_schedules_the_waiting_pod(cluster, api):
    assert api.post(NS, json=pod("web", nodeSelector={"disk": "ssd"})).status_code == 201
    cluster.settle()
    patch = api.patch("/api/v1/nodes/node-a", json={"metadata": {"labels": {"disk": "ssd"}}},
                      headers={"Content-Type": "application/merge-patch+json"})
    assert patch.status_code == 200
    assert cluster.settle()
    got = api.get(f"{NS}/web").json()
    assert got["spec"]["nodeName"] == "node-a" and got["status"]["phase"] == "Running"
    (cond,) = [c for c in got["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert cond["status"] == "True" and "reason" not in cond


def _merge(api, path, body):
    r = api.patch(path, json=body, headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text


def _failed_message(api, name):
    cond = [c for c in api.get(f"{NS}/{name}").json()["status"].get("conditions") or []
            if c["type"] == "PodScheduled"]
    return cond[0].get("message") if cond else None


def test_cordon_and_uncordon(cluster, api):
    cluster.settle()
    _merge(api, "/api/v1/nodes/node-a", {"spec": {"unschedulable": True}})
    assert api.post(NS, json=pod("web")).status_code == 201
    cluster.settle()
    assert _failed_message(api, "web") == f"0/1 nodes are available: 1 node(s) were unschedulable. {NOT_HELPFUL}"
    _merge(api, "/api/v1/nodes/node-a", {"spec": {"unschedulable": None}})
    cluster.settle()
    assert api.get(f"{NS}/web").json()["spec"].get("nodeName") == "node-a"


def test_taints_and_tolerations(cluster, api):
    cluster.settle()
    _merge(api, "/api/v1/nodes/node-a", {"spec": {"taints": [{"key": "dedicated", "value": "db",
                                                             "effect": "NoSchedule"}]}})
    assert api.post(NS, json=pod("plain")).status_code == 201
    tolerant = pod("tolerant", tolerations=[{"key": "dedicated", "operator": "Equal", "value": "db",
                                            "effect": "NoSchedule"}])
    assert api.post(NS, json=tolerant).status_code == 201
    cluster.settle()
    assert _failed_message(api, "plain") == \
        f"0/1 nodes are available: 1 node(s) had untolerated taint {{dedicated: db}}. {NOT_HELPFUL}"
    assert api.get(f"{NS}/tolerant").json()["spec"].get("nodeName") == "node-a"


def test_resource_requests_against_allocatable(cluster, api):
    big = [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "5", "memory": "1Gi"}}}]
    assert api.post(NS, json=pod("first", containers=big)).status_code == 201
    cluster.settle()
    assert api.post(NS, json=pod("second", containers=big)).status_code == 201
    cluster.settle()
    assert api.get(f"{NS}/first").json()["spec"].get("nodeName") == "node-a"
    assert _failed_message(api, "second") == ("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes "
                                              "are available: 1 No preemption victims found for incoming pod.")
    assert api.delete(f"{NS}/first").status_code == 200
    cluster.settle()
    assert api.get(f"{NS}/second").json()["spec"].get("nodeName") == "node-a"


def test_required_node_affinity():
    with Cluster("memory://", clock=FakeClock(), nodes=2) as cluster, cluster.http_client() as api:
        cluster.settle()
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-b"]}]}]}}}
        for i in range(3):
            assert api.post(NS, json=pod(f"p{i}", affinity=affinity)).status_code == 201
        cluster.settle()
        assert {api.get(f"{NS}/p{i}").json()["spec"]["nodeName"] for i in range(3)} == {"node-b"}


def test_pods_spread_over_nodes_and_respect_the_pod_capacity():
    with Cluster("memory://", clock=FakeClock(), nodes=3) as cluster, cluster.http_client() as api:
        cluster.settle()
        for i in range(6):
            assert api.post(NS, json=pod(f"p{i}")).status_code == 201
        cluster.settle()
        placed = Counter(api.get(f"{NS}/p{i}").json()["spec"]["nodeName"] for i in range(6))
        assert placed == {"node-a": 2, "node-b": 2, "node-c": 2}


def test_a_pod_for_another_scheduler_is_left_alone(cluster, api):
    assert api.post(NS, json=pod("mine", schedulerName="my-scheduler")).status_code == 201
    cluster.settle()
    got = api.get(f"{NS}/mine").json()
    assert "nodeName" not in got["spec"] and not got["status"].get("conditions")


@pytest.mark.parametrize("reasons, text", [
    (Counter({AFFINITY: 3}), "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. "
                             "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."),
    (Counter({("node(s) had untolerated taint {machine-check-exception: memory}", False): 1,
              ("Insufficient cpu", True): 2}),
     "0/3 nodes are available: 1 node(s) had untolerated taint {machine-check-exception: memory}, 2 Insufficient "
     "cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption "
     "victims found for incoming pod."),
])
def test_failure_messages_as_kube_scheduler_words_them(reasons, text):
    assert failure_message(3, reasons) == text


def test_finished_pods_give_their_room_back(cluster, api):
    big = [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "6"}}}]
    done = pod("done", containers=big, metadata={"annotations": {"sim.kubelite.io/complete": "Succeeded"}})
    assert api.post(NS, json=done).status_code == 201
    assert api.post(NS, json=pod("next", containers=big)).status_code == 201
    cluster.settle()
    assert "nodeName" not in api.get(f"{NS}/next").json()["spec"]
    cluster.advance(2)  # `done` has Succeeded
    assert api.get(f"{NS}/done").json()["status"]["phase"] == "Succeeded"
    assert api.get(f"{NS}/next").json()["spec"].get("nodeName") == "node-a"


def _term(labels: dict, key: str = "kubernetes.io/hostname") -> dict:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key}


def _with_affinity(name: str, labels: dict, kind: str, terms: list) -> dict:
    return pod(name, metadata={"labels": labels},
               affinity={kind: {"requiredDuringSchedulingIgnoredDuringExecution": terms}})


def test_required_pod_anti_affinity_spreads_pods_one_per_node():
    with Cluster("memory://", clock=FakeClock(), nodes=3) as cluster, cluster.http_client() as api:
        cluster.settle()
        for i in range(4):
            body = _with_affinity(f"p{i}", {"app": "db"}, "podAntiAffinity", [_term({"app": "db"})])
            assert api.post(NS, json=body).status_code == 201
            cluster.settle()
        nodes = [api.get(f"{NS}/p{i}").json()["spec"].get("nodeName") for i in range(4)]
        assert sorted(nodes[:3]) == ["node-a", "node-b", "node-c"] and nodes[3] is None
        assert _failed_message(api, "p3") == (
            "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are "
            "available: 3 No preemption victims found for incoming pod.")


def test_required_pod_affinity_follows_the_selected_pods():
    with Cluster("memory://", clock=FakeClock(), nodes=3) as cluster, cluster.http_client() as api:
        cluster.settle()
        assert api.post(NS, json=pod("cache", metadata={"labels": {"app": "cache"}}, nodeName="node-c")).status_code \
            == 201
        cluster.settle()
        for i in range(2):
            body = _with_affinity(f"web{i}", {"app": "web"}, "podAffinity", [_term({"app": "cache"})])
            assert api.post(NS, json=body).status_code == 201
        lonely = _with_affinity("lonely", {"app": "x"}, "podAffinity", [_term({"app": "nothing"})])
        assert api.post(NS, json=lonely).status_code == 201
        first = _with_affinity("first", {"app": "self"}, "podAffinity", [_term({"app": "self"})])
        assert api.post(NS, json=first).status_code == 201
        cluster.settle()
        assert {api.get(f"{NS}/web{i}").json()["spec"]["nodeName"] for i in range(2)} == {"node-c"}
        assert _failed_message(api, "lonely") == (
            "0/3 nodes are available: 3 node(s) didn't match pod affinity rules. preemption: 0/3 nodes are "
            "available: 3 Preemption is not helpful for scheduling.")
        assert api.get(f"{NS}/first").json()["spec"].get("nodeName")  # the first of a self-affine group


def test_existing_pods_anti_affinity_keeps_others_away(cluster, api):
    cluster.settle()
    loner = _with_affinity("loner", {"app": "loner"}, "podAntiAffinity", [_term({"app": "noisy"})])
    assert api.post(NS, json=loner).status_code == 201
    cluster.settle()
    assert api.post(NS, json=pod("noisy", metadata={"labels": {"app": "noisy"}})).status_code == 201
    assert api.post(NS, json=pod("quiet", metadata={"labels": {"app": "quiet"}})).status_code == 201
    cluster.settle()
    assert _failed_message(api, "noisy") == (
        "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules. preemption: 0/1 nodes "
        "are available: 1 No preemption victims found for incoming pod.")
    assert api.get(f"{NS}/quiet").json()["spec"].get("nodeName") == "node-a"
    assert api.delete(f"{NS}/loner").status_code == 200
    cluster.settle()
    assert api.get(f"{NS}/noisy").json()["spec"].get("nodeName") == "node-a"


def test_taints_are_checked_before_node_selectors(cluster, api):
    cluster.settle()
    _merge(api, "/api/v1/nodes/node-a", {"spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}})
    assert api.post(NS, json=pod("both", nodeSelector={"no": "such"})).status_code == 201
    cluster.settle()
    assert _failed_message(api, "both").startswith("0/1 nodes are available: 1 node(s) had untolerated taint {k: }.")


def test_a_binding_from_the_cached_pod_stores_what_a_fresh_read_would():
    """The scheduler hands bind() the Pod of its cache: at the stored revision, the binding is
    made from it (copying what it changes, the cache's object untouched) and stores the same
    bytes as one made from the stored Pod; at an older revision the stored Pod is read."""
    import copy
    import re

    from kubelite.server.handlers.pods import bind

    with Cluster("memory://", clock=FakeClock(), controllers=False) as c, c.http_client() as api:
        r = c.api.registry.lookup("", "v1", "pods")
        for name in ("a", "b", "c"):
            assert api.post(NS, json=pod(name)).status_code == 201
        seen = c.api.get(r, "default", "a")
        kept = copy.deepcopy(seen)
        bind(c.api, "default", "a", "node-a", seen=seen)
        bind(c.api, "default", "b", "node-a")
        assert seen == kept

        def stored(name: str) -> str:
            text = bytes(c.api.store.get(f"/registry/core/pods/default/{name}").value).decode()
            uid = c.api.get(r, "default", name)["metadata"]["uid"]
            text = text.replace(uid, "UID").replace(f'"name":"{name}"', '"name":"N"')
            return re.sub(r"kube-api-access-\w{5}", "kube-api-access-X", text)

        assert stored("a") == stored("b")
        assert '"nodeName":"node-a"' in stored("a")

        stale = c.api.get(r, "default", "c")
        assert api.patch(f"{NS}/c", json={"metadata": {"labels": {"later": "yes"}}},
                         headers={"content-type": "application/merge-patch+json"}).status_code == 200
        bind(c.api, "default", "c", "node-a", seen=stale)
        bound = c.api.get(r, "default", "c")
        assert bound["metadata"]["labels"] == {"later": "yes"}
        assert bound["spec"]["nodeName"] == "node-a"
