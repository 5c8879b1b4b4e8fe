"""kubelite.client.http1, the small HTTP/1.1 client the CLI talks to API servers with.

A local HTTP server (127.0.0.1, free port, stopped at the end) answers with what API servers
send: sized and chunked bodies, keep-alive, connections closed between two requests, a watch
stream; the client must behave as httpx did in the same places (query encoding, line splitting,
one connection reused, errors the Transport maps to kubectl's messages).
"""
from __future__ import annotations

import http.server
import json
import threading

import pytest

from kubelite.client import http1
from kubelite.client.transport import Transport


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[dict] = []

    def log_message(self, *args):  # keep the test output clean
        pass

    def _record(self, body: bytes = b"") -> None:
        Handler.seen.append({"method": self.command, "path": self.path, "body": body,
                             "headers": self.headers.items(), "port": self.client_address[1]})

    def do_GET(self):
        self._record()
        if self.path.startswith("/watch"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            # lines split across chunks, and two lines in one chunk
            for part in (b'{"type":"ADDED"', b'}\n{"type":"MODIFIED"}\n{"type":', b'"DELETED"}\n'):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path.startswith("/close"):
            body = b'{"closing":true}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            return
        if self.path.startswith("/missing"):
            body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                               "message": 'namespaces "x" not found', "code": 404}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        body = json.dumps({"path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("ETag", '"v1"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PATCH(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self._record(body)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def server():
    Handler.seen = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def test_get_encodes_the_query_as_httpx_and_reuses_the_connection(server):
    client = http1.Client(server, headers={"User-Agent": "kubectl/test"})
    try:
        first = client.request("GET", "/api/v1/pods", params={"labelSelector": "app in (a,b)", "limit": 500,
                                                               "watch": True})
        second = client.request("GET", "/api/v1/namespaces/a b")
    finally:
        client.close()
    assert first.status_code == 200 and first.headers.get("etag") == '"v1"'
    assert first.json() == {"path": "/api/v1/pods?labelSelector=app+in+%28a%2Cb%29&limit=500&watch=true"}
    assert second.json() == {"path": "/api/v1/namespaces/a%20b"}
    assert Handler.seen[0]["port"] == Handler.seen[1]["port"]  # one keep-alive connection
    assert ("User-Agent", "kubectl/test") in Handler.seen[0]["headers"]


def test_the_early_connection_carries_the_first_request(server):
    client = http1.Client(server)
    try:
        client.connect_early()
        client.connect_early()  # once only
        assert client.request("GET", "/first").json() == {"path": "/first"}
        assert client.request("GET", "/second").json() == {"path": "/second"}
    finally:
        client.close()
    assert Handler.seen[0]["port"] == Handler.seen[1]["port"]


def test_an_early_connection_that_failed_fails_the_first_request_alike():
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        url = f"http://127.0.0.1:{taken.getsockname()[1]}"  # nobody listens there once closed
    errors = []
    for early in (False, True):
        client = http1.Client(url)
        if early:
            client.connect_early()
        with pytest.raises(http1.ConnectError) as err:
            client.request("GET", "/x")
        errors.append(str(err.value))
        client.close()
    assert errors[0] == errors[1] and "refused" in errors[0].lower()


def test_request_headers_replace_the_clients_and_repeat(server):
    client = http1.Client(server, headers={"Accept": "text/plain", "Impersonate-User": "u"})
    client.headers = client.headers + [("Impersonate-Group", "g1"), ("Impersonate-Group", "g2")]
    try:
        client.request("PATCH", "/x", content=b'{"a":1}', headers={"Accept": "application/json",
                                                                   "Content-Type": "application/merge-patch+json"})
    finally:
        client.close()
    headers = Handler.seen[0]["headers"]
    assert [v for k, v in headers if k == "Accept"] == ["application/json"]
    assert [v for k, v in headers if k == "Impersonate-Group"] == ["g1", "g2"]
    assert Handler.seen[0]["body"] == b'{"a":1}'


def test_a_connection_the_server_closed_is_replaced(server):
    client = http1.Client(server)
    try:
        assert client.request("GET", "/close").json() == {"closing": True}
        assert client.request("GET", "/after").json() == {"path": "/after"}
    finally:
        client.close()
    assert Handler.seen[0]["port"] != Handler.seen[1]["port"]


def test_chunked_stream_lines(server):
    client = http1.Client(server)
    try:
        with client.stream("GET", "/watch") as response:
            lines = list(response.iter_lines())
        after = client.request("GET", "/next")  # the chunked response left the connection usable
    finally:
        client.close()
    assert [json.loads(line)["type"] for line in lines] == ["ADDED", "MODIFIED", "DELETED"]
    assert after.json() == {"path": "/next"}
    assert Handler.seen[0]["port"] == Handler.seen[1]["port"]


def test_transport_turns_statuses_and_refusals_into_kubectl_errors(server):
    from kubelite.client.errors import ApiError, ConnectionFailed

    transport = Transport(http1.Client(server), "127.0.0.1:1", embedded=False)
    with transport:
        with pytest.raises(ApiError) as err:
            transport.json("GET", "/missing")
        assert err.value.code == 404 and err.value.reason == "NotFound"
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    refused = Transport(http1.Client(f"http://127.0.0.1:{port}"), f"127.0.0.1:{port}", embedded=False)
    with refused, pytest.raises(ConnectionFailed) as failure:
        refused.json("GET", "/api")
    assert str(failure.value) == (f"The connection to the server 127.0.0.1:{port} was refused - "
                                  f"did you specify the right host or port?")
