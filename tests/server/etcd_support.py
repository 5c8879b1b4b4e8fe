"""A throwaway etcd for tests: /usr/bin/etcd (Debian's etcd-server) on free loopback ports, with
its data in a temporary directory (on /dev/shm when there is one: no disk syncs), always stopped.

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

import httpx
import pytest

ETCD = os.environ.get("KUBELITE_TEST_ETCD") or shutil.which("etcd") or "/usr/bin/etcd"
START_TIMEOUT = 30.0


def have_etcd() -> bool:
    return os.access(ETCD, os.X_OK)


requires_etcd = pytest.mark.skipif(not have_etcd(), reason=f"etcd is not installed ({ETCD}); apt-get install etcd-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Etcd:
    """One etcd member. `url` is the storage URL kubelite takes (etcd://127.0.0.1:PORT)."""

    def __init__(self, data_dir: str | None = None):
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self._owned_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="kubelite-etcd-", dir=base)
        self.client_port = free_port()
        self.peer_port = free_port()
        self.process: subprocess.Popen | None = None
        self.log = os.path.join(self.data_dir, "etcd.log")

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.client_port}"

    @property
    def url(self) -> str:
        return f"etcd://127.0.0.1:{self.client_port}"

    def start(self) -> "Etcd":
        client, peer = f"http://127.0.0.1:{self.client_port}", f"http://127.0.0.1:{self.peer_port}"
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [ETCD, "--name", "default", "--data-dir", os.path.join(self.data_dir, "member-data"),
                 "--listen-client-urls", client, "--advertise-client-urls", client,
                 "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                 "--initial-cluster", f"default={peer}", "--log-level", "error"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_healthy()
        return self

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"etcd exited with {self.process.returncode}: {self._log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.endpoint + "/health", timeout=1).json().get("health") == "true":
                    return
            time.sleep(0.02)
        raise RuntimeError(f"etcd did not become healthy in {START_TIMEOUT}s: {self._log_tail()}")

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


@pytest.fixture
def etcd():
    if not have_etcd():
        pytest.skip(f"etcd is not installed ({ETCD}); apt-get install etcd-server")
    with Etcd() as server:
        yield server
