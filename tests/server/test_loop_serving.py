"""Which thread serves a storage request on a server's event loop: a small read or write is done
on the loop's own thread when it can start at once (handing it to a thread and back cost more
than its work), everything else on threads, as before; a write is answered once on disk either
way. And the request deadline's timer is set only for a request that waits."""
from __future__ import annotations

import asyncio
import json
import os
import threading
import time

import pytest

from kubelite.server import app as app_module
from kubelite.server.app import create_app
from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.core import WriteOptions
from kubelite.server.handlers import resources
from kubelite.server.storage import sqlite as sqlite_module

CMS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def cluster(tmp_path):
    with Cluster(str(tmp_path / "state.db"), clock=FakeClock(), controllers=False) as opened:
        yield opened


@pytest.fixture
def threads_of(monkeypatch):
    """verb -> the threads its handler ran on."""
    seen: dict[str, list[int]] = {}
    for verb in ("get", "create", "patch"):
        real = resources._VERBS[verb]

        def recorded(*args, _verb=verb, _real=real):
            seen.setdefault(_verb, []).append(threading.get_ident())
            return _real(*args)

        monkeypatch.setitem(resources._VERBS, verb, recorded)
    monkeypatch.setattr(resources, "_SLOW_PATHS", set())
    monkeypatch.setattr(resources, "_SLOW_ONCE", set())
    return seen


def call(app, method: str, path: str, body: bytes = b"", query: str = "",
         content_type: str = "application/json") -> tuple[int, dict, int]:
    """(status, decoded body, the loop's thread) of one request through the ASGI app on a loop."""
    return asyncio.run(request(app, method, path, body, query, content_type))


async def request(app, method: str, path: str, body: bytes = b"", query: str = "",
                  content_type: str = "application/json") -> tuple[int, dict, int]:
    """call() on the running loop."""
    sent = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "query_string": query.encode(),
             "headers": [(b"content-type", content_type.encode())]}
    await app(scope, receive, send)
    status = sent[0]["status"]
    payload = b"".join(m.get("body", b"") for m in sent[1:])
    return status, json.loads(payload), threading.get_ident()


def configmap(name: str, **data) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}).encode()


def test_a_small_read_and_write_are_served_on_the_loop_thread(cluster, threads_of):
    app = create_app(cluster.api)
    status, _, loop_thread = call(app, "POST", CMS, configmap("a", k="v"))
    assert status == 201 and threads_of["create"] == [loop_thread]
    status, got, loop_thread = call(app, "GET", f"{CMS}/a")
    assert status == 200 and got["data"] == {"k": "v"} and threads_of["get"] == [loop_thread]


def test_a_request_with_a_deadline_of_its_own_goes_to_a_thread(cluster, threads_of):
    app = create_app(cluster.api)
    status, _, loop_thread = call(app, "POST", CMS, configmap("a"), query="timeout=30s")
    assert status == 201 and threads_of["create"] != [loop_thread]
    status, _, loop_thread = call(app, "GET", f"{CMS}/a", query="timeout=30s")
    assert status == 200 and threads_of["get"] != [loop_thread]


def test_a_collection_is_served_on_a_thread(cluster, threads_of, monkeypatch):
    for verb in ("list", "deletecollection"):
        real = resources._VERBS[verb]
        monkeypatch.setitem(resources._VERBS, verb, lambda *args, _verb=verb, _real=real: (
            threads_of.setdefault(_verb, []).append(threading.get_ident()), _real(*args))[1])
    app = create_app(cluster.api)
    status, _, loop_thread = call(app, "GET", CMS)
    assert status == 200 and threads_of["list"] != [loop_thread]
    status, _, loop_thread = call(app, "DELETE", CMS)
    assert status == 200 and threads_of["deletecollection"] != [loop_thread]


def test_a_large_body_goes_to_a_thread(cluster, threads_of):
    app = create_app(cluster.api)
    status, _, loop_thread = call(app, "POST", CMS, configmap("big", k="v" * resources._LOOP_BODY))
    assert status == 201 and threads_of["create"] != [loop_thread]


def test_a_write_while_another_holds_the_lock_waits_on_a_thread(cluster, threads_of, monkeypatch):
    app = create_app(cluster.api)
    handed, real = threading.Event(), resources._one_writer

    def one_writer(*args):
        handed.set()
        return real(*args)

    monkeypatch.setattr(resources, "_one_writer", one_writer)
    result = []
    with resources._WRITE_LOCK:
        caller = threading.Thread(target=lambda: result.append(call(app, "POST", CMS, configmap("a"))))
        caller.start()
        assert handed.wait(timeout=60)  # handed to the writer threads, which wait for the lock
        assert "create" not in threads_of
    caller.join(timeout=60)
    status, _, loop_thread = result[0]
    assert status == 201 and threads_of["create"] != [loop_thread]


def test_a_write_webhooks_may_be_called_for_goes_to_a_thread(cluster, threads_of, monkeypatch):
    monkeypatch.setattr(type(cluster.api.webhooks.admission.configurations), "none_as_last_read", lambda self: False)
    app = create_app(cluster.api)
    status, _, loop_thread = call(app, "POST", CMS, configmap("a"))
    assert status == 201 and threads_of["create"] != [loop_thread]


def test_once_a_webhook_is_configured_writes_go_to_threads(cluster, threads_of):
    app = create_app(cluster.api)
    hook = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "ignored"},
            "webhooks": [{"name": "ignored.example.com", "failurePolicy": "Ignore", "sideEffects": "None",
                          "admissionReviewVersions": ["v1"], "timeoutSeconds": 1,
                          "clientConfig": {"url": "https://127.0.0.1:1/"},
                          "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                     "resources": ["configmaps"]}]}]}
    path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
    assert call(app, "POST", path, json.dumps(hook).encode())[0] == 201
    assert call(app, "POST", CMS, configmap("a"))[0] == 201  # reads the configuration
    status, _, loop_thread = call(app, "POST", CMS, configmap("b"))
    assert status == 201 and threads_of["create"][-1] != loop_thread


def test_a_write_before_webhooks_are_loaded_goes_to_a_thread(cluster, threads_of, monkeypatch):
    monkeypatch.setattr(cluster.api, "_webhooks", None)
    app = create_app(cluster.api)
    status, _, loop_thread = call(app, "POST", CMS, configmap("a"))
    assert status == 201 and threads_of["create"] != [loop_thread]
    assert cluster.api._webhooks is not None  # loaded by that write
    status, _, loop_thread = call(app, "POST", CMS, configmap("b"))
    assert status == 201 and threads_of["create"][-1] == loop_thread


def test_a_store_across_the_network_is_never_called_on_the_loop(cluster, threads_of, monkeypatch):
    monkeypatch.setattr(cluster.api.store, "remote", True, raising=False)
    app = create_app(cluster.api)
    status, _, loop_thread = call(app, "POST", CMS, configmap("a"))
    assert status == 201 and threads_of["create"] != [loop_thread]
    status, _, loop_thread = call(app, "GET", f"{CMS}/a")
    assert status == 200 and threads_of["get"] != [loop_thread]


def test_a_path_twice_slow_on_the_loop_goes_to_threads_after(cluster, threads_of, monkeypatch):
    app = create_app(cluster.api)
    assert call(app, "POST", CMS, configmap("a"))[0] == 201
    monkeypatch.setattr(resources, "_SLOW", -1.0)  # every request is "slow"
    loops = [call(app, "GET", f"{CMS}/a")[2] for _ in range(3)]
    assert threads_of["get"][:2] == loops[:2] and threads_of["get"][2] != loops[2]
    assert f"{CMS}/a" in resources._SLOW_PATHS


def test_a_large_object_goes_to_threads_after_its_first_answer(cluster, threads_of, monkeypatch):
    app = create_app(cluster.api)
    assert call(app, "POST", CMS, configmap("a", k="v" * 1000))[0] == 201
    monkeypatch.setattr(resources, "_LOOP_ANSWER", 1000)
    loops = [call(app, "GET", f"{CMS}/a")[2] for _ in range(2)]
    assert threads_of["get"][0] == loops[0] and threads_of["get"][1] != loops[1]


async def _sync_process_started(app, store) -> None:
    """A first write on this loop (its wait is the syncer thread's while the store's child
    process starts), then that process ready."""
    assert (await request(app, "POST", CMS, configmap("first")))[0] == 201
    deadline = time.monotonic() + 10
    while not store._syncs._loop_syncs._ready:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)


def test_a_write_on_the_loop_is_answered_once_on_disk_and_a_no_op_without_waiting(cluster, monkeypatch):
    store, seen = cluster.api.store, []
    ask, answered = sqlite_module._LoopSyncs._ask_for_sync, sqlite_module._LoopSyncs._answered

    def asking(syncs):
        seen.append(("ask", store._committed, threading.get_ident()))
        ask(syncs)

    def answering(syncs):
        answered(syncs)
        seen.append(("synced", store._syncs.synced, threading.get_ident()))

    monkeypatch.setattr(sqlite_module._LoopSyncs, "_ask_for_sync", asking)
    monkeypatch.setattr(sqlite_module._LoopSyncs, "_answered", answering)
    app = create_app(cluster.api)
    real_app = app.__call__

    async def recording(scope, receive, send):
        async def sending(message):
            if message["type"] == "http.response.start":
                seen.append(("answer", store._committed, threading.get_ident()))
            await send(message)

        await real_app(scope, receive, sending)

    async def after_a_first_write():
        await _sync_process_started(app, store)
        seen.clear()
        return await request(recording, "POST", CMS, configmap("a", k="v"))

    status, made, loop_thread = asyncio.run(after_a_first_write())
    assert status == 201
    committed = store._committed
    # the child process asked for a sync once the write was committed, its answer read on the
    # loop, then the client's
    assert seen == [("ask", committed, loop_thread), ("synced", committed, loop_thread),
                    ("answer", committed, loop_thread)]
    assert store._syncs._loop_syncs._process.pid != os.getpid() and not store.unsynced()
    before = len(seen)
    patch = json.dumps({"data": {"k": "v"}}).encode()
    status, patched, _ = call(recording, "PATCH", f"{CMS}/a", patch, content_type="application/strategic-merge-patch+json")
    assert status == 200 and patched["metadata"]["resourceVersion"] == made["metadata"]["resourceVersion"]
    assert [what for what, *_ in seen[before:]] == ["answer"]  # nothing written: nothing to wait for


def test_a_first_read_on_the_loop_starts_the_stores_sync_process(cluster):
    store = cluster.api.store
    assert store._syncs._loop_syncs is None
    status, _, _ = call(create_app(cluster.api), "GET", f"{CMS}/missing")
    assert status == 404 and store._syncs._loop_syncs._process.poll() is None  # started, running


def test_a_failed_sync_fails_the_write_on_the_loop(cluster, monkeypatch):
    fsync = "            os.fsync(fd)\n"
    assert sqlite_module._SYNC_PROCESS.count(fsync) == 1
    monkeypatch.setattr(sqlite_module, "_SYNC_PROCESS", sqlite_module._SYNC_PROCESS.replace(
        fsync, "            raise OSError(5, 'Input/output error')\n"))
    app = create_app(cluster.api)

    async def after_a_first_write():
        await _sync_process_started(app, cluster.api.store)
        return await request(app, "POST", CMS, configmap("a", k="v"))

    status, answer, _ = asyncio.run(after_a_first_write())
    assert status == 500 and "Input/output error" in answer["message"] and "state.db" in answer["message"]


def test_unsynced_until_durable(cluster):
    store = cluster.api.store
    cluster.api.create(cluster.registry.lookup("", "v1", "configmaps"), "default",
                       json.loads(configmap("x")), WriteOptions())
    assert store.unsynced()
    store.durable()
    assert not store.unsynced()


# -- the request deadline -----------------------------------------------------------------------

def test_a_coroutine_that_never_waits_is_answered_without_a_timer():
    async def answer():
        return "done"

    async def run():
        loop = asyncio.get_running_loop()
        result = await app_module._within(answer(), 0.0)  # already past: no timer to fire
        return result, list(loop._scheduled)

    assert asyncio.run(run()) == ("done", [])


def test_a_coroutine_that_waits_past_the_limit_is_cut():
    ended = []

    async def slow():
        try:
            await asyncio.sleep(30)
        finally:
            ended.append(True)

    async def run():
        with pytest.raises(TimeoutError):
            await app_module._within(slow(), 0.05)

    asyncio.run(run())
    assert ended == [True]


def test_a_coroutine_that_waits_gets_what_it_waits_for_and_its_errors_pass():
    async def waits(value):
        await asyncio.sleep(0)
        future = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(future.set_result, value)
        got = await future
        if got == "boom":
            raise ValueError(got)
        return got

    async def run():
        assert await app_module._within(waits("ok"), 30) == "ok"
        with pytest.raises(ValueError, match="boom"):
            await app_module._within(waits("boom"), 30)

    asyncio.run(run())


def test_a_cancelled_request_cancels_its_coroutine():
    cancelled = []

    async def forever(started):
        await asyncio.sleep(0)  # (waits once before: _within has set its timer)
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def run():
        started = asyncio.Event()
        task = asyncio.ensure_future(app_module._within(forever(started), 30))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert cancelled == [True]


def _without_a_task(coro, limit: float):
    """app._within(coro, limit) driven as server.http11 drives a request: sent into from the
    loop's callbacks (no Task), each Park's future or deadline waited for with a callback and a
    timer. (what it yielded each time, its answer or exception)."""
    async def run():
        loop = asyncio.get_running_loop()
        ended = loop.create_future()
        yielded = []

        def go_on(within, value):
            try:
                waiting = within.send(value)
            except StopIteration as done:
                ended.set_result(done.value)
                return
            except BaseException as err:
                ended.set_result(err)
                return
            if not isinstance(waiting, app_module.Park):
                yielded.append("to a task" if waiting is app_module.TO_TASK else waiting)
                ended.set_result(None)
                return
            yielded.append("park")
            settled = []

            def unpark(in_time):
                if not settled:
                    settled.append(in_time)
                    timer.cancel()
                    go_on(within, in_time)

            timer = loop.call_at(waiting.deadline, unpark, False)
            waiting.future.add_done_callback(lambda _: unpark(True))

        loop.call_soon(go_on, app_module._within(coro, limit), None)
        return yielded, await ended

    return asyncio.run(run())


def test_without_a_task_a_wait_for_a_future_is_parked_with_its_driver():
    async def waits():
        future = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.01, future.set_result, "written")
        return "answer after " + await future

    assert _without_a_task(waits(), 30) == (["park"], "answer after written")


def test_without_a_task_a_failed_future_raises_in_the_coroutine():
    async def waits():
        future = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(future.set_exception, OSError(5, "Input/output error"))
        await future

    yielded, outcome = _without_a_task(waits(), 30)
    assert yielded == ["park"]
    assert isinstance(outcome, OSError) and outcome.errno == 5


def test_without_a_task_a_future_past_the_deadline_is_cancelled_and_cut():
    seen = []

    async def waits():
        future = asyncio.get_running_loop().create_future()
        seen.append(future)
        try:
            await future
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    yielded, outcome = _without_a_task(waits(), 0.05)
    assert yielded == ["park"]
    assert isinstance(outcome, TimeoutError)
    assert seen[0].cancelled() and seen[1:] == ["cancelled"]


def test_without_a_task_waiting_for_anything_else_goes_on_in_a_task():
    async def sleeps():
        await asyncio.sleep(0)  # yields None, which only a Task knows what to do with
        return "never here"

    assert _without_a_task(sleeps(), 30) == (["to a task"], None)


# -- streams ------------------------------------------------------------------------------------

def test_a_stream_leaves_no_task_behind():
    from kubelite.server.handlers.http import StreamingResponse

    async def chunks():
        for i in range(3):
            await asyncio.sleep(0)
            yield b"%d" % i

    async def run():
        sent = []
        never = asyncio.Event()

        async def receive():
            await never.wait()

        async def send(message):
            sent.append(message)

        await app_module._send_stream(StreamingResponse(chunks=chunks()), send, receive)
        await asyncio.sleep(0)  # the cancelled watcher of the client's going away ends
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        return [m.get("body") for m in sent[1:]], left

    bodies, left = asyncio.run(run())
    assert bodies == [b"0", b"1", b"2", b""] and left == []
