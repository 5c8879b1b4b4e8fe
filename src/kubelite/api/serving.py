"""Serving an in-process Cluster over HTTPS for the length of a `with` block.

uvicorn runs in a thread on a socket bound before it starts (a free port is known at once);
a fresh CA and serving certificate are made in a temporary directory, with the kubeconfig
that trusts them. The served app is the cluster's own, so kubectl, kopf, lightkube, kr8s or
the official client see the very objects the Python methods see.

The served API does not check the kubeconfig's token: it listens on loopback for the test
that started it. While it serves, a thread settles the controllers every few milliseconds, so
what other clients write is acted on; on a fake clock they act at `settle()` / `advance()`.
"""
from __future__ import annotations

import contextlib
import os
import pathlib
import secrets
import shutil
import tempfile
import threading
import time
from typing import Iterator

READY_SECONDS = 30.0
STOP_SECONDS = 10.0
PUMP_SECONDS = 0.01  # how often the controllers look at what served clients wrote


@contextlib.contextmanager
def serve(kube, *, address: str = "127.0.0.1", port: int = 0,
          kubeconfig: str | os.PathLike | None = None) -> Iterator[str]:
    from kubelite.server.kubeconfig import write_kubeconfig
    from kubelite.server.serve import bind
    from kubelite.server.tls import ensure_tls

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="kubelite-serve-"))
    try:
        tls = ensure_tls(workdir / "pki")
        sock = bind(address, port)
        host = f"[{address}]" if ":" in address else address
        url = f"https://{host}:{sock.getsockname()[1]}"
        path = write_kubeconfig(kubeconfig or workdir / "kubeconfig", url, tls.ca_pem(), secrets.token_hex(16))
        server = _Server(kube.cluster.app, sock, str(tls.server_cert), str(tls.server_key))
        server.start()
        pump = _Pump(kube)
        kube.kubeconfig = str(path)
        try:
            yield str(path)
        finally:
            kube.kubeconfig = None
            pump.stop()
            server.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


class _Pump:
    """Settles the cluster over and over while it serves, so what other clients write is acted
    on (a fake clock's cluster is left alone: its time and its controllers move on command)."""

    def __init__(self, kube):
        self.kube = kube
        self.stopping = threading.Event()
        self.thread = None
        if not kube.fake_clock:
            self.thread = threading.Thread(target=self._run, name="kubelite-serve-controllers", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        while not self.stopping.wait(PUMP_SECONDS):
            try:
                self.kube.settle(timeout=PUMP_SECONDS * 50)
            except Exception:  # noqa: BLE001 - a failed round is logged by the manager; the next one retries
                continue

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=STOP_SECONDS)


class _Server:
    """uvicorn in a daemon thread; `start` returns once it accepts connections."""

    def __init__(self, app, sock, certfile: str, keyfile: str):
        import uvicorn

        self.app = app
        self.sock = sock
        # lifespan off: the app's shutdown ends open watches for the whole cluster, so it is
        # called here only when serving stops (see stop), not by uvicorn
        config = uvicorn.Config(app, http="httptools", loop="asyncio", lifespan="off", ssl_certfile=certfile,
                                ssl_keyfile=keyfile, log_level="warning", access_log=False,
                                timeout_graceful_shutdown=2, server_header=False)
        self.server = uvicorn.Server(config)
        self.server.install_signal_handlers = lambda: None  # older uvicorn; newer checks the thread
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       name="kubelite-serve", daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + READY_SECONDS
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the kubelite API server did not start")
            time.sleep(0.002)  # uvicorn offers no event for "started"; this is its startup flag

    def stop(self) -> None:
        self.server.should_exit = True
        if self.server.started:
            # open watches (kubectl get -w, an operator's informers) end now instead of holding
            # the shutdown; a fresh event lets in-process watches go on after serving stops
            self.app.shutdown()
        self.thread.join(timeout=STOP_SECONDS)
        self.app.stopping = None
        self.sock.close()
