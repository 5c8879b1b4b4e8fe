"""kubelite.client.tls, TLS on _ssl and _socket for kubelite's HTTP client: every outcome must be
the one the ssl module gives the same client (http1.Client), errors and their messages included.

A local TLS server (127.0.0.1, free port, stopped at the end) with a certificate from
kubelite.server.tls answers one request per connection: whole, or cut off mid-body without TLS's
close (a ragged end, which ssl reads as the end of the stream by default)."""
from __future__ import annotations

import socket
import ssl
import threading

import pytest

from kubelite.client import http1, tls
from kubelite.server.tls import ensure_tls, new_ca_pem

BODY = b'{"kind":"Status"}'


ACCEPTED: list[int] = []  # the client port of every connection the server accepted


def _serve(listener: socket.socket, context: ssl.SSLContext, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            raw, peer = listener.accept()
        except OSError:
            return
        ACCEPTED.append(peer[1])
        with raw:
            try:
                raw.settimeout(10)
                conn = context.wrap_socket(raw, server_side=True)
                request = conn.recv(65536)
            except (OSError, ssl.SSLError):
                continue  # the client refused the certificate: its error is what the tests compare
            size = len(BODY) + (5 if b"/ragged" in request else 0)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                         % size + BODY)
            try:
                if b"/ragged" not in request:
                    conn.unwrap()  # TLS's close, answered when the client closes its end
            except OSError:
                pass
            conn.close()  # the socket itself (ssl's close sends no TLS close)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    files = ensure_tls(tmp_path_factory.mktemp("pki"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files.server_cert, files.server_key)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()
    thread = threading.Thread(target=_serve, args=(listener, context, stop), daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{listener.getsockname()[1]}", files.ca_pem().decode()
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()


def _contexts(ca: str | None, verify: bool = True):
    """The same settings as an ssl.SSLContext and as a tls.Context."""
    theirs = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ours = tls.Context(verify=verify)
    if not verify:
        theirs.check_hostname = False
        theirs.verify_mode = ssl.CERT_NONE
    for context in (theirs, ours):
        if ca:
            context.load_verify_locations(cadata=ca)
    return theirs, ours


def _outcome(url: str, context, path: str = "/version", sni: str | None = None):
    client = http1.Client(url, ssl_context=context, timeout=10, sni=sni)
    try:
        response = client.request("GET", path)
        return response.status_code, response.content
    except http1.HTTPError as err:
        return type(err).__name__, str(err)
    finally:
        client.close()


def test_a_verified_exchange_reads_the_whole_body(server):
    url, ca = server
    outcomes = [_outcome(url, context) for context in _contexts(ca)]
    assert outcomes == [(200, BODY)] * 2


def test_an_unknown_authority_fails_the_handshake_as_with_ssl(server):
    url, _ = server
    other_ca = new_ca_pem()
    theirs, ours = (_outcome(url, c) for c in _contexts(other_ca))
    assert theirs == ours and ours[0] == "ConnectError" and "CERTIFICATE_VERIFY_FAILED" in ours[1]


def test_a_server_name_the_certificate_does_not_hold_fails_as_with_ssl(server):
    url, ca = server
    theirs, ours = (_outcome(url, c, sni="elsewhere.example") for c in _contexts(ca))
    assert theirs == ours and "Hostname mismatch" in ours[1]


def test_insecure_skips_verification(server):
    url, _ = server
    assert [_outcome(url, c) for c in _contexts(None, verify=False)] == [(200, BODY)] * 2


def test_a_body_cut_off_without_tls_close_is_a_read_error_as_with_ssl(server):
    url, ca = server
    theirs, ours = (_outcome(url, c, path="/ragged") for c in _contexts(ca))
    assert theirs == ours == ("ReadError", "peer closed connection without sending complete message body")


def test_connect_fails_as_socket_create_connection():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
    errors = []
    for connect in (socket.create_connection, lambda address, timeout: tls.connect(*address, timeout)):
        with pytest.raises(OSError) as err:
            connect(("127.0.0.1", port), timeout=5)
        errors.append((type(err.value), str(err.value)))
    assert errors[0] == errors[1] and errors[1][0] is ConnectionRefusedError


def test_connect_turns_off_nagles_delay():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        sock = tls.connect("127.0.0.1", listener.getsockname()[1], 5)
        try:
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        finally:
            sock.close()


def test_an_early_connection_with_a_session_ticket_waiting_carries_the_first_request(server):
    """TLS 1.3 servers send session tickets after the handshake: data waiting on a connection
    that has carried no request yet does not mean the server closed it."""
    import select

    url, ca = server
    client = http1.Client(url, ssl_context=_contexts(ca)[1], timeout=10)
    try:
        client.connect_early()
        early = client._early
        early.wait()
        sock = client._idle[0].sock
        assert select.select([sock], [], [], 10)[0], "no session ticket came"
        accepted = len(ACCEPTED)
        assert client.request("GET", "/version").status_code == 200
        assert len(ACCEPTED) == accepted  # no second connection
    finally:
        client.close()
