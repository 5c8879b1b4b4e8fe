"""Support for the workload controller tests (StatefulSet, DaemonSet, Job, CronJob): a stand-in
for the reference cluster's simulated kubelet, the reference recordings, and normalisation.

The stand-in does what the README of ../shared/reference/controllers/ says the recording's
kubelet did: a pod goes Running and Ready at once, a Job's pod Succeeded 1 s later (Failed with
exit code 1 when annotated `sim.example.com/complete: "Failed"`, kept running with "Running", and
for this suite's tests failed by completion index with `sim.example.com/fail-indexes`), a deleted
pod goes at once.
It lets these tests pin the controllers' behaviour without depending on the scheduler.
"""
from __future__ import annotations

import contextlib
import json
import pathlib
import re

from kubelite.server.controllers.base import MERGE, Controller, controller_ref, split_key

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "controllers"
COMPLETE_ANNOTATION = "sim.example.com/complete"
# Test-only: the completion indexes of an Indexed Job whose pods fail ("1,3").
FAIL_INDEXES = "sim.example.com/fail-indexes"
# "About 1 s" in the recording: a Job's pod finished just after the Job's 1 s batch saw it ready.
RUN_SECONDS = 1.05


class StandInKubelet(Controller):
    name = "test-kubelet"
    manager = "simulated-kubelet"
    component = "kubelet"
    watches = ("pods",)

    def __init__(self, ctx):
        super().__init__(ctx)
        self._started: dict[str, float] = {}

    def sync(self, key):
        ns, name = split_key(key)
        pod = self.cache.get("pods", ns, name)
        if pod is None:
            return
        meta = pod["metadata"]
        if meta.get("deletionTimestamp"):
            self.client.delete("pods", ns, name, grace=0, uid=meta.get("uid"))
            return
        phase = (pod.get("status") or {}).get("phase")
        now = self.clock.rfc3339()
        if phase in (None, "Pending"):
            self.client.patch("pods", ns, name, {"status": self._running(pod, now)}, MERGE, subresource="status")
            self._started[meta.get("uid")] = self.clock.time()
            if (controller_ref(pod) or {}).get("kind") == "Job":
                self.queue.add_after(key, RUN_SECONDS)
            return
        if phase == "Running" and (controller_ref(pod) or {}).get("kind") == "Job":
            started = self._started.get(meta.get("uid"), 0.0)
            if self.clock.time() < started + RUN_SECONDS:
                self.queue.add_after(key, started + RUN_SECONDS - self.clock.time())
                return
            annotations = meta.get("annotations") or {}
            if annotations.get(COMPLETE_ANNOTATION) == "Running":
                return  # kept running (as the simulated kubelet's "Running" does)
            index = (meta.get("labels") or {}).get("batch.kubernetes.io/job-completion-index")
            failed = annotations.get(COMPLETE_ANNOTATION) == "Failed" or \
                (index is not None and index in annotations.get(FAIL_INDEXES, "").split(","))
            self.client.patch("pods", ns, name, {"status": self._finished(pod, now, failed)}, MERGE,
                              subresource="status")

    @staticmethod
    def _running(pod, now):
        cond = [{"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
                for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")]
        return {"phase": "Running", "conditions": cond, "startTime": now, "hostIP": "127.0.0.1",
                "containerStatuses": [{"name": c["name"], "ready": True, "restartCount": 0, "image": c.get("image"),
                                       "state": {"running": {"startedAt": now}}, "started": True}
                                      for c in pod["spec"].get("containers") or []]}

    @staticmethod
    def _finished(pod, now, failed):
        code = 1 if failed else 0
        reason = "Error" if failed else "Completed"
        cond = [{"type": "Ready", "status": "False", "lastProbeTime": None, "lastTransitionTime": now,
                 "reason": "PodCompleted"}]
        return {"phase": "Failed" if failed else "Succeeded", "conditions": cond,
                "containerStatuses": [{"name": c["name"], "ready": False, "restartCount": 0, "image": c.get("image"),
                                       "state": {"terminated": {"exitCode": code, "reason": reason,
                                                                "startedAt": pod["status"].get("startTime"),
                                                                "finishedAt": now}}, "started": False}
                                      for c in pod["spec"].get("containers") or []]}


# -- the reference recordings -------------------------------------------------------------------

def stream(case: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / case / "stream.jsonl").read_text().splitlines() if line.strip()]


def final(case: str, resource: str) -> list[dict]:
    return json.loads((DATA / case / "final" / f"{resource}.json").read_text())["items"]


def manifest(case: str, name: str) -> dict:
    import yaml

    return yaml.safe_load((DATA / case / "files" / name).read_text())


def status_shape(status: dict) -> dict:
    """A Job/StatefulSet/DaemonSet status without times and uids: what must match a recording."""
    out = {}
    for key, value in (status or {}).items():
        if key in ("startTime", "completionTime", "lastScheduleTime", "lastSuccessfulTime"):
            out[key] = "<time>"
        elif key == "conditions":
            out[key] = [(c.get("type"), c.get("status"), c.get("reason"), c.get("message")) for c in value]
        elif key == "uncountedTerminatedPods":
            out[key] = {k: len(v) for k, v in value.items()}
        elif key == "active" and isinstance(value, list):
            out[key] = [ref.get("name") for ref in value]
        elif key in ("currentRevision", "updateRevision"):
            out[key] = re.sub(r"-[0-9a-z]+$", "-<hash>", value)
        else:
            out[key] = value
    return out


def collapse(items: list) -> list:
    """Consecutive duplicates dropped (watch events that did not change what is compared)."""
    out: list = []
    for item in items:
        if not out or out[-1] != item:
            out.append(item)
    return out


def pod_name_pattern(name: str) -> str:
    """Generated pod name suffixes replaced, so names compare across runs."""
    return re.sub(r"-[a-z0-9]{5}$", "-<x>", name)


def event_shape(event: dict) -> tuple:
    words = [pod_name_pattern(w) for w in (event.get("message") or "").split(" ")]
    return (event.get("type"), event.get("reason"), " ".join(words), (event.get("involvedObject") or {}).get("kind"))


class Recorder(Controller):
    """Every watch event of the cluster, in order, as (resource id, type, object)."""
    name = "test-recorder"
    watches = ("*",)
    leader_only = False

    def __init__(self, ctx):
        super().__init__(ctx)
        self.seen: list[tuple[str, str, dict]] = []

    def handle(self, rid, event_type, obj, old):
        self.seen.append((rid, event_type, obj))

    def sync(self, key):
        return None

    def objects(self, rid: str, name: str | None = None) -> list[dict]:
        return [o for r, _, o in self.seen if r == rid and (name is None or o["metadata"]["name"] == name)]


def recorded(case: str, resource: str, name: str | None = None) -> list[dict]:
    return [e["object"] for e in stream(case)
            if e["resource"] == resource and (name is None or e["object"]["metadata"]["name"] == name)]


def run_for(cluster, seconds: float, step: float = 0.1) -> None:
    """Move the fake clock forward in small steps, settling after each."""
    for _ in range(int(round(seconds / step))):
        cluster.advance(step)


@contextlib.contextmanager
def workload_cluster(controllers: list, namespace: str, start: float | None = None):
    """(cluster, api): the given controllers with the stand-in kubelet and a Recorder (last) on a
    fake clock, and `namespace` with its default ServiceAccount (no controller here makes it)."""
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    with Cluster("memory://", clock=FakeClock(start), controllers=[*controllers, StandInKubelet, Recorder]) as c, \
            c.http_client() as api:
        assert api.post("/api/v1/namespaces", json={"metadata": {"name": namespace}}).status_code == 201
        made = api.post(f"/api/v1/namespaces/{namespace}/serviceaccounts", json={"metadata": {"name": "default"}})
        assert made.status_code in (201, 409)
        yield c, api
