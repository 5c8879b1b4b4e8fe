"""Issue 11: a controller never crashes on an odd object (it logs and goes on), and a crash of one
controller never stops the others or the server.

Odd objects are ones the API admits but no manifest author would write on purpose: owners of
kinds nobody serves, selectors matching nothing, schedules that never come, numbers at their
limits. Each test checks that the cluster settles, that no controller raised, and that the other
controllers still do their work."""
from __future__ import annotations

import logging
import time

import pytest

import kubelite
from kubelite.server.cluster import Cluster
from kubelite.server.controllers import default_controllers

LOGGER = "kubelite.controllers"
INT32_MAX = 2147483647
C = [{"name": "c", "image": "busybox"}]
NOWHERE = {"pool": "none-has-this"}  # pods that never get a node (they take no node's room)


def template(app: str, **spec) -> dict:
    return {"metadata": {"labels": {"app": app}}, "spec": {"containers": C, **spec}}


def deployment(name: str, replicas: int = 1, **spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": template(name),
                     **spec}}


def replicaset(name: str, replicas: int = 1) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": template(name)}}


def service(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": name}, "ports": [{"port": 80}]}}


def job(name: str, **spec) -> dict:
    pod_spec = spec.pop("pod", {})
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": C, **pod_spec}}, **spec}}


ODD = [
    # admissible but strange: everything at its limit, a selector wider than the template
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "odd-limits"},
     "spec": {"replicas": 2, "minReadySeconds": INT32_MAX - 1, "progressDeadlineSeconds": INT32_MAX,
              "revisionHistoryLimit": 0,
              "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "100%", "maxUnavailable": "100%"}},
              "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["odd", "web"]}]},
              "template": template("odd")}},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "odd-paused"},
     "spec": {"replicas": 0, "paused": True, "strategy": {"type": "Recreate"},
              "selector": {"matchLabels": {"app": "paused"}}, "template": template("paused")}},
    # owners of a kind no one serves, and of a served kind that is not there
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "owned-by-a-widget", "ownerReferences": [
        {"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "0b1d-widget", "controller": True,
         "blockOwnerDeletion": True}]}, "spec": {"containers": C}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "owned-by-a-missing-rs", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "nope", "uid": "0b1d-rs", "controller": True}]},
     "spec": {"containers": C}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "on-a-node-no-one-runs"},
     "spec": {"nodeName": "node-zzz", "containers": C}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "asks-too-much"},
     "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "999999999", "memory": "8Ei"}}}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad-annotations", "annotations": {
        "sim.kubelite.io/complete": "garbage", "sim.kubelite.io/cpu": "lots", "sim.kubelite.io/memory": "-1"}},
     "spec": {"containers": C, "readinessGates": [{"conditionType": "example.com/never"}]}},
    # selectors matching nothing
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lonely"},
     "spec": {"selector": {"app": "nothing"}, "ports": [{"port": 80, "targetPort": "named"}]}},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "odd-lb"},
     "spec": {"type": "LoadBalancer", "selector": {"app": "odd"}, "ports": [{"port": 80, "targetPort": "nope"}]}},
    {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "stray", "labels": {
        "kubernetes.io/service-name": "none", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
     "addressType": "IPv4", "endpoints": []},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "everything"},
     "spec": {"maxUnavailable": "200%", "selector": {}}},
    {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "nowhere"},
     "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": template("ds", nodeSelector=NOWHERE)}},
    {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "no-service"},
     "spec": {"serviceName": "missing", "replicas": 2, "podManagementPolicy": "Parallel",
              "selector": {"matchLabels": {"app": "sts"}}, "template": template("sts"),
              "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
                  "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}},
    # huge numbers
    job("wide", parallelism=INT32_MAX, completions=3),
    job("wide-indexed", parallelism=100000, completions=2, completionMode="Indexed"),
    job("fails-forever", backoffLimit=INT32_MAX, activeDeadlineSeconds=INT32_MAX,
        ttlSecondsAfterFinished=INT32_MAX, template={"metadata": {"annotations": {"sim.kubelite.io/complete": "Failed"}},
                                                    "spec": {"restartPolicy": "Never", "containers": C}}),
    # a schedule that never comes (February 30th) and one in the farthest time zone
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "never"},
     "spec": {"schedule": "0 0 30 2 *", "jobTemplate": {"spec": {"template": {"spec": {
         "restartPolicy": "Never", "containers": C}}}}}},
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "far-east"},
     "spec": {"schedule": "59 23 31 12 *", "timeZone": "Pacific/Kiritimati", "startingDeadlineSeconds": 0,
              "concurrencyPolicy": "Replace", "successfulJobsHistoryLimit": 0, "failedJobsHistoryLimit": 0,
              "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": C}}}}}},
    # autoscalers of what is not there
    {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "of-a-widget"},
     "spec": {"scaleTargetRef": {"apiVersion": "example.com/v1", "kind": "Widget", "name": "w"},
              "minReplicas": 1, "maxReplicas": 3}},
    {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "of-nothing"},
     "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "gone"},
              "minReplicas": 1, "maxReplicas": INT32_MAX,
              "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                  "type": "Utilization", "averageUtilization": 1}}}]}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "hand-made"},
     "spec": {"taints": [{"key": "k", "effect": "NoExecute"}]}},
]


def errors(caplog) -> list[str]:
    return [f"{r.getMessage()}\n{r.exc_text or ''}" for r in caplog.records
            if r.name == LOGGER and r.levelno >= logging.ERROR]


def conditions(obj: dict) -> dict:
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}


def test_odd_objects_are_handled_without_an_error_and_the_cluster_keeps_working(caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with kubelite.Cluster(fake_clock=True) as kube:
        for obj in ODD:
            kube.create(obj)  # every one of them is admissible
        assert kube.settle()
        kube.advance(3600)
        assert kube.settle()

        # the ordinary work goes on
        kube.apply(deployment("web", replicas=2))
        kube.apply(job("ordinary", completions=2))
        kube.apply(service("web"))
        kube.advance(10)
        assert conditions(kube.get("deployments", "web"))["Available"]["status"] == "True"
        assert conditions(kube.get("jobs", "ordinary"))["Complete"]["status"] == "True"
        assert len(kube.get("endpoints", "web")["subsets"][0]["addresses"]) == 2

        # and each odd object got what a real cluster gives it
        names = {p["metadata"]["name"] for p in kube.list("pods")}
        assert "owned-by-a-widget" in names          # an owner nobody can resolve: left alone
        assert "owned-by-a-missing-rs" not in names  # a missing owner of a served kind: collected
        assert kube.get("pods", "on-a-node-no-one-runs")["status"].get("phase", "Pending") == "Pending"
        assert kube.get("pods", "asks-too-much")["status"]["phase"] == "Pending"
        assert kube.get("endpoints", "lonely").get("subsets") is None
        assert kube.get("jobs", "wide")["status"]["succeeded"] == 3
        assert kube.get("jobs", "wide-indexed")["status"]["succeeded"] == 2
        failures = kube.get("jobs", "fails-forever")["status"]["failed"]
        assert 10 <= failures <= 20  # an hour of backoff doubling from 10 s up to 6 min, not a pod a second
        assert [j for j in kube.list("jobs") if j["metadata"]["name"].startswith("never-")] == []
        scale = conditions(kube.get("hpa", "of-a-widget"))["AbleToScale"]
        assert (scale["status"], scale["reason"]) == ("False", "FailedGetScale")
        assert kube.get("daemonsets", "nowhere")["status"]["desiredNumberScheduled"] == 0
    assert errors(caplog) == []


def test_an_ownership_cycle_deleted_in_the_foreground_unwinds(caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with kubelite.Cluster(fake_clock=True) as kube:
        b = kube.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}})
        a = kube.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "b", "uid": b["metadata"]["uid"],
             "blockOwnerDeletion": True}]}})
        kube.patch("configmaps", "b", {"metadata": {"ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": a["metadata"]["uid"],
             "blockOwnerDeletion": True}]}}, type="merge")
        kube.delete("configmaps", "b", cascade="foreground")
        # each waited for the other before; as upstream, a's reference stops blocking and both go
        assert sorted(c["metadata"]["name"] for c in kube.list("configmaps")) == ["kube-root-ca.crt"]
    assert errors(caplog) == []


def test_a_job_asking_for_millions_of_pods_gets_them_500_a_sync(cluster, api, caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    made = api.post("/apis/batch/v1/namespaces/default/jobs",
                    json=job("millions", parallelism=INT32_MAX, pod={"nodeSelector": NOWHERE}))
    assert made.status_code == 201
    assert cluster.settle()  # the next 500 wait for the pods' events (a 1 s batch on the cluster's clock)
    assert len(api.get("/api/v1/namespaces/default/pods").json()["items"]) == 500
    assert api.post("/apis/apps/v1/namespaces/default/deployments", json=deployment("web")).status_code == 201
    cluster.advance(1.0)
    assert len(api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "job-name=millions"})
               .json()["items"]) == 1000
    web = api.get("/apis/apps/v1/namespaces/default/deployments/web").json()
    assert conditions(web)["Available"]["status"] == "True"
    assert errors(caplog) == []


def test_a_parallel_statefulset_of_100000_pods_never_holds_the_worker(cluster, api, caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "huge"},
           "spec": {"replicas": 100000, "podManagementPolicy": "Parallel", "serviceName": "huge",
                    "selector": {"matchLabels": {"app": "huge"}}, "template": template("huge", nodeSelector=NOWHERE)}}
    assert api.post("/apis/apps/v1/namespaces/default/statefulsets", json=sts).status_code == 201
    assert api.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace",
                                                "metadata": {"name": "meanwhile"}}).status_code == 201
    started = time.monotonic()
    assert not cluster.settle(timeout=1.0)  # still creating: a settle's timeout is kept
    assert time.monotonic() - started < 30  # one sync makes at most 500 pods, then the others get a turn
    pods = api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "app=huge"}).json()["items"]
    assert 500 <= len(pods) < 100000
    # the other controllers acted meanwhile: the new namespace has its ServiceAccount
    assert api.get("/api/v1/namespaces/meanwhile/serviceaccounts/default").status_code == 200
    assert errors(caplog) == []


def test_backoffs_stay_bounded_after_any_number_of_failures():
    from kubelite.server.clock import FakeClock
    from kubelite.server.controllers import job_policy
    from kubelite.server.controllers.queue import WorkQueue

    assert job_policy.backoff_delay(10**6) == job_policy.BACKOFF_MAX  # 2 ** 999999 is no float
    clock = FakeClock(0)
    queue = WorkQueue(clock)
    for _ in range(2000):  # a key failing for days on a served cluster
        queue.retry("ns/key")
        clock.advance(queue.next_due() - clock.time())
        assert queue.pop() == "ns/key"
    queue.retry("ns/key")
    assert queue.next_due() - clock.time() == 30.0


# -- a controller that fails ---------------------------------------------------------------------

def controller(kube_or_cluster, name: str):
    manager = getattr(kube_or_cluster, "cluster", kube_or_cluster).manager
    return next(c for c in manager.controllers if c.name == name)


def boom(*args, **kwargs):
    raise RuntimeError("boom")


def test_a_failing_sync_is_logged_and_retried_and_the_others_go_on(caplog, monkeypatch):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with kubelite.Cluster(fake_clock=True) as kube:
        monkeypatch.setattr(controller(kube, "deployment"), "sync", boom)
        kube.apply(deployment("web", replicas=2))
        kube.apply(replicaset("plain", replicas=2))
        kube.apply(job("ordinary"))
        kube.advance(5)

        # the Deployment controller did nothing, the others all did their part
        assert not kube.get("deployments", "web").get("status")
        assert kube.list("replicasets", selector="app=web") == []
        assert [p["status"]["phase"] for p in kube.list("pods", selector="app=plain")] == ["Running", "Running"]
        assert conditions(kube.get("jobs", "ordinary"))["Complete"]["status"] == "True"
        failed = [r for r in caplog.records if r.name == LOGGER and r.getMessage() == "deployment: sync default/web failed"]
        assert failed and failed[0].exc_info[0] is RuntimeError  # logged with its traceback

        # once the controller works again, its retry (with backoff) picks the Deployment up
        monkeypatch.undo()
        kube.advance(30)
        assert conditions(kube.get("deployments", "web"))["Available"]["status"] == "True"


def test_a_failing_watch_handler_is_logged_and_the_others_go_on(caplog, monkeypatch):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with kubelite.Cluster(fake_clock=True) as kube:
        monkeypatch.setattr(controller(kube, "endpoints"), "handle", boom)
        kube.apply(deployment("web", replicas=2))
        kube.apply(service("web"))
        assert conditions(kube.get("deployments", "web"))["Available"]["status"] == "True"
        slices = kube.list("endpointslices", selector="kubernetes.io/service-name=web")
        assert len(slices[0]["endpoints"]) == 2  # the EndpointSlice controller still works
    assert any(r.getMessage().startswith("endpoints: handling ") and r.exc_info for r in caplog.records)


class Broken:
    name = "broken"

    def __init__(self, ctx):
        raise RuntimeError("cannot start")


def test_a_controller_that_cannot_start_leaves_the_others_running(caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)
    from kubelite.server.clock import FakeClock

    with Cluster("memory://", clock=FakeClock(), controllers=[Broken, *default_controllers()]) as cluster, \
            cluster.http_client() as api:
        assert api.post("/apis/apps/v1/namespaces/default/deployments", json=deployment("web")).status_code == 201
        cluster.advance(5)
        assert conditions(api.get("/apis/apps/v1/namespaces/default/deployments/web").json())["Available"]["status"] \
            == "True"
    assert any(r.getMessage() == "controller broken failed to start" for r in caplog.records)


def test_a_served_cluster_outlives_a_crashing_controller_and_a_failing_step(caplog, monkeypatch):
    """In the background (as under `kubelite serve`): the worker thread goes on after a sync fails
    and after a step of the manager itself fails; the API keeps answering."""
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with Cluster("memory://", background=True) as cluster, cluster.http_client() as api:
        monkeypatch.setattr(controller(cluster, "deployment"), "sync", boom)
        queue = controller(cluster, "statefulset").queue
        pop = queue.pop
        calls = {"n": 0}

        def pop_failing_once():
            calls["n"] += 1
            if calls["n"] == 1:
                raise RuntimeError("step broke")
            return pop()

        monkeypatch.setattr(queue, "pop", pop_failing_once)
        assert api.post("/apis/apps/v1/namespaces/default/deployments", json=deployment("web")).status_code == 201
        assert api.post("/apis/apps/v1/namespaces/default/replicasets", json=replicaset("plain")).status_code == 201

        def running() -> bool:
            pods = api.get("/api/v1/namespaces/default/pods", params={"labelSelector": "app=plain"}).json()["items"]
            return [p.get("status", {}).get("phase") for p in pods] == ["Running"]

        deadline = time.monotonic() + 30
        while not running() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert running()
        assert cluster.manager._thread is not None and cluster.manager._thread.is_alive()
        assert api.get("/healthz").text == "ok"
        messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
        assert "deployment: sync default/web failed" in messages
        assert "controller manager step failed" in messages
