"""The ASGI application: the single entry point for both doors of the API server.

`kubelite serve` hands it to uvicorn (HTTPS); the in-process transport calls it directly.
Everything below the ASGI boundary is shared, so there is one code path per operation.
"""
from __future__ import annotations

import time

from kubelite.godepth import allow_go_depth
from kubelite.lazylog import LazyLogger
from kubelite.uuids import uuid4
from kubelite.server.auth.gate import Gate
from kubelite.server.errors import StatusError, internal_error, method_not_allowed, request_entity_too_large, timeout
from kubelite.server.handlers.http import (
    INLINE,
    Request,
    Response,
    StreamingResponse,
    encode_json,
    json_response,
    loop_running,
    text_response,
)
from kubelite.server.routing import Query, request_info
from kubelite.server.storage.errors import StorageError

log = LazyLogger("kubelite.server")  # logging imported when there is something to say

MAX_BODY = 3 * 1024 * 1024  # kube-apiserver's MaxRequestBodyBytes
REQUEST_TIMEOUT = 60.0  # kube-apiserver's --request-timeout for requests that are not watches
# kube-apiserver's BasicLongRunningRequestCheck: these run past the request timeout
_LONG_RUNNING_VERBS = ("watch", "proxy")
_LONG_RUNNING_SUBRESOURCES = ("attach", "exec", "proxy", "log", "portforward")
# What kube-apiserver answers when a handler panics: the detail goes to the log only.
PANIC_MESSAGE = "This request caused apiserver to panic. Look in the logs for details.\n"
_HEALTH = ("/healthz", "/readyz", "/livez")


class App:
    """ASGI app. `api` is the APIServer core; `token` None means no authentication."""

    def __init__(self, api, token: str | None = None):
        self.api = api
        self.auth = Gate(api, token)  # authentication, impersonation, RBAC
        from kubelite.server.prometheus import RequestMetrics

        self.metrics = RequestMetrics()  # what /metrics reports
        allow_go_depth()  # Go's decoders take 10,000-deep documents: so must every handler
        # Set on shutdown so that open watch streams end and the server can stop promptly.
        self.stopping: asyncio.Event | None = None
        # serve --request-timeout; None: REQUEST_TIMEOUT
        self.request_timeout: float | None = None
        from kubelite.server.traffic import Traffic

        self.traffic = Traffic()  # the requests in flight, which the controllers give way to

    async def __call__(self, scope, receive, send):
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        if kind == "websocket":
            await self._websocket(scope, receive, send)
            return
        if kind != "http":
            return
        request = await _read_request(scope, receive)
        response = await self.answer(request)
        await _send_response(response, send, receive, head=scope["method"] == "HEAD")

    async def answer(self, request: Request):
        """The response to a request read whole: what __call__ sends, and what serve's own HTTP
        protocol (kubelite.server.http11) writes itself when this coroutine completes at once."""
        if self.stopping is None and loop_running():  # (server.door drives short requests without one)
            import asyncio

            self.stopping = asyncio.Event()
        self.traffic.enter()
        try:
            return await self._counted(request)
        finally:
            self.traffic.leave()

    async def _websocket(self, scope, receive, send):
        """A WebSocket handshake (exec/attach/portforward and watches from browsers): answered as
        the same GET over HTTP. kubelite carries no stream, so the handshake is always declined
        with that answer (kube-apiserver's JSON Status) when the server lets the app send one."""
        if self.stopping is None:
            import asyncio

            self.stopping = asyncio.Event()
        message = await receive()
        if message.get("type") != "websocket.connect":
            return
        request = await _read_request({**scope, "method": "GET"}, _no_body)
        response = await self._counted(request)
        if isinstance(response, StreamingResponse):
            await _close_stream(response)
            response = Response(status=400, body=b"", content_type="")
        if "websocket.http.response" not in (scope.get("extensions") or {}):
            await send({"type": "websocket.close", "code": 1011})
            return
        headers = _base_headers(response.content_type, response.headers)
        headers.append((b"content-length", str(len(response.body)).encode()))
        headers.append((b"connection", b"close"))  # the server closes a declined handshake's connection
        await send({"type": "websocket.http.response.start", "status": response.status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": response.body})

    async def _lifespan(self, receive, send):
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                import asyncio

                self.stopping = asyncio.Event()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def shutdown(self) -> None:
        if self.stopping is not None:
            self.stopping.set()

    async def _counted(self, request: Request):
        """The answer, counted in the request metrics when it is a resource request (as
        kube-apiserver's instrumented routes: after authentication and authorization)."""
        start = time.perf_counter()
        response = await self._respond(request)
        route = request.route
        if route is not None and route.is_resource_request:
            self.metrics.observe(request, route, response.status, time.perf_counter() - start)
        return response

    async def _respond(self, request: Request):
        if request.too_large:
            return _error_response(request_entity_too_large(MAX_BODY), request)
        request.clock = self.api.clock
        try:
            request.user = self.auth.admit(request)
        except StatusError as err:
            return _error_response(err, request)
        try:
            limit = self._deadline(request)
            if not loop_running():
                # Driven without an event loop (server.door): nothing in it waits, so no deadline
                # could cut it (a request with one of its own, ?timeout=, is given a loop).
                return await self._dispatch(request)
            return await _within(self._dispatch(request), limit)
        except StatusError as err:
            return _error_response(err, request)
        except StorageError as err:  # the store failed (etcd unreachable): kube-apiserver's InternalError
            log.warning("%s %s: storage: %s", request.method, request.path, err)
            return _error_response(internal_error(str(err)), request)
        except TimeoutError:  # asyncio.timeout's (asyncio.TimeoutError is TimeoutError since Python 3.11)
            log.warning("%s %s did not complete within %ss", request.method, request.path, limit)
            err = timeout("request did not complete within requested timeout - context deadline exceeded")
            err.has_details = True  # NewTimeoutError always sends details, here empty
            return _error_response(err, request)
        except Exception:  # a bug: answered as a Go panic is, the detail only in the log
            log.exception("internal error serving %s %s", request.method, request.path)
            return text_response(PANIC_MESSAGE, status=500)

    def _deadline(self, request: Request) -> float:
        """kube-apiserver's WithRequestDeadline: the client's `?timeout=` (a Go duration) when
        positive and below --request-timeout, else --request-timeout; long-running requests
        (watches, logs, exec...) are not bounded here, and do not read the parameter."""
        maximum = self.request_timeout if self.request_timeout is not None else REQUEST_TIMEOUT
        text = request.query.get("timeout")
        if not text:
            return maximum
        info = request_info(request)
        if info.verb in _LONG_RUNNING_VERBS or info.subresource in _LONG_RUNNING_SUBRESOURCES:
            return maximum
        from kubelite.server.errors import bad_request
        from kubelite.server.gotime import parse_duration

        try:
            wanted = parse_duration(text)
        except ValueError as err:
            raise bad_request(f"invalid timeout specified in the request URL - {err}") from None
        return wanted if 0 < wanted < maximum else maximum

    async def _dispatch(self, request: Request):
        path = request.path
        if request.method in ("HEAD", "OPTIONS"):
            raise method_not_allowed()
        if path == "/version" or path == "/version/":
            if request.method != "GET":
                raise method_not_allowed()
            return json_response(self.api.version_info(), request=request)
        if path.rstrip("/") in _HEALTH or path.startswith(tuple(p + "/" for p in _HEALTH)):
            return text_response("ok")
        if path == "/metrics":
            return await self._metrics(request)
        if path.startswith("/openapi/"):
            from kubelite.server.handlers import discovery

            return discovery.openapi(self.api, request)
        info = request.route = request_info(request)
        if not info.parts or info.parts[0] not in ("api", "apis") or (
                info.parts[0] == "apis" and len(info.parts) > 1 and self.api.registry.group(info.parts[1]) is None):
            # Outside the API groups the Go mux answers, in plain text.
            return text_response("404 page not found\n", status=404)
        if not info.is_resource_request:
            from kubelite.server.handlers import discovery

            return discovery.serve(self.api, request, info)
        reviews, resources = _RESOURCE_HANDLERS or _resource_handlers()
        if reviews.handles(info):
            return reviews.serve(self.auth.authn, self.auth.authorizer, request, info, request.user)
        return await resources.serve(self.api, request, info, self.stopping)


    async def _metrics(self, request: Request):
        from kubelite.server import prometheus

        if request.method != "GET":
            raise method_not_allowed()
        if loop_running():
            import asyncio

            counts = await asyncio.to_thread(prometheus.storage_object_counts, self.api)
        else:  # the in-process door's own request: nothing else waits on this thread
            counts = prometheus.storage_object_counts(self.api)
        return Response(status=200, body=self.metrics.render(counts).encode(),
                        content_type=prometheus.CONTENT_TYPE)


_RESOURCE_HANDLERS = None


def _resource_handlers():
    """(reviews, resources), loaded at the first resource request and kept: a `from ... import`
    per request was a microsecond each."""
    global _RESOURCE_HANDLERS
    from kubelite.server.auth import reviews
    from kubelite.server.handlers import resources

    _RESOURCE_HANDLERS = (reviews, resources)
    return _RESOURCE_HANDLERS


async def _within(coro, limit: float):
    """`coro`'s answer, or TimeoutError once `limit` seconds have passed. Most requests are
    answered without ever waiting (storage work done on the loop): the timer is set only when
    the coroutine first waits, for what is left of the limit. (asyncio.timeout rather than
    wait_for: no second task for each request.)"""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    try:
        waiting_for = coro.send(None)
    except StopIteration as done:
        return done.value
    if asyncio.current_task() is None:
        # serve's protocol (server.http11) drives the request without a Task, which the timeout
        # needs: the futures of this loop the coroutine waits for (a write's wait for the disk)
        # its driver waits for, until the deadline; anything else goes on in a Task (TO_TASK).
        answered, value = await _parked(coro, waiting_for, deadline, loop)
        if answered:
            return value
        waiting_for = value
        await _ToTask()
    async with asyncio.timeout_at(deadline):
        return await _Resumed(coro, waiting_for)


async def _parked(coro, waiting_for, deadline: float, loop) -> tuple:
    """(True, the answer) of `coro` once each future of `loop` it waits for is done, each
    waited for by the request's driver (Park); (False, what it waits for) when that is something
    else, for a Task to go on with. At the deadline the future is cancelled and the coroutine
    gets a CancelledError, which ends as TimeoutError, as asyncio.timeout's cut would."""
    import asyncio

    while asyncio.isfuture(waiting_for) and waiting_for.get_loop() is loop:
        waiting_for._asyncio_future_blocking = False  # (as a Task resets it)
        cut = not await Park(waiting_for, deadline)
        if cut:
            waiting_for.cancel()
        try:
            waiting_for = coro.throw(asyncio.CancelledError()) if cut else coro.send(None)
        except StopIteration as done:
            return True, done.value
        except asyncio.CancelledError:
            if cut:
                raise TimeoutError from None
            raise
        if cut:  # it went on after the cut: no deadline is left to keep (asyncio.timeout's neither)
            deadline = float("inf")
    return False, waiting_for


class Park:
    """What a request driven without a Task (server.http11) yields for a future it waits for:
    the driver resumes it, sending True, once `future` is done, or False once the loop's time
    has reached `deadline`, whichever comes first."""

    __slots__ = ("future", "deadline", "timer")

    def __init__(self, future, deadline: float):
        self.future, self.deadline, self.timer = future, deadline, None

    def __await__(self):
        return (yield self)


TO_TASK = object()  # what a request driven without a Task yields when it must go on in one


class _ToTask:
    """Yields TO_TASK to whoever drives the coroutine; that driver resumes it, sending None,
    from within a Task."""

    __slots__ = ()

    def __await__(self):
        yield TO_TASK


class _Resumed:
    """Awaiting it goes on with a coroutine already started, from where it waits: what it waits
    for goes to the task, what the task sends or throws (a cancellation) goes to it."""

    __slots__ = ("coro", "waiting_for")

    def __init__(self, coro, waiting_for):
        self.coro, self.waiting_for = coro, waiting_for

    def __await__(self):
        coro, waiting_for = self.coro, self.waiting_for
        while True:
            try:
                sent = yield waiting_for
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as err:  # a cancellation too: the coroutine decides what it means
                step = coro.throw
                value = err
            else:
                step = coro.send
                value = sent
            try:
                waiting_for = step(value)
            except StopIteration as done:
                return done.value


def create_app(api, token: str | None = None) -> App:
    return App(api, token)


async def _read_request(scope, receive) -> Request:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            break  # answered 413 without reading the rest, as kube-apiserver's limited reader
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return request_of(scope, b"".join(chunks), size > MAX_BODY)


def request_of(scope, body: bytes, too_large: bool = False) -> Request:
    """The Request of an HTTP scope and its whole body (b"" with `too_large`)."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return Request(
        method=scope["method"],
        path=scope.get("path") or "/",
        query=Query(scope.get("query_string", b"")),
        headers=headers,
        body=body,
        too_large=too_large,
        client_cert=((scope.get("extensions") or {}).get("tls") or {}).get("client_cert_der"),
        inline=INLINE in (scope.get("extensions") or {}),
    )


async def _no_body():
    return {"type": "http.request", "body": b"", "more_body": False}


async def _close_stream(response: StreamingResponse) -> None:
    aclose = getattr(response.chunks, "aclose", None)
    if aclose is not None:
        await aclose()


def _error_response(err: StatusError, request: Request | None) -> Response:
    headers = []
    if err.retry_after_seconds:
        headers.append(("Retry-After", str(err.retry_after_seconds)))
    pretty = request.pretty if request is not None else False
    return Response(status=err.code or 500, body=encode_json(err.to_status(), pretty), headers=headers)


def _audit_id() -> bytes:
    return uuid4().encode()


def _base_headers(content_type: str, extra) -> list[tuple[bytes, bytes]]:
    headers = [(b"audit-id", _audit_id())]
    if not any(name.lower() == "cache-control" for name, _ in extra):
        headers.append((b"cache-control", b"no-cache, private"))
    if content_type:
        headers.append((b"content-type", content_type.encode()))
    if content_type.startswith("text/"):
        headers.append((b"x-content-type-options", b"nosniff"))
    headers.extend((name.encode("latin-1"), value.encode("latin-1")) for name, value in extra)
    return headers


def response_headers(response: Response) -> list[tuple[bytes, bytes]]:
    """A whole (not streamed) response's headers."""
    headers = _base_headers(response.content_type, response.headers)
    if response.status != 204:
        headers.append((b"content-length", str(len(response.body)).encode()))
    return headers


_SLICE = 256 * 1024


async def _send_response(response, send, receive, head: bool = False) -> None:
    if isinstance(response, StreamingResponse):
        await _send_stream(response, send, receive)
        return
    headers = response_headers(response)
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    body = b"" if head else response.body
    if len(body) <= _SLICE:
        await send({"type": "http.response.body", "body": body})
        return
    # A large body (a LIST) goes in slices: the server waits for each to drain before writing the
    # next, so the TLS layer never holds copies of the whole body. At 32 connections listing 1,000
    # objects those copies were most of the process's memory.
    view = memoryview(body)
    for start in range(0, len(body), _SLICE):
        await send({"type": "http.response.body", "body": view[start:start + _SLICE], "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive) -> None:
    """Returns when the client has gone away (the messages before are a request's body)."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _send_stream(response: StreamingResponse, send, receive) -> None:
    """Send each chunk as produced; stop producing as soon as the client goes away."""
    import asyncio

    headers = _base_headers(response.content_type, response.headers)
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    # One task for the whole stream ends when the client goes away. (A task per chunk waiting on
    # an Event was left, created and not yet run, when the server stopped after the last chunk:
    # "coroutine 'Event.wait' was never awaited".)
    gone = asyncio.ensure_future(_disconnected(receive))
    chunks = response.chunks
    try:
        while True:
            next_chunk = asyncio.ensure_future(chunks.__anext__())
            done, _ = await asyncio.wait({next_chunk, gone}, return_when=asyncio.FIRST_COMPLETED)
            if next_chunk not in done:
                next_chunk.cancel()
                return  # the client went away: nothing more to send
            try:
                chunk = next_chunk.result()
            except StopAsyncIteration:
                break
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:
        pass
    finally:
        gone.cancel()
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:
                pass

