"""wait, advance and settle: what the controllers do, seen through the Python API."""
from __future__ import annotations

import pytest

import kubelite
from api_support import kubectl, needs_kubectl


def deployment(name: str, replicas: int = 2, **spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}],
                                           **spec.pop("pod", {})}}, **spec}}


@needs_kubectl
def test_wait_for_available_as_kubectl_wait_sees_it(kube, tmp_path):
    kube.apply(deployment("web"))
    dep = kube.wait("deployment/web", "condition=Available", timeout=10)
    assert dep["status"]["availableReplicas"] == 2
    assert len(kube.list("pods", selector="app=web")) == 2
    with kube.serve() as kubeconfig:
        done = kubectl(kubeconfig, "wait", "deployment/web", "--for=condition=Available", "--timeout=10s",
                       cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "deployment.apps/web condition met\n"


def test_wait_for_jsonpath_and_for_delete(kube):
    kube.apply(deployment("api", replicas=1))
    pod = kube.list("pods", selector="app=api")[0]["metadata"]["name"]
    assert kube.wait(f"pod/{pod}", "jsonpath={.status.phase}=Running", timeout=5)["status"]["phase"] == "Running"
    kube.delete("deployments", "api", cascade="foreground")
    assert kube.wait("deployment/api", "delete", timeout=10) is None
    assert kube.list("pods", selector="app=api") == []  # the garbage collector removed them


@needs_kubectl
def test_wait_timeout_moves_a_fake_clock_and_words_the_error_as_kubectl(tmp_path):
    with kubelite.Cluster(fake_clock=True) as kube:
        kube.apply(deployment("stuck", replicas=1, pod={"nodeSelector": {"no-such": "node"}}))
        before = kube.clock.time()
        with pytest.raises(kubelite.WaitTimeout) as caught:
            kube.wait("deployment/stuck", "condition=Available", timeout=3)
        assert kube.clock.time() - before == pytest.approx(3.0)
        with kube.serve() as kubeconfig:
            done = kubectl(kubeconfig, "wait", "deployment/stuck", "--for=condition=Available", "--timeout=1s",
                           cache=tmp_path)
    assert done.returncode == 1
    assert done.stderr == f"error: {caught.value}\n"


def test_wait_on_a_missing_object_is_not_found_unless_waiting_for_create_or_delete(kube):
    with pytest.raises(kubelite.NotFound):
        kube.wait("deployment/nothing", "condition=Available", timeout=1)
    assert kube.wait("deployment/nothing", "delete", timeout=1) is None
    with pytest.raises(kubelite.WaitTimeout):
        kube.wait("configmap/later", "create", timeout=0.1)


def test_advance_fires_a_cronjob():
    cronjob = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
               "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                   "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}
    with kubelite.Cluster(fake_clock=True) as kube:
        kube.apply(cronjob)
        assert kube.list("jobs") == []
        kube.advance(300)
        jobs = kube.list("jobs")
        assert len(jobs) == 1
        assert jobs[0]["metadata"]["ownerReferences"][0]["name"] == "tick"
        assert kube.get("cronjobs", "tick")["status"].get("lastScheduleTime")


def test_advance_passes_a_deployments_progress_deadline():
    with kubelite.Cluster(fake_clock=True) as kube:
        kube.apply(deployment("slow", replicas=1, progressDeadlineSeconds=30,
                              pod={"nodeSelector": {"no-such": "node"}}))

        def progressing() -> dict:
            conditions = kube.get("deployments", "slow")["status"].get("conditions") or []
            return next(c for c in conditions if c["type"] == "Progressing")

        assert progressing()["status"] == "True"
        kube.advance(31)
        assert (progressing()["status"], progressing()["reason"]) == ("False", "ProgressDeadlineExceeded")


@needs_kubectl
def test_logs_are_what_kubectl_logs_prints(kube, tmp_path):
    kube.apply(deployment("logs", replicas=1))
    pod = kube.list("pods", selector="app=logs")[0]["metadata"]["name"]
    text = kube.logs(pod)
    with kube.serve() as kubeconfig:
        done = kubectl(kubeconfig, "logs", pod, cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == text


def test_watch_yields_the_events_of_writes(kube):
    kube.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w1"}})
    rv = kube.get("configmaps", "w1")["metadata"]["resourceVersion"]
    kube.patch("configmaps", "w1", {"data": {"a": "1"}}, type="merge")
    kube.delete("configmaps", "w1")
    events = [(e["type"], e["object"]["metadata"]["name"], e["object"]["kind"])
              for e in kube.watch("configmaps", resource_version=rv, timeout=1)]
    assert events == [("MODIFIED", "w1", "ConfigMap"), ("DELETED", "w1", "ConfigMap")]
