"""Hostile requests against the app served over HTTP (uvicorn in a thread, 127.0.0.1, free port):
/healthz keeps answering while they are handled, and a watch whose client stops reading is
ended and released, as kube-apiserver ends watchers too slow for their events (issue 19)."""
from __future__ import annotations

import contextlib
import json
import socket
import threading
import time

import httpx
import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.serve import bind

CMS = "/api/v1/namespaces/default/configmaps"


@contextlib.contextmanager
def http_server(app):
    """The ASGI app over plain HTTP on a free loopback port, stopped on the way out."""
    import uvicorn

    sock = bind("127.0.0.1", 0)
    config = uvicorn.Config(app, http="httptools", loop="asyncio", lifespan="on", log_level="error",
                            access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        app.shutdown()
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


@pytest.fixture
def served():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with http_server(cluster.app) as url:
            yield cluster, url


def configmap(name: str, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **extra}


BOMB = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n" + b"".join(
    b"%s: &%s [%s]\n" % (name, name, b",".join([b"*" + prev] * 9) if prev else b'"lol","lol","lol"')
    for prev, name in zip([b""] + [bytes([c]) for c in b"abcdefghi"], [bytes([c]) for c in b"abcdefghij"]))


def hostile_requests(url: str) -> list[tuple[str, str, bytes, str]]:
    doubling = [{"op": "copy", "from": "/metadata", "path": f"/metadata/x{i}"} for i in range(10000)]
    deep = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":' + b"[" * 9999 + b"]" * 9999 + b"}"
    wide = json.dumps(configmap("wide", data={f"k{i}": "v" * 200 for i in range(14000)})).encode()
    return [
        ("PATCH", f"{url}{CMS}/target", json.dumps(doubling).encode(), "application/json-patch+json"),
        ("POST", f"{url}{CMS}", BOMB, "application/yaml"),
        ("POST", f"{url}{CMS}", deep, "application/json"),
        ("POST", f"{url}{CMS}", wide, "application/json"),  # just under 3 MiB
    ]


def test_healthz_answers_while_hostile_requests_run(served):
    cluster, url = served
    with httpx.Client(timeout=60) as client:
        assert client.post(f"{url}{CMS}", json=configmap("target")).status_code == 201
    stop, one_round = threading.Event(), threading.Event()
    answers: list[int] = []
    failures: list[BaseException] = []

    def attack():
        try:
            with httpx.Client(timeout=120) as client:
                while not stop.is_set():
                    for method, target, body, content_type in hostile_requests(url):
                        response = client.request(method, target, content=body,
                                                  headers={"content-type": content_type})
                        answers.append(response.status_code)
                        client.delete(f"{url}{CMS}/deep")
                        client.delete(f"{url}{CMS}/wide")
                    one_round.set()
        except BaseException as err:  # surfaces in the test below
            failures.append(err)
            one_round.set()

    attacker = threading.Thread(target=attack, daemon=True)
    attacker.start()
    polled = 0
    deadline = time.monotonic() + 300
    try:
        with httpx.Client(timeout=10) as client:  # each answer within a deadline, not a measurement
            while polled < 5 or not one_round.is_set():
                assert time.monotonic() < deadline, "the hostile requests took over 5 minutes"
                assert client.get(f"{url}/healthz").text == "ok"
                polled += 1
    finally:
        stop.set()
        attacker.join(timeout=120)
    assert not failures, failures
    assert not attacker.is_alive()
    assert len(answers) >= 4 and all(code < 500 for code in answers), answers


def test_a_watch_whose_client_stops_reading_is_ended(served, monkeypatch):
    from kubelite.server.handlers import watch

    monkeypatch.setattr(watch, "WATCH_BUFFER", 20)
    cluster, url = served
    store, opened = cluster.api.store, []
    original_watch = store.watch

    def recorded_watch(prefix, *args, **kwargs):
        watcher = original_watch(prefix, *args, **kwargs)
        if prefix == "/registry/core/configmaps/default/":
            opened.append(watcher)
        return watcher

    monkeypatch.setattr(store, "watch", recorded_watch)
    port = int(url.rsplit(":", 1)[1])
    reader = socket.socket()
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # fills at once
    reader.connect(("127.0.0.1", port))
    reader.sendall(f"GET {CMS}?watch=1 HTTP/1.1\r\nHost: kubelite\r\n\r\n".encode())
    # the writes come once the stream watches (before, they would be its initial list)
    assert _until(lambda: opened, deadline=time.monotonic() + 60), "the watch never started"
    writes = 1200  # ~10 MB of events: more than every buffer between the server and the reader
    payload = {"blob": "x" * 8000}
    for i in range(writes):
        cluster.api.create(cluster.registry.lookup("", "v1", "configmaps"), "default",
                           configmap(f"cm-{i}", data=payload), _write_options())
    # the reader takes nothing until the server has given up on it
    assert _until(lambda: opened[0].closed, deadline=time.monotonic() + 60), "the slow watch was never ended"
    received = _read_until_end(reader, deadline=time.monotonic() + 120)
    reader.close()
    events = received.count(b'"type":"ADDED"')
    # the stream ended (terminating chunk) before all the writes reached it
    assert received.endswith(b"0\r\n\r\n"), received[-200:]
    assert 0 < events < writes


def test_a_watch_resumed_far_behind_is_served_while_its_client_reads(served, monkeypatch):
    """A backlog larger than the buffer is not a slow client: a watch from an old revision gets
    every event if it keeps reading."""
    from kubelite.server.handlers import watch

    monkeypatch.setattr(watch, "WATCH_BUFFER", 20)
    cluster, url = served
    start = cluster.api.store.current_revision()
    for i in range(300):
        cluster.api.create(cluster.registry.lookup("", "v1", "configmaps"), "default",
                           configmap(f"behind-{i}"), _write_options())
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as reader:
        reader.sendall(f"GET {CMS}?watch=1&resourceVersion={start}&timeoutSeconds=5 HTTP/1.1\r\n"
                       f"Host: kubelite\r\n\r\n".encode())
        received = _read_until_end(reader, deadline=time.monotonic() + 120)
    assert received.count(b'"type":"ADDED"') == 300


def _until(condition, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return bool(condition())


def _write_options():
    from kubelite.server.core import WriteOptions

    return WriteOptions()


def _read_until_end(sock: socket.socket, deadline: float) -> bytes:
    """Everything up to the response's terminating chunk (the connection itself stays open)."""
    received = bytearray()
    while time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        data = sock.recv(1 << 16)
        if not data:
            break
        received += data
        if received.endswith(b"\r\n0\r\n\r\n"):
            break
    return bytes(received)


def test_serve_request_timeout_flag(tmp_path):
    """`kubelite serve --request-timeout` bounds every request that is not a watch (504), and
    refuses what time.ParseDuration refuses."""
    import subprocess
    import sys

    from test_serve_support import serving

    bad = subprocess.run([sys.executable, "-m", "kubelite", "serve", "--data-dir", str(tmp_path / "bad"),
                          "--request-timeout", "1x"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert 'time: unknown unit "x" in duration "1x"' in bad.stderr
    with serving(tmp_path, "--controllers=-*", "--request-timeout=300ms") as server:
        headers = {"Authorization": f"Bearer {server.token}"}
        import ssl

        verify = ssl.create_default_context(cafile=server.ca)
        with httpx.Client(base_url=server.url, verify=verify, headers=headers, timeout=60) as client:
            # a LIST at a resourceVersion not reached waits 3 s for it: past the limit
            response = client.get(f"{CMS}?resourceVersion=99999999999")
            assert response.status_code == 504, response.text
            assert response.json()["message"] == (
                "Timeout: request did not complete within requested timeout - context deadline exceeded")
            assert client.get(CMS).status_code == 200
