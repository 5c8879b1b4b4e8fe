"""Starting `kubelite serve` as a subprocess on a free 127.0.0.1 port, and always stopping it."""
from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from typing import Iterator

import pytest

KUBECTL = "/usr/bin/kubectl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortTaken(RuntimeError):
    pass


class Served:
    poll = 0.1  # seconds between looks at whether the server is ready (bench/server.py looks more often)

    def __init__(self, data_dir: pathlib.Path, kubeconfig: pathlib.Path, args: tuple[str, ...] = ()):
        self.data_dir = data_dir
        self.kubeconfig = kubeconfig
        self.args = tuple(args)  # more `kubelite serve` flags (--storage, --leader-elect-...)
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 30.0) -> "Served":
        # A free port can be taken by another test's server between free_port() and the bind:
        # then the server exits at once and is started again on another port.
        for _attempt in range(5):
            try:
                return self._start_once(timeout)
            except PortTaken:
                self.port = free_port()
                self.url = f"https://127.0.0.1:{self.port}"
        return self._start_once(timeout)

    def _start_once(self, timeout: float) -> "Served":
        env = dict(os.environ)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kubelite", "serve", "--data-dir", str(self.data_dir), "--port",
             str(self.port), "--write-kubeconfig", str(self.kubeconfig), *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + timeout
        context = ssl.create_default_context(cafile=None)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                stderr = self.proc.stderr.read().decode()
                if "Address already in use" in stderr:
                    self.proc.stdout.close()
                    self.proc.stderr.close()
                    raise PortTaken(stderr)
                raise RuntimeError("kubelite serve exited: " + stderr)
            if self.kubeconfig.exists():
                try:
                    context = ssl.create_default_context(cafile=str(self.data_dir / "pki" / "ca.crt"))
                    with urllib.request.urlopen(self.url + "/readyz", context=context, timeout=2) as r:
                        if r.status == 200:
                            return self
                except OSError:
                    pass
            time.sleep(self.poll)
        self.stop()
        raise RuntimeError("kubelite serve did not become ready")

    @property
    def token(self) -> str:
        return (self.data_dir / "token").read_text().strip()

    @property
    def ca(self) -> str:
        return str(self.data_dir / "pki" / "ca.crt")

    def stop(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            for stream in (self.proc.stdout, self.proc.stderr):
                stream.close()


@contextlib.contextmanager
def serving(base: pathlib.Path, *args: str) -> Iterator[Served]:
    """A started `kubelite serve` keeping its data and kubeconfig under `base`, stopped on the way out."""
    server = Served(base / "data", base / "kubeconfig", args).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A `kubelite serve` for the test module (import the fixture where it is needed)."""
    with serving(tmp_path_factory.mktemp("served")) as server:
        yield server


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A `kubelite serve` for the test module with the folder it keeps its files in: (Served, base)."""
    base = tmp_path_factory.mktemp("cluster")
    with serving(base) as server:
        yield server, base


@pytest.fixture(scope="module")
def bare_cluster(tmp_path_factory):
    """`kubelite serve --controllers=-*`, an API server alone (as the recordings made against a
    kube-apiserver without controllers): (Served, base)."""
    base = tmp_path_factory.mktemp("bare")
    with serving(base, "--controllers=-*") as server:
        yield server, base


@pytest.fixture(scope="module")
def namespaces_only_cluster(tmp_path_factory):
    """`kubelite serve --controllers=namespace`: what tests write (statuses, ReplicaSets, events)
    stays as written, and a deleted namespace still goes (so a test can make it again)."""
    with serving(tmp_path_factory.mktemp("namespaces-only"), "--controllers=namespace") as server:
        yield server


def kubectl_at(server: Served, cache_dir: pathlib.Path, *args: str,
               stdin: str | None = None) -> subprocess.CompletedProcess:
    """Real kubectl against `server`, with its discovery cache in `cache_dir`."""
    return subprocess.run([KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(cache_dir), *args],
                          input=stdin, capture_output=True, text=True, timeout=60)
