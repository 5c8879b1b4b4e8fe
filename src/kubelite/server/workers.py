"""`kubelite serve --workers N`: N processes serving one listening socket and one store.

One Python process runs on one core at a time (the GIL): a LIST of 1,000 objects at eight
connections left the second core idle. Several processes on one shared store (SQLite file or
etcd, as several `kubelite serve` on one store already are) serve the same socket, the kernel
handing each new connection to whichever accepts it. Every read goes to the store, so each
process answers with every write acknowledged by any of them; watches learn of the others'
writes as a second server does (SQLite: by polling, etcd: by its watch). The controllers run in
the one holding the leader Lease.

The workers are forked from the first process before it opens the store or starts a thread
(both unsafe to carry across a fork), after it has created the shared files (CA, token, the
store's tables) so that they do not race to create them. The first process is worker 0: it
writes the kubeconfig, compacts, and stops the others when it stops; a worker whose parent dies
is stopped by the kernel (PR_SET_PDEATHSIG).
"""
from __future__ import annotations

import os
import signal

_children: list[int] = []


def fork_workers(count: int) -> int:
    """Fork `count - 1` more processes; returns this process's worker index (0 for the first)."""
    for index in range(1, count):
        pid = os.fork()
        if pid == 0:
            _children.clear()
            _die_with_parent()
            return index
        _children.append(pid)
    return 0


def stop_workers(timeout: float = 10.0) -> None:
    """SIGTERM the forked workers and reap them (worker 0, on its way out)."""
    import time

    for pid in _children:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    for pid in list(_children):
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break
            if done:
                break
            if time.monotonic() >= deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.02)  # polling a child's exit: no wait-with-timeout exists for waitpid
        _children.remove(pid)


def _die_with_parent() -> None:
    """PR_SET_PDEATHSIG: SIGTERM this worker when worker 0 goes, however it goes (Linux)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent went before prctl took effect
        os._exit(0)


def prepare_shared_files(data_dir, storage: str | None) -> None:
    """Create what every worker would otherwise race to create: the data directory, CA and
    certificates, token, service-account signing key, and the store's tables."""
    from kubelite.server.auth import ensure_token
    from kubelite.server.private import private_dir
    from kubelite.server.storage import open_store
    from kubelite.server.tls import ensure_tls

    from kubelite.server.auth.signing import KEY_FILE, Signer

    private_dir(data_dir)
    ensure_tls(data_dir / "pki")
    ensure_token(data_dir)
    Signer.load_or_create(data_dir / "pki" / KEY_FILE)  # every worker signs tokens with one key
    if (storage or "").lower().startswith(("etcd://", "etcds://")):
        return  # nothing to create, and an etcd client's threads must not be forked
    store = open_store(storage or str(data_dir / "state.db"))
    store.close()


def check_storage(storage: str | None) -> None:
    """Workers need a store other processes can open: not memory."""
    if (storage or "").lower().startswith("memory"):
        raise ValueError("--workers needs a store several processes can share (a SQLite file or etcd), "
                         "not memory")
