"""The in-process door answers a request that does not stream on the caller's own event loop
(no thread of its own started), a watch on its streams' thread, and a caller already inside an
event loop (an async test) through that thread too."""
from __future__ import annotations

import asyncio
import json

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.door import http_scope, streams

CMS = b"/api/v1/namespaces/default/configmaps"


def _scope(method: str, path: bytes, query: bytes = b"", body: bytes = b"") -> dict:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return http_scope(method, "https", "kubelite", 443, path, query, headers)


def _call(door, method: str, path: bytes, query: bytes = b"", body: bytes = b""):
    status, _, chunks = door.call(_scope(method, path, query, body), body)
    try:
        return status, b"".join(chunks)
    finally:
        chunks.close()


def test_short_requests_start_no_thread_and_a_watch_does():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        door = cluster.door()
        cm = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}).encode()
        assert _call(door, "POST", CMS, body=cm)[0] == 201
        status, body = _call(door, "GET", CMS + b"/a")
        assert status == 200 and json.loads(body)["metadata"]["name"] == "a"
        assert door._thread is None
        status, body = _call(door, "GET", CMS, b"watch=true&timeoutSeconds=1")
        assert status == 200 and json.loads(body.splitlines()[0])["type"] == "ADDED"
        assert door._thread is not None and door._thread.is_alive()
    assert not door._thread.is_alive()


def test_a_caller_inside_an_event_loop_is_answered_from_the_doors_thread():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        door = cluster.door()
        seen = {}

        async def in_a_loop():
            seen["answer"] = _call(door, "GET", CMS)

        asyncio.run(in_a_loop())
        assert seen["answer"][0] == 200 and json.loads(seen["answer"][1])["items"] == []
        assert door._thread is not None


def test_which_requests_stream():
    assert streams(_scope("GET", CMS, b"watch=1"))
    assert streams(_scope("GET", b"/api/v1/watch/namespaces/default/configmaps"))
    assert streams(_scope("GET", b"/api/v1/namespaces/default/pods/p/log", b"follow=true"))
    assert not streams(_scope("GET", CMS, b"watch=false"))
    assert not streams(_scope("GET", b"/api/v1/namespaces/default/pods/p/log"))


def test_closing_the_door_lets_the_tasks_on_its_loop_end(recwarn):
    # A task its loop never ran (stopped the turn it was made) leaves a coroutine never awaited
    # and a pending task destroyed: a watch's waits, made the moment the door closed, did.
    import gc
    import threading

    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        door = cluster.door()
        assert _call(door, "GET", CMS, b"watch=true&timeoutSeconds=1")[0] == 200  # the loop runs
        loop = door._loop
        made = threading.Event()
        tasks = []

        def make_a_waiting_task():
            tasks.append(loop.create_task(asyncio.Event().wait()))
            made.set()

        loop.call_soon_threadsafe(make_a_waiting_task)
        door.close()
    assert made.is_set()
    assert tasks[0].done()
    del tasks
    gc.collect()
    assert not [w for w in recwarn.list if "never awaited" in str(w.message)]
