"""Storage benchmark: writes/s, gets/s, concurrent ops/s, a range of 1,000 keys, watch latency.

    python bench/storage.py [--smoke] [--etcd etcd://HOST:PORT]

Runs against MemoryStore, SQLiteStore (a temporary file) and EtcdStore side by side: a
throwaway /usr/bin/etcd on free loopback ports with its data in a temporary directory (on
the same disk as SQLite's file), or the etcd --etcd names (a fresh one is best: the figures
include its revisions). "sqlite/other" and "etcd/other" watch latency is a watcher on a
second store, which learns about writes as another process would (SQLite: by polling).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import os
import shutil
import socket
import subprocess
import random
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from kubelite.server.storage.memory import MemoryStore  # noqa: E402
from kubelite.server.storage.sqlite import SQLiteStore  # noqa: E402
from kubelite.server.storage.etcd import EtcdStore  # noqa: E402

VALUE = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"' + b"v" * 400 + b'"}}'


def per_second(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}"


def bench_writes(store, count: int) -> dict[str, str]:
    started = time.perf_counter()
    kvs = [store.create(f"/registry/configmaps/bench/w{i:06d}", VALUE) for i in range(count)]
    creates = time.perf_counter() - started
    started = time.perf_counter()
    for kv in kvs:
        store.update(kv.key, VALUE, kv.mod_revision)
    updates = time.perf_counter() - started
    return {"create/s": per_second(count, creates), "update/s": per_second(count, updates)}


def bench_gets(store, count: int) -> dict[str, str]:
    keys = [kv.key for kv in store.range("/registry/configmaps/bench/").kvs]
    picks = [random.choice(keys) for _ in range(count)]
    started = time.perf_counter()
    for key in picks:
        store.get(key)
    return {"get/s": per_second(count, time.perf_counter() - started)}


def bench_concurrent(store, count: int, threads: int) -> dict[str, str]:
    """ops/s of a create then a get of the same key per op, from `threads` threads at once."""
    def op(i: int) -> None:
        key = f"/registry/configmaps/c{threads}/k{i:06d}"
        store.create(key, VALUE)
        store.get(key)

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        started = time.perf_counter()
        list(pool.map(op, range(count)))
        elapsed = time.perf_counter() - started
    return {f"create+get x{threads} op/s": per_second(count, elapsed)}


def bench_range(store, repeats: int) -> dict[str, str]:
    for i in range(1000):
        store.create(f"/registry/pods/ns1/p{i:04d}", VALUE)
    old = store.current_revision()
    for i in range(0, 1000, 2):  # half the keys change after `old`
        key = f"/registry/pods/ns1/p{i:04d}"
        store.update(key, VALUE, None)
    figures = {}
    for label, revision in (("range1000 current ms", 0), ("range1000 at-old-rev ms", old)):
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            result = store.range("/registry/pods/ns1/", revision=revision)
            times.append(time.perf_counter() - started)
            assert len(result.kvs) == 1000
        figures[label] = f"{statistics.median(times) * 1000:.2f}"
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        after, pages = None, 0
        while True:
            page = store.range("/registry/pods/ns1/", start_after=after, limit=100, revision=old)
            pages += 1
            if not page.more:
                break
            after = page.kvs[-1].key
        times.append(time.perf_counter() - started)
    figures["range1000 10 pages ms"] = f"{statistics.median(times) * 1000:.2f}"
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        assert store.count("/registry/pods/ns1/", start_after="/registry/pods/ns1/p0099") == 900
        times.append(time.perf_counter() - started)
    figures["count900 ms"] = f"{statistics.median(times) * 1000:.2f}"
    return figures


def bench_watch(writer, watched, count: int, tag: str) -> dict[str, str]:
    """Latency from a write call to the event arriving at a consumer thread."""
    watcher = watched.watch(f"/registry/leases/{tag}/")
    arrivals: dict[int, float] = {}
    done = threading.Event()

    def consume():
        for event in watcher:
            arrivals[event.revision] = time.perf_counter()
            if len(arrivals) == count:
                done.set()
                return

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    written: dict[int, float] = {}
    for i in range(count):
        started = time.perf_counter()
        kv = writer.create(f"/registry/leases/{tag}/l{i:05d}", b"{}")
        written[kv.mod_revision] = started
        time.sleep(0.002)  # one write at a time, as a controller would
    done.wait(30)
    watcher.close()
    latencies = sorted((arrivals[r] - t) * 1000 for r, t in written.items() if r in arrivals)
    if len(latencies) != count:
        return {"watch latency": f"lost {count - len(latencies)} of {count} events"}
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return {"watch p50 ms": f"{statistics.median(latencies):.3f}", "watch p99 ms": f"{p99:.3f}"}


def report(backend: str, figures: dict[str, str]) -> None:
    for name, value in figures.items():
        print(f"{backend:14} {name:24} {value:>12}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def throwaway_etcd(data_dir: str):
    """/usr/bin/etcd on free loopback ports with its data in `data_dir`; yields its URL (None if absent)."""
    binary = shutil.which("etcd") or "/usr/bin/etcd"
    if not os.access(binary, os.X_OK):
        yield None
        return
    client, peer = f"http://127.0.0.1:{_free_port()}", f"http://127.0.0.1:{_free_port()}"
    process = subprocess.Popen(
        [binary, "--data-dir", data_dir, "--listen-client-urls", client, "--advertise-client-urls", client,
         "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", f"default={peer}",
         "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield "etcd://" + client.removeprefix("http://")  # EtcdStore waits for it to answer
    finally:
        process.kill()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="small and fast (CI)")
    parser.add_argument("--etcd", default=None, help="an etcd to use (default: start /usr/bin/etcd if installed)")
    args = parser.parse_args()
    writes, gets, repeats, watches, ops = (200, 2000, 2, 20, 200) if args.smoke else (5000, 50000, 20, 300, 4000)
    random.seed(1)
    with tempfile.TemporaryDirectory() as tmp, throwaway_etcd(os.path.join(tmp, "etcd")) as started_etcd:
        etcd_url = args.etcd or started_etcd
        backends = {
            "memory": lambda: MemoryStore(),
            "sqlite": lambda: SQLiteStore(os.path.join(tmp, "bench.db")),
        }
        if etcd_url:
            backends["etcd"] = lambda: EtcdStore(etcd_url + "?timeout=30")
        else:
            print("etcd: not installed (apt-get install etcd-server); skipped", file=sys.stderr)
        for name, make in backends.items():
            store = make()
            try:
                report(name, bench_writes(store, writes))
                report(name, bench_gets(store, gets))
                for threads in (1, 8, 32):
                    report(name, bench_concurrent(store, ops, threads))
                report(name, bench_range(store, repeats))
                report(name, bench_watch(store, store, watches, "same"))
                if name != "memory":
                    other = make()
                    try:
                        report(f"{name}/other", bench_watch(store, other, watches, "other"))
                    finally:
                        other.close()
            finally:
                store.close()


if __name__ == "__main__":
    main()
