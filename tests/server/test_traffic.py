"""Requests in flight (server/traffic.py): the controllers of a served cluster give way to them.

What is checked: the count through the ASGI app (a request counts while it is answered, an open
watch does not hold it), that a waiting controller is released a little while (GRACE) after the
last request ends and waits no longer than its bound, and that the background manager waits while a request is in
flight and not otherwise.
"""
from __future__ import annotations

import asyncio
import threading
import time

from kubelite.server.app import create_app
from kubelite.server.core import APIServer
from kubelite.server.resources import Registry
from kubelite.server.storage import open_store
from kubelite.server.traffic import Traffic


def test_quiet_without_requests():
    traffic = Traffic()
    assert traffic.in_flight == 0
    assert traffic.wait_quiet(0) is True


def test_a_waiter_is_released_when_the_last_request_ends():
    traffic = Traffic()
    traffic.enter()
    traffic.enter()
    released = threading.Event()
    result = []

    def waiter():
        result.append(traffic.wait_quiet(60))
        released.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    traffic.leave()
    assert traffic.in_flight == 1
    traffic.leave()
    assert released.wait(60)
    thread.join(60)
    assert result == [True]


def test_a_waiter_gives_up_after_its_bound():
    traffic = Traffic()
    traffic.enter()
    started = time.monotonic()
    assert traffic.wait_quiet(0.01) is False
    assert time.monotonic() - started >= 0.01
    assert traffic.in_flight == 1


def test_quiet_only_a_little_while_after_the_last_request_ended(monkeypatch):
    # A client keeping requests in flight has none for a moment between an answer and its next
    # request: that moment is not quiet. (The clock is the test's: no waiting on the real one.)
    from kubelite.server import traffic as module

    now = [100.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    traffic = Traffic()
    assert traffic.wait_quiet(0) is True
    traffic.enter()
    traffic.leave()
    now[0] += module.GRACE / 2
    assert traffic.wait_quiet(0) is False
    now[0] += module.GRACE
    assert traffic.wait_quiet(0) is True


def _asgi_get(app, path: str, query: str = "", stop_after_head: bool = False):
    """Drive the app with one GET; returns (status, in-flight count seen when the head was sent)."""
    seen = {}

    async def run():
        done = asyncio.Event()

        async def receive():
            if not seen.get("requested"):
                seen["requested"] = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                seen["status"] = message["status"]
                seen["in_flight"] = app.traffic.in_flight
                if stop_after_head:
                    done.set()
            elif not message.get("more_body"):
                done.set()

        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                 "query_string": query.encode(), "headers": [(b"host", b"kubelite")], "scheme": "http",
                 "server": ("kubelite", 80), "client": ("127.0.0.1", 1), "root_path": ""}
        task = asyncio.ensure_future(app(scope, receive, send))
        await done.wait()
        if stop_after_head:
            seen["in_flight_streaming"] = app.traffic.in_flight
            app.shutdown()
        await asyncio.wait_for(task, 60)

    asyncio.run(run())
    return seen


def _app():
    api = APIServer(open_store("memory://"), Registry())
    api.bootstrap()
    return create_app(api)


def test_a_request_counts_while_it_is_answered_and_not_after():
    app = _app()
    during = []
    answer = app._counted

    async def counted(request):
        during.append(app.traffic.in_flight)
        return await answer(request)

    app._counted = counted
    seen = _asgi_get(app, "/api/v1/namespaces")
    assert seen["status"] == 200
    assert during == [1]
    assert app.traffic.in_flight == 0


def test_an_open_watch_does_not_hold_the_controllers_back():
    app = _app()
    seen = _asgi_get(app, "/api/v1/namespaces", "watch=1", stop_after_head=True)
    assert seen["status"] == 200
    assert seen["in_flight_streaming"] == 0
    assert app.traffic.in_flight == 0


class _Recorder(Traffic):
    def __init__(self):
        super().__init__()
        self.waits = []

    def wait_quiet(self, timeout=0.02):
        self.waits.append((threading.current_thread().name, self.in_flight))
        return super().wait_quiet(timeout)


def test_only_the_background_manager_gives_way():
    from kubelite.server.cluster import Cluster
    from kubelite.server.clock import FakeClock

    with Cluster("memory://", clock=FakeClock()) as cluster:
        recorder = _Recorder()
        cluster.manager.traffic = recorder
        assert cluster.settle()
        assert recorder.waits == []  # a settle (the embedded CLI, the tests) never waits
    with Cluster("memory://") as cluster:  # real clock: controllers in the background
        recorder = _Recorder()
        recorder.enter()
        cluster.manager.traffic = recorder
        deadline = time.monotonic() + 60
        while not recorder.waits and time.monotonic() < deadline:
            cluster.manager._stopping.wait(0.01)
        recorder.leave()
        assert recorder.waits and recorder.waits[0] == ("kubelite-controllers", 1)
