"""serve's HTTP/1.1 protocol (kubelite.server.http11) as raw clients use it over TLS: pipelined
requests answered in order whichever way each is answered (at once, or after the app waits),
bodies by Content-Length in one read or several, chunked bodies, Expect: 100-continue, HEAD,
HTTP/1.0, keep-alive across many requests."""
from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import time

import pytest

from test_serve_support import serving


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("http11"), "--controllers=-*") as served:
        yield served


def connect(server) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=server.ca)
    raw = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    return context.wrap_socket(raw, server_hostname="127.0.0.1")


class Reader:
    """Responses read off a socket one after the other (Content-Length or chunked bodies)."""

    def __init__(self, sock):
        self.file = sock.makefile("rb")

    def response(self, head_only: bool = False) -> tuple[int, dict[str, str], bytes]:
        status_line = self.file.readline()
        assert status_line.startswith(b"HTTP/1.1 "), status_line
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := self.file.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if head_only or status in (100, 204):
            return status, headers, b""
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int(self.file.readline().strip(), 16):
                body += self.file.read(size)
                self.file.readline()
            self.file.readline()
            return status, headers, body
        return status, headers, self.file.read(int(headers["content-length"]))


def request(method: str, path: str, token: str, body: bytes | None = None, *, extra: str = "",
            version: str = "1.1") -> bytes:
    head = f"{method} {path} HTTP/{version}\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n{extra}"
    if body is not None and "chunked" not in extra:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + (body or b"")


def secret(name: str) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
                       "stringData": {"k": "v"}}).encode()


def test_pipelined_requests_are_answered_in_order(server):
    # /metrics waits (it counts objects in a thread), the others are answered at once
    paths = ["/version", "/metrics", "/version", "/api/v1/namespaces/default/secrets/nope", "/livez"]
    with connect(server) as sock:
        sock.sendall(b"".join(request("GET", p, server.token) for p in paths))
        reader = Reader(sock)
        answers = [reader.response() for _ in paths]
    assert [status for status, _, _ in answers] == [200, 200, 200, 404, 200]
    assert json.loads(answers[0][2])["major"] == json.loads(answers[2][2])["major"]
    assert b"apiserver_request_total" in answers[1][2] or answers[1][1]["content-type"].startswith("text/plain")
    assert json.loads(answers[3][2])["reason"] == "NotFound"
    assert answers[4][2] == b"ok"


def test_many_requests_on_one_connection_keep_it_alive(server):
    with connect(server) as sock:
        reader = Reader(sock)
        for i in range(50):
            sock.sendall(request("POST", "/api/v1/namespaces/default/secrets?dryRun=All", server.token,
                                 secret(f"many-{i}")))
            status, headers, body = reader.response()
            assert status == 201, body
            assert "date" in headers and "audit-id" in headers
            assert json.loads(body)["metadata"]["name"] == f"many-{i}"


def test_a_body_arriving_after_its_head(server):
    body = secret("late-body")
    with connect(server) as sock:
        sock.sendall(request("POST", "/api/v1/namespaces/default/secrets", server.token, body)[:-len(body)])
        sock.sendall(body[:10])
        sock.sendall(body[10:])
        status, _, answer = Reader(sock).response()
    assert status == 201, answer
    assert json.loads(answer)["metadata"]["name"] == "late-body"


def test_a_chunked_body(server):
    body = secret("chunked-body")
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:7], body[7:])) + b"0\r\n\r\n"
    with connect(server) as sock:
        sock.sendall(request("POST", "/api/v1/namespaces/default/secrets", server.token, b"",
                             extra="Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n") + chunks)
        status, _, answer = Reader(sock).response()
    assert status == 201, answer
    assert json.loads(answer)["metadata"]["name"] == "chunked-body"


def test_expect_100_continue(server):
    body = secret("expecting")
    with connect(server) as sock:
        sock.sendall(request("POST", "/api/v1/namespaces/default/secrets", server.token, body,
                             extra="Expect: 100-continue\r\n")[:-len(body)])
        reader = Reader(sock)
        status, _, _ = reader.response()
        assert status == 100
        sock.sendall(body)
        status, _, answer = reader.response()
    assert status == 201, answer


def test_head_has_no_body_and_the_connection_goes_on(server):
    with connect(server) as sock:
        sock.sendall(request("HEAD", "/version", server.token) + request("GET", "/version", server.token))
        reader = Reader(sock)
        status, headers, _ = reader.response(head_only=True)
        assert status == 405
        assert int(headers["content-length"]) > 0
        status, _, body = reader.response()
    assert status == 200 and json.loads(body)["major"]


def test_http_1_0_is_answered_and_closed(server):
    with connect(server) as sock:
        sock.sendall(request("GET", "/version", server.token, version="1.0"))
        reader = Reader(sock)
        status, headers, body = reader.response()
        assert status == 200 and json.loads(body)["major"]
        assert headers["connection"] == "close"
        assert reader.file.read() == b""  # the server closed the connection


def test_connection_close_is_honoured(server):
    with connect(server) as sock:
        sock.sendall(request("GET", "/livez", server.token, extra="Connection: close\r\n"))
        reader = Reader(sock)
        status, headers, body = reader.response()
        assert (status, body, headers["connection"]) == (200, b"ok", "close")
        assert reader.file.read() == b""


def test_a_watch_streams_then_the_connection_serves_again(server):
    with connect(server) as sock:
        sock.sendall(request("GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", server.token)
                     + request("GET", "/livez", server.token))
        reader = Reader(sock)
        status, headers, _ = reader.response()
        assert status == 200 and headers["transfer-encoding"] == "chunked"
        status, _, body = reader.response()
    assert (status, body) == (200, b"ok")


def test_a_bad_request_line_gets_400(server):
    with connect(server) as sock:
        sock.sendall(b"GET /version HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n")
        status, _, _ = Reader(sock).response()
    assert status == 400


def test_an_untested_uvicorn_keeps_its_own_protocol(monkeypatch):
    # The short way leans on uvicorn's protocol internals: with a release it was not tested
    # against, serve answers through uvicorn's protocol alone.
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from kubelite.server import http11

    monkeypatch.setattr(http11, "_TESTED_UVICORN", ("0.0.",))
    assert http11.answering_protocol(HttpToolsProtocol, object()) is HttpToolsProtocol
    monkeypatch.undo()
    assert http11.answering_protocol(HttpToolsProtocol, object()) is not HttpToolsProtocol


def _sync_process(server) -> int:
    """The pid of serve's child that fsyncs the store's log for the event loop's writes (started
    at the loop's first storage request)."""
    deadline = time.monotonic() + 30
    with connect(server) as sock:
        sock.sendall(request("GET", "/api/v1/namespaces/default/secrets/nope", server.token))
        assert Reader(sock).response()[0] == 404
    while time.monotonic() < deadline:
        found = _child_with_flags(server.proc.pid, b"-I", b"-S")
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError("serve has no sync process")


def _child_with_flags(parent_pid: int, *flags: bytes) -> int | None:
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if parent == parent_pid and all(flag in argv for flag in flags):
            return int(entry)
    return None


def test_a_write_whose_disk_wait_outlasts_the_request_timeout_gets_504_and_lands(tmp_path):
    # The loop's writes wait for the child's fsync: stopped, it holds a create past the server's
    # --request-timeout (a ?timeout= of the request's own sends it to a thread, which syncs by
    # itself). Until the child has said it is ready the syncer thread syncs instead: a create is
    # then answered at once, and the attempt is made again.
    with serving(tmp_path, "--controllers=-*", "--request-timeout=1s") as server:
        child = _sync_process(server)
        deadline = time.monotonic() + 60
        with connect(server) as sock:
            reader = Reader(sock)
            attempt = 0
            while True:
                attempt += 1
                name = f"held-{attempt}"
                os.kill(child, signal.SIGSTOP)
                try:
                    sock.sendall(request("POST", "/api/v1/namespaces/default/secrets", server.token, secret(name)))
                    status, _, body = reader.response()
                finally:
                    os.kill(child, signal.SIGCONT)
                if status != 201 or time.monotonic() > deadline:
                    break
            assert status == 504, body
            answer = json.loads(body)
            assert answer["reason"] == "Timeout"
            assert answer["message"] == ("Timeout: request did not complete within requested timeout - "
                                         "context deadline exceeded")
            # the write itself was made, as kube-apiserver's that times out waiting for etcd may be
            sock.sendall(request("GET", f"/api/v1/namespaces/default/secrets/{name}", server.token))
            status, _, body = reader.response()
            assert status == 200, body
            sock.sendall(request("POST", "/api/v1/namespaces/default/secrets", server.token,
                                 secret(f"{name}-after")))
            status, _, body = reader.response()
            assert status == 201, body
