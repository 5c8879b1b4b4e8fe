"""The simulated kubelet: pod status shapes against the reference recording, completion timing on
the cluster's clock, graceful deletion, pods of nodes nobody simulates."""
from __future__ import annotations

import copy

from kubelite.server.controllers.kubelet import wanted_completion
from tests.controllers.sim_support import normalise, pod, reference_pods

NS = "/api/v1/namespaces/default/pods"


def _reference_spec(case: str) -> dict:
    ref = copy.deepcopy(reference_pods(case)[0])
    spec = ref["spec"]
    for key in ("nodeName", "volumes"):
        spec.pop(key, None)
    for c in spec["containers"]:
        c.pop("volumeMounts", None)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "ref", "annotations": ref["metadata"].get("annotations") or {}}, "spec": spec}


def _status_shape(status: dict) -> dict:
    shape = normalise(status)
    return shape


def test_a_bound_pod_runs_with_the_reference_status(cluster, api):
    assert api.post(NS, json=_reference_spec("deploy-create-3")).status_code == 201
    assert cluster.settle()
    got = api.get(f"{NS}/ref").json()
    want = reference_pods("deploy-create-3")[0]
    assert got["spec"]["nodeName"] == "node-a"
    assert _status_shape(got["status"]) == _status_shape(want["status"])
    # Condition order, image digest (sha256 of the image name, as the reference's simulation) too.
    assert [c["type"] for c in got["status"]["conditions"]] == [c["type"] for c in want["status"]["conditions"]]
    assert got["status"]["containerStatuses"][0]["imageID"] == want["status"]["containerStatuses"][0]["imageID"]
    assert got["status"]["hostIP"] == "127.0.0.1"


def test_an_annotated_pod_fails_after_a_second_as_the_reference_job_pod(cluster, api):
    assert api.post(NS, json=_reference_spec("job-failed")).status_code == 201
    assert cluster.settle()
    assert api.get(f"{NS}/ref").json()["status"]["phase"] == "Running"
    cluster.advance(0.5)
    assert api.get(f"{NS}/ref").json()["status"]["phase"] == "Running"
    cluster.advance(0.6)
    got = api.get(f"{NS}/ref").json()["status"]
    want = reference_pods("job-failed")[0]["status"]
    assert _status_shape(got) == _status_shape(want)
    assert [c["type"] for c in got["conditions"]] == [c["type"] for c in want["conditions"]]


def test_succeeded_annotation_matches_the_reference_completed_job_pod(cluster, api):
    body = _reference_spec("job-failed")
    body["metadata"]["annotations"] = {"sim.kubelite.io/complete": "Succeeded"}
    assert api.post(NS, json=body).status_code == 201
    cluster.settle()
    cluster.advance(1.1)
    got = api.get(f"{NS}/ref").json()["status"]
    want = reference_pods("job-basic")[0]["status"]
    assert _status_shape(got) == _status_shape(want)


def test_job_pods_complete_unless_annotated_otherwise():
    owned = {"metadata": {"ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "j",
                                               "uid": "u", "controller": True}]}}
    assert wanted_completion(owned) == "Succeeded"
    failing = copy.deepcopy(owned)
    failing["metadata"]["annotations"] = {"sim.example.com/complete": "Failed"}
    assert wanted_completion(failing) == "Failed"
    kept = copy.deepcopy(owned)
    kept["metadata"]["annotations"] = {"sim.kubelite.io/complete": "Running"}
    assert wanted_completion(kept) is None
    assert wanted_completion({"metadata": {"name": "plain"}}) is None


def test_init_containers_complete_and_sidecars_run(cluster, api):
    body = pod("init", initContainers=[{"name": "setup", "image": "busybox:1.36"},
                                       {"name": "side", "image": "envoy:1", "restartPolicy": "Always"}])
    assert api.post(NS, json=body).status_code == 201
    cluster.settle()
    status = api.get(f"{NS}/init").json()["status"]
    setup, side = status["initContainerStatuses"]
    assert setup["state"]["terminated"]["reason"] == "Completed" and setup["state"]["terminated"]["exitCode"] == 0
    assert side["started"] is True and "running" in side["state"]


def test_pod_ips_are_distinct_and_host_network_uses_the_node_address(cluster, api):
    for i in range(5):
        assert api.post(NS, json=pod(f"p{i}")).status_code == 201
    assert api.post(NS, json=pod("host", hostNetwork=True)).status_code == 201
    cluster.settle()
    ips = [api.get(f"{NS}/p{i}").json()["status"]["podIP"] for i in range(5)]
    assert len(set(ips)) == 5 and all(ip.startswith("10.244.0.") for ip in ips)
    assert api.get(f"{NS}/host").json()["status"]["podIP"] == "127.0.0.1"


def test_the_lowest_address_a_deleted_pod_gave_up_is_handed_out_next(cluster, api):
    for i in range(4):
        assert api.post(NS, json=pod(f"p{i}")).status_code == 201
        cluster.settle()
    ips = [api.get(f"{NS}/p{i}").json()["status"]["podIP"] for i in range(4)]
    assert ips == ["10.244.0.2", "10.244.0.3", "10.244.0.4", "10.244.0.5"]
    for name in ("p2", "p1"):
        assert api.delete(f"{NS}/{name}").status_code == 200
    cluster.settle()
    for name in ("q1", "q2", "q3"):
        assert api.post(NS, json=pod(name)).status_code == 201
        cluster.settle()
    got = [api.get(f"{NS}/{name}").json()["status"]["podIP"] for name in ("q1", "q2", "q3")]
    assert got == ["10.244.0.3", "10.244.0.4", "10.244.0.6"]


def test_a_deleted_pod_is_removed(cluster, api):
    assert api.post(NS, json=pod("gone")).status_code == 201
    cluster.settle()
    assert api.delete(f"{NS}/gone").status_code == 200
    assert api.get(f"{NS}/gone").status_code == 200  # terminating: the kubelet has not acted yet
    cluster.settle()
    assert api.get(f"{NS}/gone").status_code == 404


def test_a_pod_on_a_node_nobody_simulates_stays_pending(cluster, api):
    assert api.post(NS, json=pod("elsewhere", nodeName="node-zz")).status_code == 201
    cluster.settle()
    got = api.get(f"{NS}/elsewhere").json()
    assert got["status"]["phase"] == "Pending" and "containerStatuses" not in got["status"]


def test_readiness_gates_decide_ready(cluster, api):
    assert api.post(NS, json=pod("gated", readinessGates=[{"conditionType": "example.com/lb"}])).status_code == 201
    cluster.settle()
    got = api.get(f"{NS}/gated").json()["status"]
    ready = {c["type"]: c for c in got["conditions"]}
    assert got["phase"] == "Running" and ready["ContainersReady"]["status"] == "True"
    assert (ready["Ready"]["status"], ready["Ready"]["reason"], ready["Ready"]["message"]) == (
        "False", "ReadinessGatesNotReady", 'corresponding condition of pod readiness gate "example.com/lb" does not '
                                           'exist.')
    lb = {"type": "example.com/lb", "status": "True", "lastProbeTime": None,
          "lastTransitionTime": cluster.clock.rfc3339()}
    patched = api.patch(f"{NS}/gated/status", json={"status": {"conditions": [lb]}},
                        headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert patched.status_code == 200, patched.text
    cluster.settle()
    ready = {c["type"]: c for c in api.get(f"{NS}/gated").json()["status"]["conditions"]}["Ready"]
    assert ready["status"] == "True" and "reason" not in ready and "message" not in ready
