"""Faults under several `kubelite serve` processes on one etcd: etcd restarted under a write load,
and watches and lists meeting etcd's compaction.

What kube-apiserver does, and so what is asserted here:
- etcd restarted (same data directory and ports) while clients write through two servers: the
  servers' requests wait for etcd or fail with a 500 Status; a client that retries loses no
  acknowledged write (a 409 AlreadyExists on a retry means an earlier try went through).
  kube-apiserver's etcd client resumes its watches from the next revision after a reconnect, so
  a watch opened before the restart stays open and carries every later event, once, in revision
  order; a new watch from a resourceVersion before the restart works too (nothing compacted).
- After a compaction (`--etcd-compaction-interval`), a watch from a resourceVersion older than
  the compaction is served from the watch cache's window when the window reaches back to it
  (watch/gone-watch-compacted-rv); older than the window it is HTTP 200 with one ERROR event
  carrying a 410 Expired Status (watch/watch-too-old-rv-1): rv=1, or any compacted rv on a server
  whose cache started after it. A LIST at a compacted rv is a plain 410 (watch/gone-list-*).

Every wait is on a condition with a deadline; servers and etcd are always stopped.
"""
from __future__ import annotations

import json
import signal
import ssl
import threading

import httpx
import pytest

from etcd_support import Etcd, have_etcd
from replay_support import diff, normalise, parse_record, REF
from test_serve_support import Served
from test_several_servers import eventually

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
DEADLINE = 90.0
END = "the-end"  # the last ConfigMap written: a watch that has it has everything before it

pytestmark = pytest.mark.skipif(not have_etcd(), reason="etcd is not installed (apt-get install etcd-server)")


@pytest.fixture
def etcd_server():
    with Etcd() as server:
        yield server


@pytest.fixture
def start(tmp_path):
    """start(name, *serve_args) -> (Served, httpx.Client); every server stopped at the end."""
    started: list[tuple[Served, httpx.Client]] = []

    def start_server(name: str, *args: str) -> tuple[Served, httpx.Client]:
        served = Served(tmp_path / name, tmp_path / f"{name}.kubeconfig", args).start(timeout=DEADLINE)
        _drain(served)
        client = httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                              timeout=30, headers={"Authorization": f"Bearer {served.token}"})
        started.append((served, client))
        return served, client

    yield start_server
    for served, client in started:
        client.close()
        served.stop()


def _drain(served: Served) -> None:
    """Read the server's output as it comes: a full pipe would stall a server that logs errors."""
    def read(stream):
        try:
            for _line in iter(stream.readline, b""):
                pass
        except (OSError, ValueError):  # closed by Served.stop
            pass

    for stream in (served.proc.stdout, served.proc.stderr):
        threading.Thread(target=read, args=(stream,), daemon=True).start()


def configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def names(client: httpx.Client) -> set[str]:
    response = client.get(CONFIGMAPS)
    assert response.status_code == 200, response.text
    return {item["metadata"]["name"] for item in response.json()["items"]}


class Watch(threading.Thread):
    """A watch of default's ConfigMaps from `rv`, read until the END ConfigMap is ADDED (the
    controllers' kube-* ConfigMaps left out)."""

    def __init__(self, client: httpx.Client, rv: str):
        super().__init__(daemon=True)
        self.client, self.rv = client, rv
        self.events: list[dict] = []
        self.opened = threading.Event()
        self.saw_end = False
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with self.client.stream("GET", CONFIGMAPS, params={"watch": "1", "resourceVersion": self.rv,
                                                               "timeoutSeconds": "600"},
                                    timeout=httpx.Timeout(30, read=None)) as response:
                assert response.status_code == 200, response.read()
                self.opened.set()
                for line in response.iter_lines():
                    if not line:
                        continue
                    event = json.loads(line)
                    if event["object"].get("metadata", {}).get("name", "").startswith("kube-"):
                        continue  # the controllers' own (kube-root-ca.crt)
                    self.events.append(event)
                    if event["type"] == "ADDED" and event["object"]["metadata"]["name"] == END:
                        self.saw_end = True
                        return
        except BaseException as err:  # noqa: BLE001 - reported by the test
            self.error = err
        finally:
            self.opened.set()


class Writers:
    """Threads creating ConfigMaps w{i}-{n} through the servers, each preferring one and retrying a
    name on the next server after an error until it is acknowledged (201, or 409 on a retry)."""

    def __init__(self, clients: list[httpx.Client], count: int):
        self.clients = clients
        self.acknowledged: list[str] = []
        self.failures: list[str] = []  # answers that no retry explains
        self.errors = 0  # 5xx answers and transport errors, retried
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._write, args=(i,), daemon=True) for i in range(count)]

    def __enter__(self) -> "Writers":
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(DEADLINE)
        assert not any(thread.is_alive() for thread in self.threads), "a writer did not stop"

    def count(self) -> int:
        with self.lock:
            return len(self.acknowledged)

    def _write(self, i: int) -> None:
        n = 0
        while not self.stopping.is_set():
            name, n = f"w{i}-{n:05d}", n + 1
            attempt = 0
            while not self.stopping.is_set():
                client = self.clients[(i + attempt) % len(self.clients)]
                try:
                    response = client.post(CONFIGMAPS, json=configmap(name, n=str(n)))
                except httpx.TransportError:
                    response = None
                if response is not None and (response.status_code == 201 or (
                        response.status_code == 409 and attempt and response.json()["reason"] == "AlreadyExists")):
                    with self.lock:
                        self.acknowledged.append(name)
                    break
                if response is not None and response.status_code < 500:
                    with self.lock:
                        self.failures.append(f"{name}: {response.status_code} {response.text[:200]}")
                    break
                with self.lock:
                    self.errors += 1
                attempt += 1
                self.stopping.wait(0.05)  # back off a little before the next server


def test_two_servers_ride_out_an_etcd_restart_under_writes(etcd_server, start):
    _, a = start("a", "--storage", etcd_server.url)
    _, b = start("b", "--storage", etcd_server.url)
    rv = b.get(CONFIGMAPS).json()["metadata"]["resourceVersion"]
    watches = [Watch(a, rv), Watch(b, rv)]  # opened before the restart, read after it
    for watch in watches:
        watch.start()
        assert watch.opened.wait(DEADLINE) and watch.error is None, watch.error

    with Writers([a, b], 4) as writers:
        eventually("writes before the restart", lambda: writers.count() >= 40)
        etcd_server.stop(signal.SIGTERM)  # same data directory and ports when it starts again
        at_stop = writers.count()
        etcd_server.start()
        eventually("writes after the restart", lambda: writers.count() >= at_stop + 40)
    assert not writers.failures, writers.failures

    # Every acknowledged write is stored, and both servers list the same objects.
    stored = names(a)
    assert set(writers.acknowledged) <= stored
    assert names(b) == stored
    # Both serve writes and reads again, each reading what the other wrote.
    for writer, reader in ((a, b), (b, a)):
        made = writer.post(CONFIGMAPS, json=configmap(f"after-{len(stored)}-{id(writer)}"))
        assert made.status_code == 201, made.text
        read = reader.get(f"{CONFIGMAPS}/{made.json()['metadata']['name']}")
        assert read.status_code == 200 and read.json()["metadata"]["uid"] == made.json()["metadata"]["uid"]
    assert a.post(CONFIGMAPS, json=configmap(END)).status_code == 201
    final = {name for name in names(b) if not name.startswith("kube-")}  # not the controllers' own

    # The watches opened before the restart went on: every later object ADDED once, in revision order.
    for watch in watches:
        watch.join(DEADLINE)
        assert watch.error is None, watch.error
        assert watch.saw_end, f"the watch ended after {len(watch.events)} events: {watch.events[-1:]}"
        assert {e["type"] for e in watch.events} == {"ADDED"}, [e for e in watch.events if e["type"] != "ADDED"]
        added = [e["object"]["metadata"]["name"] for e in watch.events]
        assert len(added) == len(set(added)) and set(added) == final
        revisions = [int(e["object"]["metadata"]["resourceVersion"]) for e in watch.events]
        assert revisions == sorted(revisions) and len(set(revisions)) == len(revisions)
    assert watches[0].events == watches[1].events

    # A new watch from a resourceVersion before the restart works (nothing was compacted).
    middle = watches[0].events[len(watches[0].events) // 2]["object"]["metadata"]["resourceVersion"]
    again = Watch(b, middle)
    again.start()
    again.join(DEADLINE)
    assert again.error is None and again.saw_end, (again.error, again.events[-1:])
    assert again.events == [e for e in watches[0].events
                            if int(e["object"]["metadata"]["resourceVersion"]) > int(middle)]


# -- compaction ----------------------------------------------------------------------------------

WATCH_NS = "/api/v1/namespaces/rc-watch/configmaps"
MERGE = {"Content-Type": "application/merge-patch+json"}


def _recorded_events(name: str) -> list[dict]:
    return [json.loads(line) for line in (REF / "watch" / f"{name}.events.jsonl").read_text().splitlines() if line]


def _compare(expected: list[dict], got: list[dict]) -> list[str]:
    if [e["type"] for e in expected] != [g["type"] for g in got]:
        return [f"types {[g['type'] for g in got]} != recorded {[e['type'] for e in expected]}"]
    return [p for e, g in zip(expected, got) for p in diff(normalise(e), normalise(g))]


def _watch_events(client: httpx.Client, rv: str | int) -> list[dict]:
    response = client.get(f"{WATCH_NS}?watch=1&resourceVersion={rv}&timeoutSeconds=1")
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines() if line]


def _compacted_at(etcd: Etcd, revision: int) -> bool:
    """Whether etcd has compacted `revision` away (a read at it fails)."""
    answer = httpx.post(f"{etcd.endpoint}/v3/kv/range", timeout=10,
                        json={"key": "Lw==", "count_only": True, "revision": revision})
    return answer.status_code != 200 and "compacted" in answer.text


def test_watches_and_lists_from_before_a_compaction(etcd_server, start):
    # The recorded steps (watch/etcd-compaction.txt): ConfigMaps, a list's resourceVersion, three
    # patches, then etcd compacted past them (here by the server's compactor, every second).
    _, a = start("a", "--storage", etcd_server.url, "--controllers=-*", "--etcd-compaction-interval=1s")
    assert a.post("/api/v1/namespaces", json={"metadata": {"name": "rc-watch"}}).status_code == 201
    assert a.post(WATCH_NS, json=configmap("pre-existing", x="1")).status_code == 201
    for i in range(3):
        page = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"page-{i}"}}
        assert a.post(WATCH_NS, json=page).status_code == 201
    list_rv = a.get(WATCH_NS).json()["metadata"]["resourceVersion"]  # the resource's watch cache starts
    for x in "234":
        assert a.patch(f"{WATCH_NS}/pre-existing", json={"data": {"x": x}}, headers=MERGE).status_code == 200
    last = int(a.get(f"{WATCH_NS}/pre-existing").json()["metadata"]["resourceVersion"])
    eventually("the compactor to compact past the patches", lambda: _compacted_at(etcd_server, last - 1))

    # Inside the watch cache's window: the events after list_rv, as recorded.
    problems = _compare(_recorded_events("gone-watch-compacted-rv"), _watch_events(a, list_rv))
    assert not problems, problems
    # Older than the window: 200 and one ERROR event with the 410 Expired Status.
    too_old = _recorded_events("watch-too-old-rv-1")
    problems = _compare(too_old, _watch_events(a, 1))
    assert not problems, problems

    # A server started after the compaction has no window reaching back to list_rv: 410 there.
    _, b = start("b", "--storage", etcd_server.url, "--controllers=-*", "--etcd-compaction-interval=0")
    events = _watch_events(b, list_rv)
    message = too_old[0]["object"]["message"].replace("version: 1 (", f"version: {list_rv} (")
    problems = _compare([{**too_old[0], "object": {**too_old[0]["object"], "message": message}}], events)
    assert not problems, problems
    oldest = int(events[0]["object"]["message"].rsplit("(", 1)[1].rstrip(")"))
    assert oldest > int(list_rv)

    # A LIST at exactly the compacted resourceVersion is a plain 410; NotOlderThan it is the current
    # state (200), through either server.
    for name in ("gone-list-exact-compacted", "gone-list-notolderthan-compacted"):
        record = parse_record("watch", name)
        target = record["target"].replace("132775", list_rv)
        assert target != record["target"]
        headers = {k: v for k, v in record["headers"].items() if k.lower() != "authorization"}
        for client in (a, b):
            response = client.request(record["method"], target, headers=headers)
            assert response.status_code == record["status"], response.text
            problems = diff(normalise(json.loads(record["response"])), normalise(response.json()))
            assert not problems, (name, problems)
