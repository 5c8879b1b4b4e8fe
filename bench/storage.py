"""Storage benchmark: writes/s, gets/s, a range of 1,000 keys, watch latency.

    python bench/storage.py [--smoke]

Runs against MemoryStore and SQLiteStore (a temporary file). "sqlite/other"
watch latency is a watcher on a second store opened on the same file, which
only learns about writes by polling, as another process would.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from kubelite.server.storage.memory import MemoryStore  # noqa: E402
from kubelite.server.storage.sqlite import SQLiteStore  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="small and fast (CI)")
    args = parser.parse_args()
    writes, gets, repeats, watches = (200, 2000, 2, 20) if args.smoke else (5000, 50000, 20, 300)
    random.seed(1)
    with tempfile.TemporaryDirectory() as tmp:
        backends = {
            "memory": lambda: MemoryStore(),
            "sqlite": lambda: SQLiteStore(os.path.join(tmp, "bench.db")),
        }
        for name, make in backends.items():
            store = make()
            try:
                report(name, bench_writes(store, writes))
                report(name, bench_gets(store, gets))
                report(name, bench_range(store, repeats))
                report(name, bench_watch(store, store, watches, "same"))
                if name == "sqlite":
                    other = SQLiteStore(os.path.join(tmp, "bench.db"))
                    try:
                        report("sqlite/other", bench_watch(store, other, watches, "other"))
                    finally:
                        other.close()
            finally:
                store.close()


if __name__ == "__main__":
    main()
