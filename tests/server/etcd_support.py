"""A throwaway etcd for tests: /usr/bin/etcd (Debian's etcd-server) on free loopback ports, with
its data in a temporary directory (on /dev/shm when it has room: no disk syncs), always stopped.

Tests that need it skip cleanly when etcd is not installed (CI installs it)."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

import httpx
import pytest

ETCD = os.environ.get("KUBELITE_TEST_ETCD") or shutil.which("etcd") or "/usr/bin/etcd"
START_TIMEOUT = 30.0


def have_etcd() -> bool:
    return os.access(ETCD, os.X_OK)


requires_etcd = pytest.mark.skipif(not have_etcd(), reason=f"etcd is not installed ({ETCD}); apt-get install etcd-server")


def _roomy(directory: str) -> bool:
    """A writable directory with room for etcd's preallocated 64MB write-ahead log, and then some."""
    try:
        stats = os.statvfs(directory)
    except OSError:
        return False
    return os.access(directory, os.W_OK) and stats.f_bavail * stats.f_frsize >= 1 << 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Etcd:
    """One etcd member. `url` is the storage URL kubelite takes (etcd://127.0.0.1:PORT)."""

    def __init__(self, data_dir: str | None = None, tls: "EtcdTLS | None" = None):
        self.tls = tls
        base = "/dev/shm" if _roomy("/dev/shm") else None
        self._owned_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="kubelite-etcd-", dir=base)
        self.client_port = free_port()
        self.peer_port = free_port()
        self.process: subprocess.Popen | None = None
        self.log = os.path.join(self.data_dir, "etcd.log")

    @property
    def endpoint(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.client_port}"

    @property
    def url(self) -> str:
        return f"etcd://127.0.0.1:{self.client_port}"

    def start(self) -> "Etcd":
        client, peer = self.endpoint, f"http://127.0.0.1:{self.peer_port}"
        secure = [] if self.tls is None else [
            "--cert-file", self.tls.server_cert, "--key-file", self.tls.server_key,
            "--client-cert-auth", "--trusted-ca-file", self.tls.ca]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [ETCD, "--name", "default", "--data-dir", os.path.join(self.data_dir, "member-data"),
                 "--listen-client-urls", client, "--advertise-client-urls", client,
                 "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                 "--initial-cluster", f"default={peer}", "--log-level", "error", *secure],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            self.wait_healthy()
        except BaseException:  # never leave an etcd behind (the `with` exits only after a start)
            self.close()
            raise
        return self

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"etcd exited with {self.process.returncode}: {self._log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.endpoint + "/health", timeout=1, verify=self._verify()).json().get("health") == "true":
                    return
            time.sleep(0.02)
        raise RuntimeError(f"etcd did not become healthy in {START_TIMEOUT}s: {self._log_tail()}")

    def _verify(self):
        if self.tls is None:
            return True
        import ssl

        context = ssl.create_default_context(cafile=self.tls.ca)
        context.load_cert_chain(self.tls.client_cert, self.tls.client_key)
        return context

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError), open(self.log, errors="replace") as f:
            return f.read()[-2000:]
        return ""

    def stop(self, sig: int = signal.SIGTERM) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)

    def close(self) -> None:
        self.stop(signal.SIGKILL)
        if self._owned_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> "Etcd":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class EtcdTLS:
    """Files for an etcd serving https that asks clients for a certificate."""

    ca: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str


def make_tls(directory) -> EtcdTLS:
    """kubelite's CA, and from it etcd's serving certificate (127.0.0.1) and a client certificate.

    etcd 3.4's JSON gateway dials etcd's own gRPC port with the serving certificate, so with
    --client-cert-auth that certificate must allow client authentication too."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    from kubelite.server.tls import CA_KEY, ensure_tls

    files = ensure_tls(directory)
    ca_cert = x509.load_pem_x509_certificate(files.ca_cert.read_bytes())
    ca_key = serialization.load_pem_private_key((files.ca_cert.parent / CA_KEY).read_bytes(), None)
    folder = files.ca_cert.parent
    server = _issue(ca_cert, ca_key, "kubelite-etcd", folder / "etcd-server", serving=True)
    client = _issue(ca_cert, ca_key, "kubelite-etcd-client", folder / "etcd-client", serving=False)
    return EtcdTLS(str(files.ca_cert), *server, *client)


def _issue(ca_cert, ca_key, name: str, path, *, serving: bool) -> tuple[str, str]:
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    usages = [ExtendedKeyUsageOID.CLIENT_AUTH] + ([ExtendedKeyUsageOID.SERVER_AUTH] if serving else [])
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(ca_cert.subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.ExtendedKeyUsage(usages), critical=False))
    if serving:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())
    cert_path, key_path = f"{path}.crt", f"{path}.key"
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture
def etcd():
    if not have_etcd():
        pytest.skip(f"etcd is not installed ({ETCD}); apt-get install etcd-server")
    with Etcd() as server:
        yield server
