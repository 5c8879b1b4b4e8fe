"""Replay of the recorded server-side apply transcripts (tests/data/reference/ssa) against an
in-process cluster: every request is sent as recorded (kubectl's requests too) and the status
code and the body are compared with kube-apiserver's, after normalising what differs between
any two clusters (uids, resourceVersions, timestamps) and what the reference's controllers
wrote (status, their managedFields entries)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from replay_support import diff, strip_system

DATA = Path(__file__).resolve().parents[1] / "data" / "reference" / "ssa"
FILES = sorted(p.name for p in DATA.glob("[0-9][0-9]-*.json"))
NAMESPACE = "pub-ssa"
REFERENCE_START = "2026-11-24T09:46:00Z"
CONTROLLER_MANAGERS = ("kube-controller-manager",)
# Exchanges whose answers depend on what kubelite does differently (listed, not hidden):
KNOWN_DIFFERENCES = {
}


class Replay:
    """One cluster shared by the files, replayed in order (a file may rely on the ones before)."""

    def __init__(self):
        from kubelite.server.clock import parse_time

        # The reference's clock: its seconds order the managedFields entries.
        self.cluster = Cluster("memory://", clock=FakeClock(parse_time(REFERENCE_START)))
        self.cluster.__enter__()
        self.client = self.cluster.http_client()
        self.done = 0
        self.send("POST", "/api/v1/namespaces", {}, "application/json",
                  json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}),
                  _kubectl_agent("kubectl create namespace"))

    def close(self):
        self.client.close()
        self.cluster.__exit__(None, None, None)

    def send(self, method, path, query, content_type, body, agent="pubrec/1.0"):
        headers = {"User-Agent": agent, "Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        response = self.client.request(method, path, params=query or {}, headers=headers,
                                       content=body.encode() if isinstance(body, str) else body)
        if method != "GET":
            self.cluster.settle()  # the controllers act on the write, as the reference's did
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, None

    def requests_of(self, exchange):
        """(what, request, expected status, expected body) of an exchange (kubectl's each request)."""
        if "request" in exchange:
            q = exchange["request"]
            agent = "Mozilla/5.0 (X11) pub" if "Mozilla" in exchange.get("what", "") else "pubrec/1.0"
            yield exchange["what"], q, agent, exchange["response"]["status"], exchange["response"]["body"]
            return
        agent = _kubectl_agent(exchange["kubectl"])
        for i, h in enumerate(exchange.get("http") or []):
            yield f"{exchange['what']} [{i}]", h, agent, h["status"], h.get("response_body")

    def run_file(self, name: str) -> list[str]:
        problems = []
        exchanges = json.loads((DATA / name).read_text())["exchanges"]
        for index, exchange in enumerate(exchanges):
            for what, q, agent, status, expected in self.requests_of(exchange):
                if q["method"] == "GET" and "kubectl" in exchange and q["path"].startswith("/openapi"):
                    continue
                self.follow_reference_time(expected)
                body = q.get("body")
                content_type = q.get("content_type")
                if content_type == "application/vnd.kubernetes.protobuf" and q["method"] == "POST":
                    # kubectl sent protobuf (recorded as a summary): the object the next GET shows, as JSON.
                    shown = next(e["response"]["body"] for e in exchanges[index + 1:] if "request" in e)
                    body, content_type = json.dumps(strip_system(shown)), "application/json"
                    expected = shown
                if body and q["method"] in ("PUT", "PATCH"):
                    body = self.current_identity(q["path"], body)
                got_status, got = self.send(q["method"], q["path"], q.get("query"), content_type, body, agent)
                key = (name, what)
                if got_status != status:
                    problems.append(f"{what}: status {got_status}, expected {status}: {_short(got)}")
                    continue
                a, b = normalise(got), normalise(expected)
                if a != b and key not in KNOWN_DIFFERENCES:
                    problems.append(f"{what}: body differs: " + "; ".join(diff(b, a)))
        return problems

    def follow_reference_time(self, expected) -> None:
        """Writes happen at the reference's times (seconds order the managedFields entries)."""
        from kubelite.server.clock import parse_time

        if not isinstance(expected, dict):
            return
        times = [parse_time(e.get("time")) for e in
                 ((expected or {}).get("metadata") or {}).get("managedFields") or [] if e.get("time")]
        if times and max(times) > self.cluster.clock.time():
            self.cluster.clock.set(max(times))

    def current_identity(self, path: str, body: str) -> str:
        """Requests name the reference cluster's resourceVersion and uid: use this cluster's."""
        try:
            doc = json.loads(body)
        except ValueError:
            return body
        status, current = self.send("GET", path, {}, None, None)
        if status != 200:
            return body
        rv = current["metadata"]["resourceVersion"]
        if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict):
            for key in ("resourceVersion", "uid"):
                if key in doc["metadata"]:
                    doc["metadata"][key] = current["metadata"][key]
        elif isinstance(doc, list):
            for op in doc:
                if isinstance(op, dict) and op.get("path") == "/metadata/resourceVersion":
                    op["value"] = rv
        return json.dumps(doc)


def _without_revision(entry: dict) -> bool:
    """Drop ownership of the Deployment revision annotation (when the deployment controller
    rewrites it depends on its timing); False when nothing else is left in the entry."""
    fields = entry.get("fieldsV1") or {}
    annotations = (fields.get("f:metadata") or {}).get("f:annotations")
    if isinstance(annotations, dict):
        annotations.pop("f:deployment.kubernetes.io/revision", None)
        if set(annotations) <= {"."}:
            del fields["f:metadata"]["f:annotations"]
            if not fields["f:metadata"]:
                del fields["f:metadata"]
    return bool(fields)


def _kubectl_agent(command: str) -> str:
    words = command.split()
    verb = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), "")
    if verb == "apply" and "--server-side" not in words:
        return "kubectl-client-side-apply/v1.32.4 (linux/amd64) kubernetes/59526cd"
    if verb in ("create", "edit", "replace", "patch", "label", "annotate", "set", "rollout"):
        return f"kubectl-{verb}/v1.32.4 (linux/amd64) kubernetes/59526cd"
    return "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd"


def _short(body) -> str:
    return json.dumps(body)[:400]


def normalise(body):
    if not isinstance(body, dict):
        return body
    body = json.loads(json.dumps(body))
    if body.get("kind", "").endswith("List"):
        body["items"] = [normalise(i) for i in body.get("items", [])]
        body.get("metadata", {}).pop("resourceVersion", None)
        return body
    meta = body.get("metadata")
    if isinstance(meta, dict):
        for key in ("uid", "resourceVersion", "creationTimestamp", "generation"):
            if key in meta:
                meta[key] = "<" + key + ">"
        managed = [dict(e) for e in meta.get("managedFields") or []
                   if e.get("manager") not in CONTROLLER_MANAGERS and _without_revision(e)]
        for e in managed:
            if "time" in e:
                e["time"] = "<time>"
        if managed:
            meta["managedFields"] = managed
        else:
            meta.pop("managedFields", None)
    # What the reference's controllers wrote (kubelite's are off in this replay).
    annotations = (meta or {}).get("annotations") if isinstance(meta, dict) else None
    if isinstance(annotations, dict):
        annotations.pop("deployment.kubernetes.io/revision", None)
        if not annotations:
            del meta["annotations"]
    if body.get("kind") in ("Deployment", "Widget"):
        body.pop("status", None)
    if body.get("kind") == "Scale":
        body.get("status", {}).pop("replicas", None)
    return body


@pytest.fixture(scope="module")
def replay():
    state = {"replay": None}

    def at(name: str) -> Replay:
        index = FILES.index(name)
        current = state["replay"]
        if current is None or current.done > index:
            if current is not None:
                current.close()
            current = state["replay"] = Replay()
        while current.done < index:
            current.run_file(FILES[current.done])
            current.done += 1
        return current

    yield at
    if state["replay"] is not None:
        state["replay"].close()


@pytest.mark.parametrize("name", FILES)
def test_reference_transcript(replay, name):
    r = replay(name)
    problems = r.run_file(name)
    r.done += 1
    assert not problems, "\n".join(problems)
