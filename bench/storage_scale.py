"""kubelite serve on SQLite, on etcd, and three servers on one etcd; LIST cost and watch-cache memory
as the store grows.

    python bench/storage_scale.py [--smoke] [--seconds S] [--objects N] [--sizes 1000,10000,100000]
                                  [--only a,b]

(a) requests/s of GET one ConfigMap, LIST of the namespace's N (default 1,000), strategic PATCH
    (each client thread its own ConfigMap) and CREATE (into another namespace, so the LIST keeps
    its size), at 1 and 8 concurrent clients, side by side against: one `kubelite serve` on SQLite,
    one on etcd, and three on one etcd with the load spread over the three (each client sends its
    requests to the servers in turn). The clients are threads of this process, each with one
    keep-alive HTTPS connection (http.client) per server; they share this process's GIL and the
    machine's cores with the servers and etcd, the same way in every column.
(b) how the time of a full LIST (JSON, from the watch cache) grows with the number of
    ConfigMaps held by one server (SQLite): 1,000, 10,000, 100,000 (--smoke: 1,000 and 5,000).
(c) the server's RSS per 10,000 ConfigMaps held: its RSS once it has read them all into its
    watch cache (a LIST with a label selector no object matches: the cache and the encoded items
    are filled, no large answer is made) minus its RSS before any was stored, per 10,000.

Servers run `--controllers=-*` (an API server alone: what is measured is serving and storage).
Every store (SQLite file, etcd data) is in a temporary directory on /dev/shm when it has room, so
there are no disk syncs: the figures are the servers' and etcd's CPU, not the disk's. Objects
beyond the few written through the API are written straight into the store as the API server
stores them (a ConfigMap made through the API, copied with new names and uids), which is what
makes 100,000 quick to load. The machine is shared: the load average is printed with the figures.
Needs /usr/bin/etcd for the etcd columns (without it they say n/a).

What the first full run showed (2 shared cores, load average 4.3-5.5; 131 s):
  (a)            sqlite x1   etcd x1   etcd x3      req/s at 1 / 8 clients
      get        1009/1453   342/351   204/227
      list        225/288    107/157   110/126
      patch       358/461     48/46     40/41
      create      469/537     39/41     54/40
  A write through the server on etcd is 10 etcd round trips (3 ranges, 6 count-only reads of the
  current revision: two per read through the watch cache, whose admission reads namespaces,
  quotas and limit ranges; 1 txn); a LIST 4 (1 range, 3 revision reads); a GET 1. Three servers
  on two busy cores do not add throughput: the cores, not a server, are the limit.
  (b) full LIST: 1,000 3.7 ms, 10,000 36 ms (3.6 ms a thousand), 45,000 407 ms, then 55,000 7.0 s
      and 100,000 7.8 s: past the encoded-items cache's old bound (50,000 entries) the items were
      dropped as they filled, so every LIST decoded and encoded every item again (~20x a
      thousand). The bound is now listcache.MAX_BYTES (256 MiB of encoded items): 100,000
      ConfigMaps like these fit.
  (c) 20-28 MiB of RSS per 10,000 ConfigMaps held (1,000: 28, 10,000: 27, 100,000: 20), a
      ConfigMap here being ~700 bytes of JSON in a LIST.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import http.client
import json
import os
import pathlib
import ssl
import statistics
import sys
import tempfile
import threading
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "server"))

NS, WRITES = "bench", "bench-writes"
CONCURRENCY = (1, 8)
CELLS = ("get", "list", "patch", "create")
START_TIMEOUT = 180.0  # a server start on a busy machine


# -- servers -------------------------------------------------------------------------------------

def _drain(served) -> None:
    """Read a server's output as it comes (a full pipe would stall it)."""
    def read(stream):
        with contextlib.suppress(OSError, ValueError):
            for _line in iter(stream.readline, b""):
                pass

    for stream in (served.proc.stdout, served.proc.stderr):
        threading.Thread(target=read, args=(stream,), daemon=True).start()


def start_servers(stack: contextlib.ExitStack, base: pathlib.Path, storages: list[tuple[str, str]]) -> dict:
    """Start one `kubelite serve --controllers=-*` per (name, storage URL), all at once; name -> Served."""
    from test_serve_support import Served

    servers = {name: Served(base / name, base / f"{name}.kubeconfig", ("--controllers=-*", f"--storage={url}",
                                                                        "--etcd-compaction-interval=0"))
               for name, url in storages}
    for served in servers.values():
        stack.callback(served.stop)
    with concurrent.futures.ThreadPoolExecutor(len(servers)) as pool:
        for future in [pool.submit(served.start, START_TIMEOUT) for served in servers.values()]:
            future.result()
    for served in servers.values():
        _drain(served)
    return servers


def rss_mib(pid: int) -> float:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Conn:
    """One keep-alive HTTPS connection to a server, with its bearer token."""

    def __init__(self, served):
        self.port = served.port
        self.context = ssl.create_default_context(cafile=served.ca)
        self.headers = {"Authorization": f"Bearer {served.token}", "Accept": "application/json"}
        self.conn = self._connect()

    def _connect(self):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=300)

    def request(self, method: str, path: str, body: dict | None = None,
                ctype: str = "application/json") -> tuple[int, bytes]:
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = ctype
        try:
            self.conn.request(method, path, data, headers)
            response = self.conn.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            self.conn = self._connect()
            return 0, b""

    def close(self) -> None:
        self.conn.close()


# -- objects -------------------------------------------------------------------------------------

def configmap(name: str, i: int = 0) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"group": f"g{i % 10}", "app": "bench"}},
            "data": {f"key{k}": "v" * 40 for k in range(5)}}


def prepare(storage: str) -> dict:
    """Namespaces and one ConfigMap made through the API (in-process, on `storage`); returns the
    stored form of that ConfigMap, the template of the ones written straight into the store."""
    from kubelite.server.cluster import Cluster

    with Cluster(storage, controllers=False) as cluster, cluster.http_client() as client:
        for ns in (NS, WRITES):
            client.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).raise_for_status()
        client.post(f"/api/v1/namespaces/{NS}/configmaps", json=configmap("template")).raise_for_status()
        stored = json.loads(cluster.store.get(f"/registry/core/configmaps/{NS}/template").value)
        cluster.store.delete(f"/registry/core/configmaps/{NS}/template")
        return stored


def fill(storage: str, template: dict, first: int, last: int, threads: int = 1) -> float:
    """Write ConfigMaps cm-FIRST .. cm-(LAST-1) straight into the store; returns the seconds taken."""
    from kubelite.server.storage import open_store

    store = open_store(storage)
    meta = template["metadata"]

    def write(i: int) -> None:
        name = f"cm-{i}"
        obj = {**template, "metadata": {**meta, "name": name, "uid": str(uuid.uuid4()),
                                        "labels": {"group": f"g{i % 10}", "app": "bench"}}}
        store.create(f"/registry/core/configmaps/{NS}/{name}", json.dumps(obj, separators=(",", ":")).encode())

    began = time.perf_counter()
    try:
        if threads == 1:
            for i in range(first, last):
                write(i)
        else:
            with concurrent.futures.ThreadPoolExecutor(threads) as pool:
                list(pool.map(write, range(first, last)))
    finally:
        store.close()
    return time.perf_counter() - began


# -- (a) requests/s ------------------------------------------------------------------------------

def _operation(cell: str, objects: int, run: str):
    base = f"/api/v1/namespaces/{NS}/configmaps"

    def op(t: int, k: int) -> tuple[str, str, dict | None, str]:
        if cell == "get":
            return "GET", f"{base}/cm-{(t * 7919 + k * 31) % objects}", None, ""
        if cell == "list":
            return "GET", base, None, ""
        if cell == "patch":
            return "PATCH", f"{base}/cm-{t}", {"data": {"n": str(k)}}, "application/strategic-merge-patch+json"
        return "POST", f"/api/v1/namespaces/{WRITES}/configmaps", configmap(f"c-{run}-{t}-{k}"), "application/json"

    return op


def drive(servers: list, cell: str, concurrency: int, seconds: float, objects: int,
          run: str) -> tuple[float, collections.Counter]:
    """(requests/s, failed requests by status and reason) of `concurrency` threads for `seconds`, each sending its
    requests to the servers in turn over one connection per server."""
    op = _operation(cell, objects, run)
    conns = [[Conn(s) for s in servers] for _ in range(concurrency)]
    ready = threading.Barrier(concurrency + 1)
    done = [0] * concurrency
    failed = collections.Counter()
    stop_at = [0.0]

    def worker(t: int) -> None:
        mine = conns[t]
        for c in mine:  # connect (TLS) before the clock starts
            c.request("GET", "/version")
        ready.wait()
        k = 0
        while time.perf_counter() < stop_at[0]:
            method, path, body, ctype = op(t, k)
            status, answer = mine[(t + k) % len(mine)].request(method, path, body, ctype)
            if 200 <= status < 300:
                done[t] += 1
            else:
                failed[_failure(status, answer)] += 1
            k += 1

    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(concurrency)]
    for thread in threads:
        thread.start()
    stop_at[0] = time.perf_counter() + 3600
    ready.wait()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    for row in conns:
        for c in row:
            c.close()
    return sum(done) / elapsed, failed


def _failure(status: int, answer: bytes) -> str:
    """A failed request in a few words: its status and Status reason (0: no answer)."""
    try:
        reason = json.loads(answer).get("reason", "")
    except ValueError:
        reason = ""
    return f"{status} {reason}".strip() if status else "no answer"


def part_a(stack, base: pathlib.Path, args, etcd_url: str | None) -> None:
    print(f"(a) requests/s, {args.objects:,} ConfigMaps in the listed namespace, {args.seconds:g} s a cell; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    sqlite_url = f"sqlite:{base / 'a-sqlite.db'}"
    stores = [("sqlite", sqlite_url)] + ([("etcd", etcd_url)] if etcd_url else [])
    for name, url in stores:
        template = prepare(url)
        seconds = fill(url, template, 0, args.objects, threads=1 if name == "sqlite" else 8)
        print(f"    {name}: {args.objects:,} ConfigMaps written into the store in {seconds:.1f} s")
    names = [("sqlite", sqlite_url)] + ([(f"etcd-{i}", etcd_url) for i in range(3)] if etcd_url else [])
    began = time.perf_counter()
    servers = start_servers(stack, base, names)
    print(f"    {len(servers)} servers started together in {time.perf_counter() - began:.1f} s")
    columns = [("sqlite x1", [servers["sqlite"]])]
    if etcd_url:
        columns += [("etcd x1", [servers["etcd-0"]]), ("etcd x3", [servers[f"etcd-{i}"] for i in range(3)])]
    for _, group in columns:  # each server's watch cache and encoded items filled before measuring
        for served in group:
            conn = Conn(served)
            for cell in CELLS[:2]:
                method, path, body, ctype = _operation(cell, args.objects, "warm")(0, 0)
                status, _ = conn.request(method, path, body, ctype)
                assert status == 200, (served.url, path, status)
            conn.close()
    header = "".join(f"{label:>12}" for label, _ in columns)
    print(f"    {'request':<8}{'clients':>8}{header}   (etcd columns n/a without /usr/bin/etcd)")
    failures = []
    run = uuid.uuid4().hex[:6]
    for cell in CELLS:
        for c in CONCURRENCY:
            cells = []
            for label, group in columns:
                rate, failed = drive(group, cell, c, args.seconds, args.objects, f"{run}{label[0]}{len(group)}x{c}")
                cells.append(f"{rate:>12.1f}")
                if failed:
                    failures.append(f"{cell} x{c} on {label}: "
                                    + ", ".join(f"{n} {what}" for what, n in failed.most_common()))
            cells += [f"{'n/a':>12}"] * (3 - len(columns))
            print(f"    {cell:<8}{c:>8}{''.join(cells)}", flush=True)
    for failure in failures:
        print(f"    non-2xx or errors: {failure}")
    print(f"    load average after (a): {os.getloadavg()[0]:.1f}")


# -- (b) and (c) list cost and memory as the store grows ------------------------------------------

def part_bc(stack, base: pathlib.Path, args) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"(b) full LIST from the watch cache and (c) RSS, one server on SQLite; "
          f"load average {os.getloadavg()[0]:.1f}")
    url = f"sqlite:{base / 'b-sqlite.db'}"
    template = prepare(url)
    served = start_servers(stack, base, [("grow", url)])["grow"]
    conn = Conn(served)
    path = f"/api/v1/namespaces/{NS}/configmaps"
    nothing = f"{path}?labelSelector=app%3Dnone"

    def selector_list() -> float:
        began = time.perf_counter()
        status, body = conn.request("GET", nothing)
        assert status == 200, body[:300]
        return time.perf_counter() - began

    conn.request("GET", f"/api/v1/namespaces/{NS}/secrets")  # code paths warmed
    selector_list()  # the ConfigMaps' watch cache exists, empty
    before = rss_mib(served.proc.pid)
    print(f"    RSS with no ConfigMaps (cache of none): {before:.0f} MiB")
    print(f"    {'objects':>8} {'load s':>7} {'1st LIST s':>10} {'LIST ms':>9} {'ms/1k':>7} {'MiB':>6}"
          f" {'RSS MiB':>8} {'RSS/10k MiB':>11} {'RSS after LISTs':>15}")
    stored = 0
    for size in sizes:
        loaded = fill(url, template, stored, size)
        stored = size
        first = selector_list()  # catches up with the store: every object in the cache
        held = rss_mib(served.proc.pid)
        repeats = 3 if size > 20_000 or args.smoke else 5
        times, length = [], 0
        for _ in range(repeats):
            began = time.perf_counter()
            status, body = conn.request("GET", path)
            times.append(time.perf_counter() - began)
            assert status == 200, body[:300]
            length = len(body)
        items = body.count(b'"uid":')
        assert items == size, (items, size)
        del body
        median = statistics.median(times)
        per_10k = (held - before) / size * 10_000
        print(f"    {size:>8,} {loaded:>7.1f} {first:>10.2f} {median * 1000:>9.1f} {median * 1e6 / size:>7.2f}"
              f" {length / 2**20:>6.1f} {held:>8.0f} {per_10k:>11.1f} {rss_mib(served.proc.pid):>15.0f}", flush=True)
    conn.close()
    print("    load s: writing the objects straight into the store; 1st LIST: the server catching up "
          "(a selector LIST matching nothing); LIST: median full LIST, client-side, answer read whole")
    print(f"    load average after (b): {os.getloadavg()[0]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="short cells, small sizes (CI)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per (a) cell")
    parser.add_argument("--objects", type=int, default=1000, help="ConfigMaps in (a)'s listed namespace")
    parser.add_argument("--sizes", default="1000,10000,100000", help="(b)'s store sizes")
    parser.add_argument("--only", default="a,b", help="parts to run: a, b")
    args = parser.parse_args()
    if args.smoke:
        args.seconds, args.sizes = min(args.seconds, 0.3), "1000,5000"
    parts = set(args.only.split(","))
    from etcd_support import Etcd, have_etcd

    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) and _room("/dev/shm") >= 2 << 30 else None
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kubelite-bench-", dir=shm) as tmp, contextlib.ExitStack() as stack:
        base = pathlib.Path(tmp)
        if "a" in parts:
            etcd_url = None
            if have_etcd():
                (base / "etcd").mkdir()
                etcd_url = stack.enter_context(Etcd(data_dir=str(base / "etcd"))).url
            else:
                print("etcd is not installed (apt-get install etcd-server): its columns are n/a")
            part_a(stack, base, args, etcd_url)
            stack.close()  # the (a) servers and etcd stop before (b)
        if "b" in parts:
            part_bc(stack, base, args)
    print(f"total {time.perf_counter() - began:.0f} s")
    return 0


def _room(directory: str) -> int:
    stats = os.statvfs(directory)
    return stats.f_bavail * stats.f_frsize


if __name__ == "__main__":
    raise SystemExit(main())
