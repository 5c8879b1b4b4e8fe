"""Requests in flight (server/traffic.py): the controllers of a served cluster give way to them.

What is checked: the count through the ASGI app (a request counts while it is answered, an open
watch does not hold it), that a waiting controller is released a little while (GRACE) after the
last request ends and waits no longer than its bound, or than the first second (BURST) of a busy
spell when that is later, and that the background manager waits while a request is in
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
    now[0] += module.BURST  # (within a spell's first second a controller would wait for quiet)
    traffic.leave()
    now[0] += module.GRACE / 2
    assert traffic.wait_quiet(0) is False
    now[0] += module.GRACE
    assert traffic.wait_quiet(0) is True


def _fake_clock(monkeypatch, start: float = 100.0) -> list[float]:
    from kubelite.server import traffic as module

    now = [start]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    return now


def test_a_busy_spell_is_the_apis_alone_for_its_first_second(monkeypatch):
    # apply -f keeps requests in flight for most of a second: a controller waits through it, not
    # just its COURTESY, and goes on once the spell is BURST old (or quiet).
    from kubelite.server import traffic as module

    now = _fake_clock(monkeypatch)
    traffic = Traffic()
    traffic.enter()
    now[0] += module.BURST / 2
    done = threading.Event()
    result = []

    def waiter():
        result.append(traffic.wait_quiet(module.COURTESY))
        done.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    now[0] += module.COURTESY * 2  # its own bound is over, the spell's first second is not
    assert not done.wait(0.2)  # (it re-reads the clock every COURTESY: a waiter that stopped there is done by now)
    now[0] += module.BURST  # the spell is older than BURST now
    assert done.wait(60)
    thread.join(60)
    assert result == [False]
    assert traffic.in_flight == 1


def test_after_its_first_second_a_spell_gets_the_plain_courtesy(monkeypatch):
    from kubelite.server import traffic as module

    now = _fake_clock(monkeypatch)
    traffic = Traffic()
    traffic.enter()
    now[0] += module.BURST + 1
    assert traffic.wait_quiet(0) is False  # no wait beyond its own bound (0 here)


def test_a_spell_goes_on_through_gaps_shorter_than_grace(monkeypatch):
    from kubelite.server import traffic as module

    now = _fake_clock(monkeypatch)
    traffic = Traffic()
    traffic.enter()
    now[0] += 0.5
    traffic.leave()
    now[0] += module.GRACE / 2
    traffic.enter()  # the client's next request, right after an answer: the same spell
    now[0] = 100.0 + module.BURST + 0.1
    assert traffic.wait_quiet(0) is False
    traffic.leave()
    now[0] += module.GRACE
    assert traffic.wait_quiet(0) is True
    traffic.enter()  # after a quiet moment: a new spell, the API's alone again
    done = threading.Event()
    thread = threading.Thread(target=lambda: (traffic.wait_quiet(module.COURTESY), done.set()))
    thread.start()
    now[0] += module.COURTESY * 2
    assert not done.wait(0.2)
    traffic.leave()
    now[0] += module.GRACE
    assert done.wait(60)
    thread.join(60)


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
