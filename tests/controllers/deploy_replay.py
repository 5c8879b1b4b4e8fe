"""Replay of the Deployment / ReplicaSet / ReplicationController recordings on a FakeClock cluster.

The kubectl commands of a recording's `commands.txt` are done through the API at the recorded
times (the clock is moved to each command's `t=`, then the cluster settles), and what the
recording saw is compared with what this cluster's watch saw: the Events of the workload
controllers, the Deployment's condition transitions, and the final objects (normalised).
Names carrying a pod-template hash or a random suffix are compared by their order of appearance.
"""
from __future__ import annotations

import copy
import json
import pathlib
import re
import shlex

import yaml

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.base import Controller

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "controllers"
START = 1_790_000_000.0
COMPONENTS = ("deployment-controller", "replicaset-controller", "replication-controller")
_COMMAND = re.compile(r"^### t=([\d.]+) (\$|#) (.*)$")
_RESOURCES = {"deployment": "apps/v1/deployments", "replicaset": "apps/v1/replicasets",
              "replicationcontroller": "v1/replicationcontrollers", "pod": "v1/pods"}


class Recorder(Controller):
    """Sees every watch event of the workloads and Events, in order (the test's own watch)."""

    name = "test-recorder"
    watches = ("apps/deployments", "apps/replicasets", "replicationcontrollers", "events")
    leader_only = False

    def __init__(self, ctx):
        super().__init__(ctx)
        self.seen: list[dict] = []

    def handle(self, rid, event_type, obj, old):
        resource = rid.rpartition("/")[2]
        self.seen.append({"resource": resource, "type": event_type, "object": copy.deepcopy(obj)})

    def sync(self, key):
        pass


def commands(case: str) -> list[tuple[float, str, str]]:
    """(t, '$' or '#', text) of each line of commands.txt that starts a step."""
    out = []
    for line in (DATA / case / "commands.txt").read_text().splitlines():
        m = _COMMAND.match(line)
        if m:
            out.append((float(m.group(1)), m.group(2), m.group(3)))
    return out


def reference_stream(case: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / case / "stream.jsonl").read_text().splitlines() if line.strip()]


def reference_final(case: str, resource: str) -> list[dict]:
    """The recording's objects of one resource at the end (none when it dumped no such file)."""
    path = DATA / case / "final" / f"{resource}.json"
    return json.loads(path.read_text())["items"] if path.exists() else []


class Replay:
    """A FakeClock cluster with every default controller plus the recorder, driven by a case."""

    def __init__(self, case: str):
        self.case = case
        self.clock = FakeClock(START)
        from kubelite.server.controllers import default_controllers

        self.cluster = Cluster("memory://", clock=self.clock, controllers=default_controllers() + [Recorder])
        self.recorder = next(c for c in self.cluster.manager.controllers if isinstance(c, Recorder))
        self.api = self.cluster.http_client()
        self.namespace = f"pub-{case}"
        self.cluster.settle()

    def close(self) -> None:
        self.api.close()
        self.cluster.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- driving -------------------------------------------------------------------------------

    def run(self) -> "Replay":
        for t, mark, text in commands(self.case):
            self.at(t)
            if mark == "$":
                self.command(shlex.split(text)[1:])
            elif text.startswith("sleep"):
                pass  # the clock is moved to the next step's time anyway
            self.cluster.settle()
        self.at(commands(self.case)[-1][0] + 3)
        return self

    def at(self, t: float) -> None:
        """Move the clock to `t` seconds after the start (never back), settling on the way:
        controllers' delayed work (progress deadlines) falls due when it would have."""
        target = START + t
        while self.clock.time() < target:
            due = self._next_due()
            self.cluster.advance((target if due is None else min(target, due)) - self.clock.time())

    def _next_due(self):
        dues = [c.queue.next_due() for c in self.cluster.manager.controllers]
        dues = [d for d in dues if d is not None and d > self.clock.time()]
        return min(dues) if dues else None

    def command(self, argv: list[str]) -> None:
        verb = argv[0]
        ns = _flag(argv, "-n") or "default"
        flags, argv = argv, _positional(argv)
        if verb == "create" and argv[1] == "namespace":
            self._ok(self.api.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace",
                                                               "metadata": {"name": argv[2]}}))
        elif verb == "apply":
            obj = yaml.safe_load((DATA / self.case / _flag(flags, "-f")).read_text())
            path = _collection(obj["apiVersion"], obj["kind"], ns)
            self._ok(self.api.post(path, json=obj))
        elif verb == "scale":
            kind, name = _target(argv)
            self._patch(kind, ns, name, {"spec": {"replicas": int(_flag(flags, "--replicas"))}}, "merge", "scale")
        elif verb == "set" and argv[1] == "image":
            kind, name = argv[2].split("/")
            container, image = argv[3].split("=")
            self._patch(kind, ns, name, {"spec": {"template": {"spec": {"containers": [
                {"name": container, "image": image}]}}}})
        elif verb == "set" and argv[1] == "env":
            kind, name = argv[2].split("/")
            key, value = argv[3].split("=")
            container = self._get(kind, ns, name)["spec"]["template"]["spec"]["containers"][0]["name"]
            self._patch(kind, ns, name, {"spec": {"template": {"spec": {"containers": [
                {"name": container, "env": [{"name": key, "value": value}]}]}}}})
        elif verb == "patch":
            self._patch(argv[1], ns, argv[2], json.loads(_flag(flags, "-p")))
        elif verb == "annotate":
            kind, name = argv[1].split("/")
            key, value = argv[2].split("=", 1)
            self._patch(kind, ns, name, {"metadata": {"annotations": {key: value}}}, "merge")
        elif verb == "delete" and argv[1] == "pod":
            self._delete_pod(ns, argv[2])
        elif verb == "rollout":
            self._rollout(flags, ns)
        # get, rollout status/history, describe: reads only

    def _rollout(self, argv: list[str], ns: str) -> None:
        from kubelite.cli.rollout_kinds import Deployments, RolloutError

        sub = argv[1]
        if sub in ("status", "history"):
            return
        kind, name = _target(argv)
        impl = Deployments()
        obj = self._get(kind, ns, name)
        try:
            if sub == "pause":
                self._patch(kind, ns, name, {"spec": {"paused": impl.pause(obj)["spec"]["paused"]}}, "merge")
            elif sub == "resume":
                impl.resume(obj)
                self._patch(kind, ns, name, {"spec": {"paused": None}}, "merge")
            elif sub == "restart":
                changed = impl.restart(obj, self._recorded_restart_time())
                self._patch(kind, ns, name, {"spec": {"template": {"metadata": {
                    "annotations": changed["spec"]["template"]["metadata"]["annotations"]}}}}, "merge")
            elif sub == "undo":
                with self.session(ns) as sess:
                    info = sess.discovery.resolve("deployments.apps")
                    dry_run = "server" if _flag(argv, "--dry-run") == "server" else "none"
                    impl.rollback(sess, info, obj, int(_flag(argv, "--to-revision") or 0), dry_run)
        except RolloutError:
            pass  # the recording shows kubectl refusing too (already paused, no history, ...)

    def _recorded_restart_time(self) -> str:
        """The time kubectl stamped on the template when recorded (it is part of the template,
        so of the ReplicaSet's name); the cluster's clock if the recording has none."""
        for d in reference_final(self.case, "deployments"):
            annotations = ((d["spec"]["template"].get("metadata") or {}).get("annotations") or {})
            if "kubectl.kubernetes.io/restartedAt" in annotations:
                return annotations["kubectl.kubernetes.io/restartedAt"]
        return self.clock.rfc3339()

    def session(self, namespace: str):
        from kubelite.api.cluster import _session

        return _session(self.cluster, namespace)

    def _delete_pod(self, ns: str, recorded_name: str) -> None:
        # The recording's pod names are random: delete the pod at the same position by creation.
        recorded = [e["object"]["message"].split(": ", 1)[1] for e in reference_stream(self.case)
                    if e["resource"] == "events" and e["object"]["reason"] == "SuccessfulCreate"]
        index = recorded.index(recorded_name)
        ours = [e["object"]["message"].split(": ", 1)[1] for e in self.recorder.seen
                if e["resource"] == "events" and e["object"]["reason"] == "SuccessfulCreate"]
        self._ok(self.api.delete(f"/api/v1/namespaces/{ns}/pods/{ours[index]}"))

    def _get(self, kind: str, ns: str, name: str) -> dict:
        return self._ok(self.api.get(_collection_of(kind, ns) + "/" + name))

    def _patch(self, kind: str, ns: str, name: str, body: dict, how: str = "strategic", sub: str = "") -> dict:
        types = {"strategic": "application/strategic-merge-patch+json", "merge": "application/merge-patch+json"}
        path = _collection_of(kind, ns) + "/" + name + (f"/{sub}" if sub else "")
        return self._ok(self.api.patch(path, content=json.dumps(body), headers={"content-type": types[how]}))

    @staticmethod
    def _ok(response) -> dict:
        assert response.status_code < 300, response.text
        return response.json()

    # -- what was seen ---------------------------------------------------------------------------

    def seen(self) -> list[dict]:
        return self.recorder.seen

    def final(self, resource: str) -> list[dict]:
        path = _collection_of(resource.rstrip("s"), self.namespace)
        return self._ok(self.api.get(path))["items"]


def _flag(argv: list[str], name: str) -> str | None:
    for i, word in enumerate(argv):
        if word == name and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def _positional(argv: list[str]) -> list[str]:
    """The words that are not flags or flag values (flags here always take a value)."""
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = "=" not in word
        else:
            out.append(word)
    return out


def _target(argv: list[str]) -> tuple[str, str]:
    word = next(w for w in argv[1:] if "/" in w and not w.startswith("-"))
    kind, name = word.split("/")
    return kind, name


def _collection(api_version: str, kind: str, ns: str) -> str:
    return _collection_of(kind.lower(), ns)


def _collection_of(kind: str, ns: str) -> str:
    path = _RESOURCES[kind]
    group_version, resource = path.rsplit("/", 1)
    root = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
    return f"{root}/namespaces/{ns}/{resource}"


# -- normalisation ---------------------------------------------------------------------------------

class Names:
    """Generated names (ReplicaSets by hash, pods by suffix) replaced by their order of appearance."""

    def __init__(self, owner: str):
        self.owner = owner
        self.rs: dict[str, str] = {}
        self.pods: dict[str, str] = {}

    def rs_name(self, name: str) -> str:
        if name == self.owner:
            return name
        return self.rs.setdefault(name, f"<rs{len(self.rs) + 1}>")

    def pod_name(self, name: str) -> str:
        return self.pods.setdefault(name, f"<pod{len(self.pods) + 1}>")

    def text(self, message: str) -> str:
        message = re.sub(r"(Created|Deleted) pod: (\S+)", lambda m: f"{m.group(1)} pod: {self.pod_name(m.group(2))}",
                         message)
        return re.sub(rf"\b{re.escape(self.owner)}-[a-z0-9]+\b", lambda m: self.rs_name(m.group(0)), message)


def controller_events(stream: list[dict], owner: str, component: str) -> list[tuple[str, str, str]]:
    """(involved kind, reason, message) of each occurrence of one component's Events, in order:
    an Event written (ADDED) or counted again (MODIFIED with a higher count). ReplicaSet names are
    numbered by appearance, pod names are <pod> (which of several equally ranked pods a scale-down
    deletes is arbitrary upstream), and the "(combined from similar events): " prefix is dropped
    (which messages get combined depends on an arbitrary choice in client-go's aggregator)."""
    names = Names(owner)
    counts: dict[str, int] = {}
    out = []
    for e in stream:
        if e["resource"] != "events" or e["type"] not in ("ADDED", "MODIFIED"):
            continue
        ev = e["object"]
        if ((ev.get("source") or {}).get("component") or ev.get("reportingComponent")) != component:
            continue
        count = ev.get("count") or 1
        if count <= counts.get(ev["metadata"]["name"], 0):
            continue
        counts[ev["metadata"]["name"]] = count
        message = ev["message"].removeprefix("(combined from similar events): ")
        message = re.sub(r"(Created|Deleted) pod: \S+", r"\1 pod: <pod>", message)
        out.append((ev["involvedObject"]["kind"], ev["reason"], names.text(message)))
    return out


def condition_transitions(stream: list[dict], kind: str = "Deployment") -> list[tuple]:
    """The Deployment's (Progressing reason, Available status) after each write, repeats dropped."""
    out: list[tuple] = []
    for e in stream:
        obj = e["object"]
        if obj.get("kind") != kind and e["resource"] != "deployments":
            continue
        conds = {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}
        state = ((conds.get("Progressing") or {}).get("reason"), (conds.get("Available") or {}).get("status"))
        if state != (None, None) and (not out or out[-1] != state):
            out.append(state)
    return out


_VOLATILE_META = ("uid", "resourceVersion", "creationTimestamp", "generateName", "managedFields", "selfLink")


def normalise_object(obj: dict, names: Names) -> dict:
    """An object without what differs between two runs (ids, times, generated names, hashes)."""
    obj = copy.deepcopy(obj)
    meta = obj.get("metadata") or {}
    for key in _VOLATILE_META:
        meta.pop(key, None)
    meta.get("annotations", {}).pop("kubectl.kubernetes.io/last-applied-configuration", None)
    if not meta.get("annotations"):
        meta.pop("annotations", None)
    for ref in meta.get("ownerReferences") or []:
        ref.pop("uid", None)
        ref["name"] = names.rs_name(ref["name"])
    if "name" in meta:
        meta["name"] = names.rs_name(meta["name"])
    return _scrub(obj)


def _scrub(value, key: str = ""):
    if isinstance(value, dict):
        return {k: _scrub(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, key) for v in value]
    if isinstance(value, str):
        if re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", value):
            return "<time>"
        if key == "pod-template-hash":
            return "<hash>"
        value = re.sub(r"-[bcdfghjklmnpqrstvwxz2456789]{6,10}\b", "-<hash>", value)
    return value
