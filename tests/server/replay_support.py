"""Shared machinery for replaying recorded kube-apiserver exchanges (tests/server/test_replay_*.py).

A record (`NAME.txt`) holds the exact request and response bytes; `NAME.body.json` the
decoded response body. Values that differ from run to run (uids, timestamps,
resourceVersions, managedFields, which kubelite does not keep before server-side apply)
are normalised before comparing; resourceVersions are checked relatively instead: the
replay maps every recorded resourceVersion to the one kubelite gave the same step, and
`RVOrder` checks that the mapping keeps equality and order.
"""
from __future__ import annotations

import base64
import copy
import json
import pathlib
import re

import httpx

from kubelite.server.app import create_app
from kubelite.server.core import APIServer
from kubelite.server.inprocess import InProcessTransport
from kubelite.server.resources import Registry
from kubelite.server.storage.memory import MemoryStore

REF = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver"
TOKEN = "replay-token"
PLACEHOLDER = "<admin bearer token from the reference kubeconfig>"


def parse_record(folder: str, name: str) -> dict:
    raw = (REF / folder / f"{name}.txt").read_bytes()
    request = raw.split(b"### REQUEST", 1)[1].split(b"\n", 1)[1].split(b"### RESPONSE", 1)[0]
    head, _, rest = request.partition(b"\r\n\r\n")
    lines = head.decode("utf-8").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    length = 0
    for line in lines[1:]:
        key, _, value = line.partition(": ")
        if key.lower() == "content-length":
            length = int(value)
        elif key.lower() not in ("host", "connection"):
            headers[key] = value.replace(PLACEHOLDER, TOKEN)
    response = raw.split(b"### RESPONSE", 1)[1].split(b"\n", 1)[1]
    status = int(response.split(b" ", 2)[1])
    body_file = REF / folder / f"{name}.body.json"
    body = body_file.read_bytes() if body_file.exists() else response.partition(b"\r\n\r\n")[2]
    return {"method": method, "target": target, "headers": headers, "body": rest[:length],
            "status": status, "response": body}


def decode_continue(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


def encode_continue(payload: dict) -> str:
    text = json.dumps(payload, separators=(",", ":")).replace("\\u0000", "\\u0000")
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


_RV_IN_MESSAGE = re.compile(r"\b\d{2,}\b")


_RANDOM_SUFFIX = re.compile(r"^(kube-api-access-)[a-z0-9]{5}$")


def without_openshift(obj):
    """The recorded server was OpenShift's: its ServiceAccount admission adds a projected
    `openshift-service-ca.crt` source that upstream kube-apiserver (and kubelite) do not."""
    if isinstance(obj, dict):
        return {k: without_openshift(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [without_openshift(v) for v in obj
                if not (isinstance(v, dict) and (v.get("configMap") or {}).get("name") == "openshift-service-ca.crt")]
    return obj


def normalise(value, key: str = ""):
    """A copy with run-dependent values replaced by placeholders (presence is kept)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "managedFields":
                continue
            if k in ("uid", "resourceVersion") and isinstance(v, str) and v:
                out[k] = f"<{k}>"
            elif k in ("creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastUpdateTime",
                       "startTime") and isinstance(v, str):
                out[k] = "<time>"
            elif k == "continue" and isinstance(v, str) and v:
                payload = decode_continue(v)
                out[k] = {**payload, "rv": "<rv>"}
            elif k in ("message", "retryAfterSeconds") and isinstance(v, str):
                out[k] = _RV_IN_MESSAGE.sub("<n>", v)
            else:
                out[k] = normalise(v, k)
        return out
    if isinstance(value, list):
        return [normalise(v, key) for v in value]
    if isinstance(value, str) and key == "name":
        return _RANDOM_SUFFIX.sub(r"\1<random>", value)
    return value


class RVOrder:
    """Pairs (recorded resourceVersion, ours): equal stays equal, and order is kept."""

    def __init__(self):
        self.pairs: dict[int, int] = {}
        self.conflicts: list[str] = []

    def add(self, recorded, ours) -> None:
        if recorded in (None, "") or ours in (None, ""):
            return
        recorded, ours = int(recorded), int(ours)
        if recorded in self.pairs and self.pairs[recorded] != ours:
            self.conflicts.append(f"recorded rv {recorded} was ours {self.pairs[recorded]} before, now {ours}")
            return
        self.pairs[recorded] = ours

    def check(self) -> None:
        assert not self.conflicts, self.conflicts
        ordered = sorted(self.pairs.items())
        for (r1, o1), (r2, o2) in zip(ordered, ordered[1:]):
            assert o1 < o2, f"recorded {r1} < {r2} but ours {o1} >= {o2}"

    def ours(self, recorded) -> int | None:
        return self.pairs.get(int(recorded))


def object_rvs(body) -> list[tuple[str, str]]:
    """(kind of place, resourceVersion) of an object or of a list's items."""
    if not isinstance(body, dict):
        return []
    out = []
    if isinstance(body.get("items"), list):
        for item in body["items"]:
            rv = (item.get("metadata") or {}).get("resourceVersion")
            if rv:
                out.append(("item", rv))
        return out
    if body.get("kind") != "Status":
        rv = (body.get("metadata") or {}).get("resourceVersion")
        if rv:
            out.append(("object", rv))
    return out


class Server:
    """One in-process kubelite on a memory store, reached through httpx."""

    def __init__(self, store=None):
        self.api = APIServer(store or MemoryStore(), Registry())
        self.api.bootstrap()
        self.client = httpx.Client(transport=InProcessTransport(create_app(self.api, token=TOKEN)),
                                   base_url="https://kubelite", timeout=30,
                                   headers={"Authorization": f"Bearer {TOKEN}"})

    def must(self, method: str, path: str, body=None, content_type: str | None = None, **params):
        headers = {"Content-Type": content_type} if content_type else None
        content = json.dumps(body).encode() if body is not None else None
        response = self.client.request(method, path, content=content, params=params or None,
                                       headers=headers or {"Content-Type": "application/json"})
        assert response.status_code < 300, (method, path, response.status_code, response.text)
        return response.json()

    def close(self) -> None:
        self.client.close()


def strip_system(obj: dict) -> dict:
    """An object as a client would create it: without server-set metadata and status."""
    obj = copy.deepcopy(obj)
    meta = obj.get("metadata") or {}
    for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation",
                "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
        meta.pop(key, None)
    obj.pop("status", None)
    return obj


def diff(expected, got, path: str = "") -> list[str]:
    """Readable differences between two normalised JSON values."""
    if isinstance(expected, dict) and isinstance(got, dict):
        out = []
        for key in expected.keys() | got.keys():
            if key not in got:
                out.append(f"{path}.{key}: missing")
            elif key not in expected:
                out.append(f"{path}.{key}: unexpected {json.dumps(got[key])[:120]}")
            else:
                out.extend(diff(expected[key], got[key], f"{path}.{key}"))
        return out
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        out = []
        for i, (e, g) in enumerate(zip(expected, got)):
            out.extend(diff(e, g, f"{path}[{i}]"))
        return out
    if expected != got:
        return [f"{path}: expected {json.dumps(expected)[:200]} got {json.dumps(got)[:200]}"]
    return []


class SequenceReplay:
    """Sends a folder's recorded requests in order to one server, mapping recorded ids to ours."""

    def __init__(self, folder: str, server: Server | None = None):
        self.folder = folder
        self.server = server or Server()
        self.rvs = RVOrder()
        self.uids: dict[str, str] = {}  # recorded -> ours
        self.max_rv = 0
        self.outcomes: dict[str, dict] = {}

    def map_request(self, body: bytes) -> bytes:
        if not body.startswith(b"{"):
            return body
        obj = json.loads(body)
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            # A client's copy of the recorded managedFields describes the recording's history, not
            # this replay's: not sent, except the reset requests (`[]`, `[{}]`) that clear them.
            if meta.get("managedFields") not in ([], [{}]):
                meta.pop("managedFields", None)
            if meta.get("uid") in self.uids:
                meta["uid"] = self.uids[meta["uid"]]
            if meta.get("resourceVersion") and self.rvs.ours(meta["resourceVersion"]) is not None:
                meta["resourceVersion"] = str(self.rvs.ours(meta["resourceVersion"]))
        return json.dumps(obj).encode()

    def run(self, name: str) -> dict:
        record = parse_record(self.folder, name)
        response = self.server.client.request(record["method"], record["target"],
                                              content=self.map_request(record["body"]) or None,
                                              headers=record["headers"])
        expected = json.loads(record["response"]) if record["response"].startswith(b"{") else None
        got = response.json() if response.content.startswith(b"{") else None
        outcome = {"status": (record["status"], response.status_code), "expected": expected, "got": got}
        if expected is not None and got is not None:
            self.learn(expected, got)
        if got is not None and isinstance(got.get("items"), list):
            outcome["list_rv"] = int(got["metadata"]["resourceVersion"])
            outcome["max_rv_before"] = self.max_rv
        for _, rv in object_rvs(got):
            self.max_rv = max(self.max_rv, int(rv))
        self.outcomes[name] = outcome
        return outcome

    def learn(self, expected: dict, got: dict) -> None:
        for (_, theirs), (_, ours) in zip(object_rvs(expected), object_rvs(got)):
            self.rvs.add(theirs, ours)
        for where in ("metadata", "details"):
            theirs = (expected.get(where) or {}).get("uid")
            ours = (got.get(where) or {}).get("uid")
            if theirs and ours:
                self.uids[theirs] = ours

    def problems(self, name: str) -> list[str]:
        outcome = self.outcomes[name]
        recorded_status, status = outcome["status"]
        if status != recorded_status:
            return [f"status {status}, recorded {recorded_status}: {json.dumps(outcome['got'])[:300]}"]
        if outcome["expected"] is None:
            return []
        return diff(normalise(without_openshift(outcome["expected"])), normalise(outcome["got"]))
