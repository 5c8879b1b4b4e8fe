"""serve's HTTP/1.1 protocol keeps one keep-alive timer per connection (kubelite.server.http11):
when it fires it closes the connection only after the whole timeout without a read or a response,
never under a request in flight. Driven on a real socket (plain TCP); the timer is fired by hand."""
from __future__ import annotations

import asyncio

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

import pytest
import uvicorn

from kubelite.server.handlers.http import Response
from kubelite.server.http11 import _TESTED_UVICORN, answering_protocol

pytestmark = pytest.mark.skipif(not uvicorn.__version__.startswith(_TESTED_UVICORN),
                                reason="serve keeps uvicorn's own protocol with this uvicorn")

TIMEOUT = 75.0


class _App:
    async def answer(self, request):
        return Response(status=200, body=b"ok", content_type="text/plain")


async def _never_called(scope, receive, send):
    raise AssertionError("every request here is answered at once")


async def _serve():
    config = Config(_never_called, http="httptools", lifespan="off", timeout_keep_alive=TIMEOUT,
                    access_log=False, proxy_headers=False)  # as serve configures it
    config.load()
    state = ServerState()
    protocols = []
    cls = answering_protocol(HttpToolsProtocol, _App())

    def make():
        protocol = cls(config=config, server_state=state, app_state={})
        protocols.append(protocol)
        return protocol

    server = await asyncio.get_running_loop().create_server(make, "127.0.0.1", 0)
    return server, protocols


async def _exchange(reader, writer) -> bytes:
    writer.write(b"GET /x HTTP/1.1\r\nHost: h\r\n\r\n")
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    return head + await asyncio.wait_for(reader.readexactly(2), 10)


def test_the_timer_closes_only_an_idle_connection():
    async def scenario():
        server, protocols = await _serve()
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            assert (await _exchange(reader, writer)).endswith(b"\r\n\r\nok")
            protocol = protocols[0]
            timer = protocol.timeout_keep_alive_task
            assert timer is not None and TIMEOUT - 5 < timer.when() - asyncio.get_running_loop().time() <= TIMEOUT
            assert (await _exchange(reader, writer)).endswith(b"ok")
            assert protocol.timeout_keep_alive_task is timer  # the same timer for the next request
            # it fires while the connection was active within the timeout: armed again, not closed
            timer.cancel()
            protocol.timeout_keep_alive_handler()
            assert not protocol.transport.is_closing()
            assert protocol.timeout_keep_alive_task is not None
            assert (await _exchange(reader, writer)).endswith(b"ok")
            # a whole timeout without a read or a response: closed
            protocol.timeout_keep_alive_task.cancel()
            protocol._idle_since -= TIMEOUT
            protocol.timeout_keep_alive_handler()
            assert await asyncio.wait_for(reader.read(), 10) == b""
        finally:
            writer.close()
            server.close()
            await server.wait_closed()

    asyncio.run(scenario())


def test_a_closed_connection_drops_its_timer():
    async def scenario():
        server, protocols = await _serve()
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert (await _exchange(reader, writer)).endswith(b"ok")
        timer = protocols[0].timeout_keep_alive_task
        writer.close()
        await writer.wait_closed()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while not timer.cancelled() and loop.time() < deadline:
            await asyncio.sleep(0.01)  # the server's side sees the close on a later loop turn
        assert timer.cancelled()
        server.close()
        await server.wait_closed()

    asyncio.run(scenario())
