"""Several `kubelite serve` processes on one store (one SQLite file, or one etcd).

Each server answers for the others' writes, watches on one see writes made through another,
resourceVersions are the store's revisions everywhere, and the controllers run in one server at a
time: the holder of the Lease kube-system/kube-controller-manager. When that server is killed
(SIGKILL: no release), another takes the Lease over once it has not been renewed for its duration
and its controllers act (a ReplicaSet created after the kill gets its pods).

The servers run with short election times (lease 3s, renew deadline 2s, retry 0.5s) so that the
takeover takes seconds; every wait is on a condition with a deadline.
"""
from __future__ import annotations

import json
import signal
import ssl
import threading
import time

import httpx
import pytest

from etcd_support import Etcd, have_etcd
from test_serve_support import Served

FAST_ELECTION = ("--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s",
                 "--leader-elect-retry-period=0.5s")
LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
REPLICASETS = "/apis/apps/v1/namespaces/default/replicasets"
DEADLINE = 60.0


@pytest.fixture(params=["sqlite", "etcd"])
def storage(request, tmp_path):
    """The storage URL every server of the test shares."""
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'shared.db'}"
        return
    if not have_etcd():
        pytest.skip("etcd is not installed (apt-get install etcd-server)")
    with Etcd() as server:
        yield server.url


@pytest.fixture
def start(tmp_path, storage):
    """start(name) -> a started Served on the shared storage; all stopped at the end."""
    servers: list[Served] = []
    clients: list[httpx.Client] = []

    def start_server(name: str) -> tuple[Served, httpx.Client]:
        served = Served(tmp_path / name, tmp_path / f"{name}.kubeconfig",
                        args=("--storage", storage, *FAST_ELECTION)).start(timeout=DEADLINE)
        servers.append(served)
        client = httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                              timeout=20, headers={"Authorization": f"Bearer {served.token}"})
        clients.append(client)
        return served, client

    yield start_server
    for client in clients:
        client.close()
    for served in servers:
        served.stop()


def eventually(what: str, probe, deadline: float = DEADLINE):
    """Poll `probe` until it returns something truthy; fail naming `what` at the deadline."""
    end = time.monotonic() + deadline
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"timed out after {deadline}s waiting for {what}")
        time.sleep(0.1)


def configmaps_revision(client: httpx.Client) -> str:
    """The list's revision once the controllers have published default's kube-root-ca.crt (they
    do it on their own time): a watch from it sees only the test's own writes."""
    eventually("the root CA's ConfigMap",
               lambda: client.get(f"{CONFIGMAPS}/kube-root-ca.crt").status_code == 200)
    return client.get(CONFIGMAPS).json()["metadata"]["resourceVersion"]


def lease_spec(client: httpx.Client) -> dict | None:
    response = client.get(LEASE)
    return response.json()["spec"] if response.status_code == 200 else None


def replicaset(name: str, replicas: int = 2) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def pods(client: httpx.Client, app: str) -> list[dict]:
    response = client.get("/api/v1/namespaces/default/pods", params={"labelSelector": f"app={app}"})
    return response.json()["items"] if response.status_code == 200 else []


def kill(served: Served) -> None:
    served.proc.send_signal(signal.SIGKILL)
    served.proc.wait(30)


def test_controllers_move_to_another_server_when_the_leader_is_killed(start):
    first, a = start("first")
    leader = eventually("the first server to take the lease", lambda: lease_spec(a))["holderIdentity"]
    second, b = start("second")
    # Both serve; only the leader's controllers act.
    assert b.post(REPLICASETS, json=replicaset("before")).status_code == 201
    eventually("the leader's ReplicaSet controller", lambda: len(pods(b, "before")) == 2)
    assert lease_spec(b)["holderIdentity"] == leader

    kill(first)
    taken = eventually("the second server to take the lease over",
                       lambda: (lease_spec(b) or {}).get("holderIdentity") not in (None, leader) and lease_spec(b))
    assert taken["leaseTransitions"] == 1 and taken["holderIdentity"]
    assert b.post(REPLICASETS, json=replicaset("after")).status_code == 201
    made = eventually("the new leader's ReplicaSet controller", lambda: len(pods(b, "after")) == 2 and pods(b, "after"))
    assert {p["metadata"]["ownerReferences"][0]["name"] for p in made} == {"after"}


def test_a_clean_stop_hands_the_lease_over_at_once(start):
    first, a = start("first")
    eventually("the first server to take the lease", lambda: lease_spec(a))
    second, b = start("second")
    first.stop()  # SIGTERM: the leader releases the lease
    began = time.monotonic()
    eventually("the second server to take the released lease",
               lambda: (lease_spec(b) or {}).get("holderIdentity") not in (None, ""))
    assert lease_spec(b)["leaseTransitions"] == 1  # client-go counts an acquisition after a release too
    assert time.monotonic() - began < DEADLINE


def test_writes_through_one_are_read_and_watched_through_the_other(start):
    _, a = start("first")
    _, b = start("second")
    rv = configmaps_revision(b)
    events: list[dict] = []

    def collect():
        with b.stream("GET", CONFIGMAPS, params={"watch": "1", "resourceVersion": rv, "timeoutSeconds": "20"}) as r:
            for line in r.iter_lines():
                if line:
                    events.append(json.loads(line))
                    if len(events) == 2:
                        return

    reader = threading.Thread(target=collect)
    reader.start()
    made = a.post(CONFIGMAPS, json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"},
                                    "data": {"k": "1"}})
    assert made.status_code == 201, made.text
    changed = b.patch(f"{CONFIGMAPS}/shared", json={"data": {"k": "2"}},
                      headers={"Content-Type": "application/merge-patch+json"})
    assert changed.status_code == 200, changed.text
    reader.join(30)
    assert not reader.is_alive()
    assert [(e["type"], e["object"]["data"]["k"]) for e in events] == [("ADDED", "1"), ("MODIFIED", "2")]
    # One sequence of revisions: the same resourceVersions whichever server answers.
    revisions = [e["object"]["metadata"]["resourceVersion"] for e in events]
    assert revisions == [made.json()["metadata"]["resourceVersion"], changed.json()["metadata"]["resourceVersion"]]
    assert int(revisions[0]) < int(revisions[1])
    assert a.get(f"{CONFIGMAPS}/shared").json()["metadata"]["resourceVersion"] == revisions[1]


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]},
}
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"


def test_a_custom_resource_defined_through_one_is_served_by_the_other(start):
    _, a = start("first")
    _, b = start("second")
    assert a.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
    eventually("the other server to serve the new resource", lambda: b.get(WIDGETS).status_code == 200)
    made = b.post(WIDGETS, json={"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                                 "size": 3})
    assert made.status_code == 201, made.text
    got = eventually("the first server to serve the widget", lambda: (r := a.get(f"{WIDGETS}/w")).status_code == 200 and r)
    assert got.json()["size"] == 3
    assert got.json()["metadata"]["uid"] == made.json()["metadata"]["uid"]


@pytest.fixture
def etcd_server():
    if not have_etcd():
        pytest.skip("etcd is not installed (apt-get install etcd-server)")
    with Etcd() as server:
        yield server


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


def test_killing_one_of_three_servers_under_writes_loses_no_acknowledged_write(tmp_path, etcd_server):
    servers, clients = [], []
    try:
        for i in range(3):
            served = Served(tmp_path / f"s{i}", tmp_path / f"s{i}.kubeconfig",
                            args=("--storage", etcd_server.url, *FAST_ELECTION)).start(timeout=DEADLINE)
            servers.append(served)
            clients.append(httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                                        timeout=10, headers={"Authorization": f"Bearer {served.token}"}))
        acknowledged: list[str] = []
        lock = threading.Lock()
        stop = threading.Event()

        def writer(w: int) -> None:
            n = 0
            while not stop.is_set():
                name, n = f"w{w}-{n:04d}", n + 1
                for attempt in range(len(clients) * 3):  # a client retries on the next server
                    client = clients[(w + attempt) % len(clients)]
                    try:
                        response = client.post(CONFIGMAPS, json=configmap(name))
                    except httpx.TransportError:
                        continue
                    if response.status_code in (201, 409):  # 409: an earlier try went through
                        with lock:
                            acknowledged.append(name)
                        break

        writers = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
        for thread in writers:
            thread.start()
        eventually("some writes before the kill", lambda: len(acknowledged) >= 30)
        kill(servers[0])
        at_kill = len(acknowledged)
        eventually("writes after the kill", lambda: len(acknowledged) >= at_kill + 30)
        stop.set()
        for thread in writers:
            thread.join(30)
        stored = {i["metadata"]["name"] for i in clients[1].get(CONFIGMAPS).json()["items"]}
        assert set(acknowledged) <= stored
        assert stored == {i["metadata"]["name"] for i in clients[2].get(CONFIGMAPS).json()["items"]}
    finally:
        for client in clients:
            client.close()
        for served in servers:
            served.stop()


def test_servers_ride_out_an_etcd_restart(tmp_path, etcd_server):
    served = Served(tmp_path / "s", tmp_path / "s.kubeconfig",
                    args=("--storage", etcd_server.url, *FAST_ELECTION)).start(timeout=DEADLINE)
    client = httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                          timeout=20, headers={"Authorization": f"Bearer {served.token}"})
    try:
        eventually("the lease", lambda: lease_spec(client))
        rv = configmaps_revision(client)
        events: list[dict] = []

        def collect():
            with client.stream("GET", CONFIGMAPS, params={"watch": "1", "resourceVersion": rv,
                                                          "timeoutSeconds": "40"}) as r:
                for line in r.iter_lines():
                    if line:
                        events.append(json.loads(line))
                        if len(events) == 2:
                            return

        reader = threading.Thread(target=collect)
        reader.start()
        assert client.post(CONFIGMAPS, json=configmap("before-restart")).status_code == 201
        eventually("the watch to be under way", lambda: events)
        etcd_server.stop(signal.SIGTERM)
        down = client.get(CONFIGMAPS)  # etcd is down: a Status, not a crash
        assert down.status_code == 500 and down.json()["reason"] == "InternalError"
        etcd_server.start()
        eventually("a write after the restart",
                   lambda: client.post(CONFIGMAPS, json=configmap("after-restart")).status_code in (201, 409))
        reader.join(40)
        assert not reader.is_alive()
        # The watch resumed where it was (had etcd compacted meanwhile, it would answer 410 Gone).
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
            ("ADDED", "before-restart"), ("ADDED", "after-restart")]
        assert client.post(REPLICASETS, json=replicaset("restarted")).status_code == 201
        eventually("the controllers after the restart", lambda: len(pods(client, "restarted")) == 2)
    finally:
        client.close()
        served.stop()


def test_without_leader_election_the_controllers_run_and_no_lease_is_written(tmp_path, storage):
    served = Served(tmp_path / "solo", tmp_path / "solo.kubeconfig",
                    args=("--storage", storage, "--leader-elect=false")).start(timeout=DEADLINE)
    client = httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                          timeout=20, headers={"Authorization": f"Bearer {served.token}"})
    try:
        assert client.post(REPLICASETS, json=replicaset("solo")).status_code == 201
        eventually("the controllers", lambda: len(pods(client, "solo")) == 2)
        assert client.get(LEASE).status_code == 404
    finally:
        client.close()
        served.stop()
