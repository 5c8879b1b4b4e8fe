"""Plain HTTP sent to the HTTPS port of `kubelite serve` gets Go net/http's answer (issue 19):
`400 Bad Request` "Client sent an HTTP request to an HTTPS server." instead of a hang-up; TLS
clients are served as before on the same port."""
from __future__ import annotations

import socket
import ssl

import httpx
import pytest

from test_serve_support import serving


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("tls")) as served:
        yield served


def exchange(port: int, data: bytes, half_close: bool = False) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(4096):
            received += chunk
        return received


@pytest.mark.parametrize("request_line", [b"GET /healthz HTTP/1.1", b"POST /api/v1/namespaces HTTP/1.1",
                                          b"PUT /x HTTP/1.1", b"HEAD / HTTP/1.1", b"OPTIONS * HTTP/1.1"])
def test_plain_http_gets_go_answer(server, request_line):
    answer = exchange(server.port, request_line + b"\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer == b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"


def test_neither_tls_nor_http_is_hung_up_on(server):
    assert exchange(server.port, b"\x00\x01\x02\x03\x04\x05") == b""
    assert exchange(server.port, b"HEL", half_close=True) == b""


def test_tls_clients_still_served(server):
    context = ssl.create_default_context(cafile=server.ca)
    with httpx.Client(verify=context, headers={"Authorization": f"Bearer {server.token}"}, timeout=30) as client:
        assert client.get(f"{server.url}/healthz").text == "ok"
        assert client.get(f"{server.url}/api/v1/namespaces/default").json()["metadata"]["name"] == "default"


def test_bodies_larger_than_the_tls_read_buffer(server):
    """A request and an answer of several TLS reads each (the read buffer is 64 KiB)."""
    context = ssl.create_default_context(cafile=server.ca)
    data = {f"k{i}": "x" * 1000 for i in range(300)}  # ~300 KB
    with httpx.Client(verify=context, headers={"Authorization": f"Bearer {server.token}"}, timeout=30) as client:
        r = client.post(f"{server.url}/api/v1/namespaces/default/configmaps",
                        json={"metadata": {"name": "large-over-tls"}, "data": data})
        assert r.status_code == 201, r.text
        assert client.get(f"{server.url}/api/v1/namespaces/default/configmaps/large-over-tls").json()["data"] == data
