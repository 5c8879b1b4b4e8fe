"""serve's HTTP/1.1 protocol: uvicorn's (httptools) with a short way for the usual request.

uvicorn runs every request as a Task that talks ASGI with the app: a `receive` for the body,
a `send` for the head and one for the body, each a coroutine step and a message dict, the head's
headers checked one by one. Most requests here are small, arrive whole in one read, and are
answered without the app ever waiting (storage work is done on the loop). For those this
protocol asks the app for the answer right after the read (App.answer, driven one step with
`send(None)`) and writes head and body in one write: no Task, no ASGI messages.

Everything else takes uvicorn's way unchanged, mid-request if need be: a body still arriving, a
client waiting for `100 Continue`, pipelined requests behind one in flight, an app that waits
for anything but a future of the loop (its coroutine goes on in the Task from where it stopped;
its answer, once made, is still written in one write when it can be), streamed answers (watch,
logs -f: they need the Task to notice the client going away), large bodies (sent in slices as
the transport drains), a connection whose writes are paused, WebSocket upgrades.

A write waits for the disk (a future the store settles): that wait is a callback on the future
and a timer for the request's deadline (app.Park), not a Task. The Task, its ASGI messages and
asyncio.timeout were ~4% of a create's work in the server (callgrind of serve, 400 Secret
creates from 4 threads, two runs: 1.64-1.66 M instructions per create, 1.57-1.59 M without).
"""
from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HEADER_RE, HEADER_VALUE_RE, STATUS_LINE

from kubelite.server.app import _SLICE, MAX_BODY, TO_TASK, Park, _Resumed, _send_response, request_of, response_headers
from kubelite.server.handlers.http import StreamingResponse


# The uvicorn releases whose protocol internals this was written against and tested with (the
# RequestResponseCycle's fields, _start_asgi_task, on_response_complete, the keep-alive timer):
# with any other, serve keeps uvicorn's own protocol, slower but sure.
_TESTED_UVICORN = ("0.54.",)


def answering_protocol(protocol_class, app):
    """`protocol_class` (uvicorn's HttpToolsProtocol or a subclass) answering `app`'s (a
    kubelite App) small requests without a Task; `protocol_class` itself under an untested uvicorn."""
    import uvicorn

    if not uvicorn.__version__.startswith(_TESTED_UVICORN):
        return protocol_class

    class Answering(protocol_class):
        _feeding = False  # within data_received: a request's Task may wait until the read is parsed
        _deferred = None  # the request whose Task waits (its RequestResponseCycle)

        _idle_since = 0.0  # loop time of the last read or response: the keep-alive timer's mark

        def data_received(self, data: bytes) -> None:
            self._idle_since = self.loop.time()
            self._feeding = True
            try:
                super().data_received(data)
            finally:
                self._feeding = False
            cycle = self._deferred
            if cycle is None:
                return
            self._deferred = None
            if cycle.more_body or self.transport.is_closing():
                super()._start_asgi_task(cycle, self.app)  # its body arrives later: uvicorn's way
            else:
                self._answer(cycle)

        def _start_asgi_task(self, cycle, asgi_app) -> None:
            # uvicorn starts a request's Task as soon as its head is parsed; while the read is
            # being parsed, the Task waits to see whether the body is in the same read.
            if (self._feeding and self._deferred is None and asgi_app is self.app
                    and not cycle.waiting_for_100_continue and not cycle.access_log):
                self._deferred = cycle
                return
            super()._start_asgi_task(cycle, asgi_app)

        # The keep-alive timeout: uvicorn set a timer at each response's end and cancelled it at
        # the next read, a timer made and dropped per request. Here one timer stays armed while the
        # connection is open; when it fires it closes the connection only if nothing was read or
        # answered for the whole timeout, and otherwise waits for what is left of it.
        def _unset_keepalive_if_required(self) -> None:
            pass  # (the timer stays; connection_lost cancels it)

        def on_response_complete(self) -> None:
            self.server_state.total_requests += 1
            if self.transport.is_closing():
                return
            self._idle_since = self.loop.time()
            self.flow.resume_reading()
            if self.pipeline:  # the next pipelined request, now that this one is answered
                cycle, asgi_app = self.pipeline.pop()
                self._start_asgi_task(cycle, asgi_app)
            elif self.timeout_keep_alive_task is None:
                self.timeout_keep_alive_task = self.loop.call_later(
                    self.timeout_keep_alive, self.timeout_keep_alive_handler)

        def timeout_keep_alive_handler(self) -> None:
            self.timeout_keep_alive_task = None
            if (self.cycle is not None and not self.cycle.response_complete) or self.pipeline:
                return  # a request in flight: its response's end sets the timer again
            left = self._idle_since + self.timeout_keep_alive - self.loop.time()
            if left > 0:
                self.timeout_keep_alive_task = self.loop.call_later(left, self.timeout_keep_alive_handler)
                return
            super().timeout_keep_alive_handler()

        def connection_lost(self, exc) -> None:
            timer, self.timeout_keep_alive_task = self.timeout_keep_alive_task, None
            if timer is not None:
                timer.cancel()
            super().connection_lost(exc)

        def _answer(self, cycle) -> None:
            body = bytes(cycle.body)
            cycle.body = bytearray()
            too_large = len(body) > MAX_BODY
            coro = app.answer(request_of(cycle.scope, b"" if too_large else body, too_large))
            self._go_on(cycle, coro, None)

        def _go_on(self, cycle, coro, value) -> None:
            """Drives App.answer's coroutine `coro` a step, sending `value`, and answers if it
            is done."""
            try:
                waiting_for = coro.send(value)
            except StopIteration as done:
                response = done.value
            except BaseException as err:  # a bug: uvicorn's Task logs it and answers 500
                self._in_task(cycle, _raising(err))
                return
            else:
                if type(waiting_for) is Park:  # a future of the loop (a write's wait for the disk)
                    self._park(cycle, coro, waiting_for)
                else:  # the app waits (a thread, a timer, a watch's first events): on in a Task
                    self._in_task(cycle, self._resumed(cycle, coro, waiting_for))
                return
            if not self._write_whole(cycle, response):
                self._in_task(cycle, _sending(response))

        def _park(self, cycle, coro, park: Park) -> None:
            """Goes on with `coro` when its future is done or its deadline has come: a callback
            and a timer rather than a Task."""
            if park.deadline != float("inf"):
                park.timer = self.loop.call_at(park.deadline, self._unpark, cycle, coro, park, False)
            park.future.add_done_callback(lambda _: self._unpark(cycle, coro, park, True))

        def _unpark(self, cycle, coro, park: Park, in_time: bool) -> None:
            if park.future is None:
                return  # (the other of the two came first)
            park.future = None
            if in_time and park.timer is not None:
                park.timer.cancel()
            self._go_on(cycle, coro, in_time)

        def _in_task(self, cycle, asgi_app) -> None:
            super()._start_asgi_task(cycle, asgi_app)

        def _resumed(self, cycle, coro, waiting_for):
            """An ASGI app going on with App.answer's coroutine `coro` (it waits for `waiting_for`),
            its answer written at once as well when it can be (a create waiting for the store)."""
            write_whole = self._write_whole

            async def asgi(scope, receive, send):
                if waiting_for is TO_TASK:  # it waits on nothing yet: it asked to go on in a Task
                    try:
                        waits = coro.send(None)
                    except StopIteration as done:
                        response = done.value
                    else:
                        response = await _Resumed(coro, waits)
                else:
                    response = await _Resumed(coro, waiting_for)
                if not write_whole(cycle, response):
                    await _send_response(response, send, receive, head=scope["method"] == "HEAD")

            return asgi

        def _write_whole(self, cycle, response) -> bool:
            """Writes a small whole response at once; False when it must take the Task's way."""
            if (isinstance(response, StreamingResponse) or len(response.body) > _SLICE
                    or self.flow.write_paused or cycle.disconnected):
                return False
            try:
                parts = [STATUS_LINE[response.status], _default_head(self.server_state.default_headers)]
                for name, value in response_headers(response):
                    # what uvicorn refuses (a 500): a header breaking the head's framing
                    if HEADER_RE.search(name) or HEADER_VALUE_RE.search(value):
                        return False
                    if name == b"connection":  # (no whole response of the app sets it)
                        return False
                    parts += (name.lower(), b": ", value, b"\r\n")
            except Exception:  # (a status or header uvicorn's send refuses: it answers it)
                return False
            if not cycle.keep_alive:
                parts.append(b"connection: close\r\n")
            parts.append(b"\r\n")
            if cycle.scope["method"] != "HEAD":
                parts.append(response.body)
            cycle.response_started = cycle.response_complete = True
            cycle.waiting_for_100_continue = False
            cycle.message_event.set()  # (as uvicorn's send: a receive waiting learns it is over)
            write = getattr(self.transport, "write_now", None) or self.transport.write
            write(b"".join(parts))
            if not cycle.keep_alive:
                self.transport.close()
            cycle.on_response()  # the next pipelined request, or the keep-alive timer
            return True

    return Answering


def _sending(response):
    """An ASGI app sending `response`, already made."""

    async def asgi(scope, receive, send):
        await _send_response(response, send, receive, head=scope["method"] == "HEAD")

    return asgi


def _raising(err: BaseException):
    async def asgi(scope, receive, send):
        raise err

    return asgi


_DEFAULT_HEAD: list = [None, b""]  # (uvicorn's default headers, their lines)


def _default_head(default_headers) -> bytes:
    """The lines of the headers every response has (the date): uvicorn makes a new list of them
    each second, so their lines are joined once a second."""
    if _DEFAULT_HEAD[0] is not default_headers:
        _DEFAULT_HEAD[1] = b"".join(b"%s: %s\r\n" % (name, value) for name, value in default_headers)
        _DEFAULT_HEAD[0] = default_headers
    return _DEFAULT_HEAD[1]
