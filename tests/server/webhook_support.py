"""Admission webhook servers for tests: a test CA, a server certificate from it, and a tiny
HTTPS server on 127.0.0.1 whose answers a test scripts. Always shut down (context manager)."""
from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import pathlib
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


def make_certificates(directory: pathlib.Path, hostnames=("localhost",), ips=("127.0.0.1",),
                      ca_name: str = "webhook test CA") -> dict:
    """A CA and a server certificate it signed for `hostnames`/`ips`: paths and the CA's
    caBundle (base64 PEM, as a webhook configuration holds it)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ca_name)])
    ca_cert = (x509.CertificateBuilder().subject_name(ca_subject).issuer_name(ca_subject)
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                            crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
               .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName(h) for h in hostnames] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, (list(hostnames) or ["server"])[0])]))
            .issuer_name(ca_subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    directory.mkdir(parents=True, exist_ok=True)
    ca_pem = ca_cert.public_bytes(serialization.Encoding.PEM)
    paths = {"ca": directory / "ca.crt", "cert": directory / "tls.crt", "key": directory / "tls.key"}
    paths["ca"].write_bytes(ca_pem)
    paths["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    return {**paths, "ca_bundle": base64.b64encode(ca_pem).decode()}


def allow(review: dict, **response) -> dict:
    """An AdmissionReview answer to `review` (allowed unless the response says otherwise)."""
    answer = {"uid": review["request"]["uid"], "allowed": True, **response}
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": answer}


def deny(review: dict, message: str, code: int = 403, **extra) -> dict:
    return allow(review, allowed=False, status={"message": message, "code": code, **extra})


def json_patch(review: dict, ops: list, **response) -> dict:
    return allow(review, patchType="JSONPatch", patch=base64.b64encode(json.dumps(ops).encode()).decode(),
                 **response)


class WebhookServer:
    """HTTPS on 127.0.0.1: each POST is recorded (path, AdmissionReview) and answered by
    `answer(path, review)`, which returns a dict (sent as JSON), (status, content_type, bytes), or
    "trickle" (an answer that never completes)."""

    def __init__(self, certificates: dict, answer: Callable[[str, dict], object]):
        self.answer = answer
        self.requests: list[tuple[str, dict]] = []
        self.released = threading.Event()  # ends any answer that waits (a "slow" webhook)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as webhook servers do
            disable_nagle_algorithm = True  # headers and body go out at once

            def do_POST(self):  # noqa: N802 (http.server's name)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    review = json.loads(raw)
                except ValueError:
                    review = {"raw": raw.decode("utf-8", "replace")}
                outer.requests.append((self.path, review))
                result = outer.answer(self.path, review)
                if result == "trickle":
                    self._trickle()
                    return
                if isinstance(result, tuple):
                    status, content_type, body = result
                else:
                    status, content_type, body = 200, "application/json", json.dumps(result).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the API server gave up (timeout) and closed the connection

            def _trickle(self):
                """Headers at once, then one byte of the body every 0.2 s until the test ends: each
                read is quick, the whole answer never completes."""
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    self.wfile.write(b"{")
                    while not outer.released.wait(0.2):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                except OSError:
                    pass  # the API server gave up and closed the connection

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(certificates["cert"]), str(certificates["key"]))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "WebhookServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=10)

    def reviews(self, path: str | None = None) -> list[dict]:
        return [review for p, review in self.requests if path is None or p.split("?")[0] == path]


def webhook_configuration(kind: str, name: str, hooks: list[dict]) -> dict:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name},
            "webhooks": hooks}


def hook(name: str, url: str, ca_bundle: str, resources=("configmaps",), operations=("CREATE", "UPDATE"),
         **fields) -> dict:
    """One webhook entry calling `url` for core/v1 `resources`."""
    return {"name": name, "clientConfig": {"url": url, "caBundle": ca_bundle},
            "rules": [{"operations": list(operations), "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": list(resources)}],
            "sideEffects": "None", "admissionReviewVersions": ["v1"], **fields}
