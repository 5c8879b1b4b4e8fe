"""wait, advance and settle: what the controllers do, seen through the Python API."""
from __future__ import annotations

import pytest

import kubelite
from api_support import kubectl, needs_kubectl
from kubelite.server.clock import parse_time


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


CRON_SLACK = 0.1  # the CronJob controller acts this long after the scheduled second


def test_advance_on_a_wall_clock_cluster_runs_a_cronjob_as_ten_real_minutes_would():
    cronjob = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
               "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                   "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}
    with kubelite.Cluster() as kube:  # wall time, as issue 17's example: no fake clock
        assert not kube.fake_clock
        kube.apply(cronjob)
        created = parse_time(kube.get("cronjobs", "tick")["metadata"]["creationTimestamp"])
        before = kube.clock.time()
        kube.advance(600)
        now = kube.clock.time()
        assert now - before >= 600
        jobs = sorted(kube.list("jobs"), key=lambda j: j["metadata"]["creationTimestamp"])
        # one Job per 5-minute mark passed since the CronJob was made: two (three only if the
        # test itself ran across a mark)
        marks = [m for m in range((int(created) // 300 + 1) * 300, int(now - CRON_SLACK) + 1, 300)]
        assert len(marks) in (2, 3)
        assert [j["metadata"]["name"] for j in jobs] == [f"tick-{m // 60}" for m in marks]
        assert kube.get("cronjobs", "tick")["status"]["lastScheduleTime"] == format_epoch(marks[-1])
        # the first Job's pod finished on the way, as it would have in those ten minutes
        first = jobs[0]
        assert first["status"].get("succeeded") == 1
        assert {c["type"] for c in first["status"]["conditions"]} == {"SuccessCriteriaMet", "Complete"}


def test_advance_stops_where_work_is_due_on_a_fake_clock_too():
    cronjob = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "tick"},
               "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                   "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}
    with kubelite.Cluster(fake_clock=1576800000) as kube:  # 2019-12-20T00:00:00Z, on a mark
        kube.apply(cronjob)
        kube.advance(600 + 1)
        assert kube.clock.rfc3339() == "2019-12-20T00:10:01Z"
        jobs = {j["metadata"]["name"]: j for j in kube.list("jobs")}
        assert sorted(jobs) == ["tick-26280005", "tick-26280010"]
        # the 00:05 Job ran and finished at 00:05:02 (its pod ends about a second after it starts),
        # not at 00:10 when the advance ended
        assert jobs["tick-26280005"]["status"]["completionTime"] == "2019-12-20T00:05:02Z"
        status = kube.get("cronjobs", "tick")["status"]
        assert status["lastScheduleTime"] == "2019-12-20T00:10:00Z"
        assert status["lastSuccessfulTime"] == "2019-12-20T00:05:02Z"   # the 00:10 Job still runs
        assert [ref["name"] for ref in status["active"]] == ["tick-26280010"]


def test_advance_passes_the_progress_deadline_of_pods_that_never_become_ready(kube):
    # the default fixture: wall clock. A readiness gate nobody sets keeps the pod Running but not ready
    kube.apply(deployment("unready", replicas=1, progressDeadlineSeconds=120,
                          pod={"readinessGates": [{"conditionType": "example.com/never"}]}))
    [pod] = kube.list("pods", selector="app=unready")
    assert pod["status"]["phase"] == "Running"
    ready = next(c for c in pod["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"]) == ("False", "ReadinessGatesNotReady")

    def conditions() -> dict:
        return {c["type"]: c for c in kube.get("deployments", "unready")["status"]["conditions"]}

    assert conditions()["Progressing"]["status"] == "True"
    assert conditions()["Available"]["status"] == "False"
    kube.advance(120 + 1)
    progressing = conditions()["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert progressing["message"].endswith("has timed out progressing.")
    events = [e["reason"] for e in kube.list("events") if e["involvedObject"]["name"] == "unready"]
    assert "ScalingReplicaSet" in events


def test_advance_refuses_to_go_back(kube):
    before = kube.clock.time()
    with pytest.raises(ValueError):
        kube.advance(-1)
    kube.advance(0)
    assert kube.clock.time() >= before


def format_epoch(seconds: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


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
