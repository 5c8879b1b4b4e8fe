"""API server under concurrent load: every cell of issue 16's server table, measured with wrk.

    python bench/server_load.py [--smoke] [--seconds S] [--workers N] [--storage URL]
                                [--controllers C] [--only CELLS] [--before RESULTS.json] [--profile]

Starts `kubelite serve` (its default SQLite store, controllers on, as a user runs it), fills a
namespace with 1,000 labelled ConfigMaps (5 keys of 40 bytes each), then drives each cell for S
seconds with wrk (HTTPS, keep-alive, bearer token) at 1, 8 and 32 connections. Cells: GET one
object, GET as a Table, LIST of the 1,000, LIST with a label selector (100 match), LIST as a
Table, strategic PATCH of one ConfigMap, CREATE of new ConfigMaps (in another namespace, so the
LIST stays 1,000). The last line, `results: {...}`, is JSON: saved to a file it is the --before
of a later run (run the bench with PYTHONPATH=<an older checkout>/src to measure that one).

Comparison figures. There is no kube-apiserver on this machine, so the bench cannot run one
beside kubelite. The `kube-apiserver` column holds the only figures there are, from issue 16 (a
real kube-apiserver 1.32 + etcd measured with wrk on this machine kind, 1,000 ConfigMaps): LIST
at 8 connections 137 req/s, stated absolutely; GET, CREATE, PATCH, LIST at 1 connection and LIST
with a selector only as kubelite's ratio to it at the time (GET 1.5-2.4x, CREATE 1.4-2.3x, PATCH
1.9-2.8x, LIST 0.45x at 1 connection, LIST with a selector 0.8x). With --before (kubelite before
the change, measured by this bench) those cells show `~` before / the issue's least favourable
ratio: an estimate. Tables and the other connection counts have no figure (n/a). The machine is
shared: the load average is printed with each run, and figures from a loaded machine are low.

Where the time went (--profile measures it now: one LIST of the 1,000 in-process, SQLite store,
the handler called directly; figures from a machine at load average ~22 on 2 cores):
  before (1f8fbd8), the ordinary encoding: 210-270 ms a LIST (~100 ms on a quieter machine):
      per item json.loads (~30%), Go field order (goorder, ~35%), json.dumps of the whole list
      (~15%), the SQLite range (~5%). As a Table 230-245 ms: the same decoding, the printer's
      rows, and Go's field order over every row of the Table.
  encoded items (listcache) from the SQLite range: ~10 ms; most of it the range (fetchall).
  now, encoded items from the watch cache (watchcache): 2-3 ms, a dict lookup and a label check
      per item and the join. As a Table 30-40 ms: the printer's cells (ages move, so they are
      printed for every request) and encoding them; each row's object part and the decoded
      object are kept.
  One process runs Python on one core (the GIL): --workers N (several processes on one store)
  is what puts the second core to work.

Memory (issue 16: `kubelite serve` at most 150 MB per process after this bench's full load).
The bench reads VmRSS of the serving process (and of its workers, with --workers) from /proc
after the fill, right after the last cell (CREATE at 32 connections: whatever that load left,
garbage included) and 3 s later, once server/memtrim.py has given freed heap back. Where it went
(RSS after each cell, one run; tracemalloc snapshots in the server after the fill and after the
load): 43 MB at start, 50 after the fill; the cells at 32 connections added most of the rest
(GET +9, LIST +26, LIST as a Table +20, CREATE +22 MB). The largest holder left at the end was
asyncio's TLS: each connection zero-filled a 256 KiB read buffer (SSLProtocol.max_size) and each
read of decrypted data asked for 256 KiB before it was cut to the record; then the objects kept
for LISTs and Tables (listcache, encodedtable), the ~9,000 ConfigMaps the CREATE cell adds (watch
cache, the controllers' cache), and the heap of one malloc arena per request thread.
  before (2da46a0): 164 and 164 MB after the load (158 and 149 3 s later), load 3-9.
  64 KiB TLS reads (5b8a37c): 129 and 124 (128, 124), load 6-7.
  and two malloc arenas (memtrim.ARENAS): 116 (112), load ~12; 114 (113) with MALLOC_ARENA_MAX=2
      against 125 (123) without, the same tree, load 8-13.
  What remains above the 50 MB after the fill comes with the cells at 32 connections (LIST
  bodies of a megabyte, twice with TLS, and the heap they leave) and the created ConfigMaps; it
  was not broken down further.

Needs wrk (Debian package `wrk`); without it the bench says so and exits 0.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import textwrap
import time

import httpx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "server"))

NS = "bench"
OBJECTS = 1000
CONCURRENCY = (1, 8, 32)
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

# Issue 16's kube-apiserver figures: absolute where it gives one, else kubelite's ratio to it
# (the least favourable to kubelite of the range it gives; LIST's ratio is at 1 connection).
KUBE_ABSOLUTE = {("list", 8): 137.0}
KUBE_RATIO = {("get", c): 1.5 for c in CONCURRENCY} | {("create", c): 1.4 for c in CONCURRENCY} | {
    ("patch", c): 1.9 for c in CONCURRENCY} | {("list", 1): 0.45} | {("list-selector", c): 0.8 for c in CONCURRENCY}


def _cells(token: str):
    """(name, path, lua script or None, extra headers) for each cell."""
    base = f"/api/v1/namespaces/{NS}/configmaps"
    create = textwrap.dedent(f"""
        local threads = 0
        local run = tostring(os.time())
        setup = function(thread)
          threads = threads + 1
          thread:set("id", run .. "-" .. threads)
        end
        local n = 0
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        request = function()
          n = n + 1
          local body = '{{"metadata":{{"name":"c-' .. id .. '-' .. n .. '"}},"data":{{"k":"v"}}}}'
          return wrk.format(nil, "/api/v1/namespaces/{NS}-writes/configmaps", nil, body)
        end
    """)
    patch = textwrap.dedent(f"""
        local n = 0
        wrk.method = "PATCH"
        wrk.headers["Content-Type"] = "application/strategic-merge-patch+json"
        request = function()
          n = n + 1
          return wrk.format(nil, "{base}/cm-7", nil, '{{"data":{{"n":"' .. n .. '"}}}}')
        end
    """)
    return [
        ("get", f"{base}/cm-1", None, {}),
        ("get-table", f"{base}/cm-1", None, {"Accept": TABLE}),
        ("list", base, None, {}),
        ("list-selector", f"{base}?labelSelector=group%3Dg3", None, {}),
        ("list-table", base, None, {"Accept": TABLE}),
        ("patch", f"{base}/cm-7", patch, {}),
        ("create", base, create, {}),
    ]


def _wrk(url: str, token: str, connections: int, seconds: float, script: str | None, headers: dict,
         tmp: pathlib.Path) -> tuple[float, int]:
    """(requests/s, non-2xx count) of one wrk run."""
    cmd = ["wrk", "-t", str(min(connections, 2)), "-c", str(connections), "-d", f"{max(1, round(seconds))}s",
           "--timeout", "30s", "-H", f"Authorization: Bearer {token}"]
    for name, value in headers.items():
        cmd += ["-H", f"{name}: {value}"]
    if script:
        path = tmp / f"script-{abs(hash(script))}.lua"
        path.write_text(script)
        cmd += ["-s", str(path)]
    out = subprocess.run(cmd + [url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return rate, int(bad.group(1)) if bad else 0


def _fill(client: httpx.Client) -> None:
    for ns in (NS, f"{NS}-writes"):
        client.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).raise_for_status()
    data = {f"key{k}": "v" * 40 for k in range(5)}
    for i in range(OBJECTS):
        client.post(f"/api/v1/namespaces/{NS}/configmaps", json={
            "metadata": {"name": f"cm-{i}", "labels": {"group": f"g{i % 10}", "app": "bench"}},
            "data": data}).raise_for_status()


def _rss_mb(pids: list[int]) -> list[float]:
    out = []
    for pid in pids:
        try:
            for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out.append(int(line.split()[1]) / 1024)
        except OSError:
            pass
    return out


def _server_pids(root: int) -> list[int]:
    """The serving process and its children (worker processes, if any)."""
    pids = [root]
    try:
        children = pathlib.Path(f"/proc/{root}/task/{root}/children").read_text().split()
    except OSError:
        children = []
    return pids + [int(c) for c in children]


def _kube_column(cell: str, c: int, before: dict) -> str:
    if (cell, c) in KUBE_ABSOLUTE:
        return f"{KUBE_ABSOLUTE[(cell, c)]:.0f}"
    if (cell, c) in KUBE_RATIO and before.get(f"{cell}@{c}"):
        return f"~{before[f'{cell}@{c}'] / KUBE_RATIO[(cell, c)]:.0f}"
    return "n/a"


def _profile() -> None:
    """Where a LIST of 1,000 ConfigMaps spends its time, the handler called in this thread (an
    in-process HTTP client would run it in another, out of the profiler's sight): the ordinary
    encoding (what every LIST did before), encoded items read from the store, encoded items from
    the watch cache (what a LIST does now); JSON and Table. Then a cProfile of the last two."""
    import cProfile
    import pstats

    from kubelite.server import listcache
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster
    from kubelite.server.handlers import encodedlist, resources
    from kubelite.server.handlers.http import Request
    from kubelite.server.routing import Query

    path = f"/api/v1/namespaces/{NS}/configmaps"
    with tempfile.TemporaryDirectory() as tmp, \
            Cluster(f"{tmp}/state.db", clock=FakeClock(), controllers=False) as cluster, \
            cluster.http_client() as client:
        _fill(client)
        api = cluster.api
        r = api.registry.lookup("", "v1", "configmaps")
        store_reader = listcache.reader_for(api)
        for accept in ("application/json", TABLE):
            request = Request(method="GET", path=path, query=Query(b""), headers={"accept": accept})
            opts = resources.list_options(request, r)

            def ordinary():
                return resources._respond(request, r, api.list(r, NS, opts))

            def from_store():
                listcache._READERS[api] = api.store  # the store's range() without the watch cache
                try:
                    return encodedlist.respond(api, request, r, NS, opts)
                finally:
                    listcache._READERS[api] = store_reader

            def now():
                return encodedlist.respond(api, request, r, NS, opts)

            kind = "Table" if accept == TABLE else "JSON"
            for label, fn in (("ordinary encoding (before)", ordinary), ("encoded items, store range", from_store),
                              ("encoded items, watch cache (now)", now)):
                fn()  # caches fill
                start = time.perf_counter()
                for _ in range(20):
                    fn()
                print(f"profile: LIST {kind:<5} {label:<34} {(time.perf_counter() - start) / 20 * 1000:7.1f} ms")
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(20):
                now()
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(6)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="1 s per cell (CI)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=0, help="serve --workers N (0: the server's default)")
    parser.add_argument("--storage", default=None, help="serve --storage URL (default: its SQLite file)")
    parser.add_argument("--controllers", default="*", help="serve --controllers (default: all)")
    parser.add_argument("--only", default="", help="comma-separated cells to run")
    parser.add_argument("--before", default=None, help="a results JSON of an earlier run: its column")
    parser.add_argument("--profile", action="store_true", help="profile LISTs in-process, then stop")
    args = parser.parse_args()
    if args.profile:
        _profile()
        return 0
    before = json.loads(pathlib.Path(args.before).read_text()) if args.before else {}
    if shutil.which("wrk") is None:
        print("wrk is not installed (Debian package wrk): nothing measured")
        return 0
    seconds = 1.0 if args.smoke else args.seconds
    from test_serve_support import Served

    extra = [f"--controllers={args.controllers}"]
    if args.workers:
        extra.append(f"--workers={args.workers}")
    if args.storage:
        extra.append(f"--storage={args.storage}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        t0 = time.perf_counter()
        server = Served(tmp / "data", tmp / "kubeconfig", tuple(extra)).start()
        print(f"{'start to /readyz':<26} {time.perf_counter() - t0:8.3f} s   (subprocess start included)")
        try:
            with httpx.Client(base_url=server.url, verify=ssl.create_default_context(cafile=server.ca),
                              headers={"Authorization": f"Bearer {server.token}"}, timeout=60) as client:
                _fill(client)
            pids = _server_pids(server.proc.pid)
            print(f"{'RSS after fill (MiB)':<26} {' '.join(f'{m:.0f}' for m in _rss_mb(pids))}")
            print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; workers {args.workers or 1}")
            print(f"{'cell':<16}{'conns':>6}{'before':>9}{'kubelite':>10}{'kube-apiserver':>16}{'ratio':>8}"
                  "  non-2xx")
            only = set(filter(None, args.only.split(",")))
            results = {}
            for cell, path, script, headers in _cells(server.token):
                if only and cell not in only:
                    continue
                for c in CONCURRENCY:
                    rate, bad = _wrk(server.url + path, server.token, c, seconds, script, headers, tmp)
                    results[(cell, c)] = rate
                    kube = _kube_column(cell, c, before)
                    figure = float(kube.lstrip("~")) if kube != "n/a" else 0.0
                    ratio = f"{rate / figure:.2f}" if figure else ""
                    old = f"{before[f'{cell}@{c}']:.1f}" if f"{cell}@{c}" in before else "n/a"
                    print(f"{cell:<16}{c:>6}{old:>9}{rate:>10.1f}{kube:>16}{ratio:>8}  {bad}", flush=True)
            pids = _server_pids(server.proc.pid)
            print(f"{'RSS after load (MiB)':<26} {' '.join(f'{m:.0f}' for m in _rss_mb(pids))}")
            # The server gives freed heap back once the load is over (server/memtrim.py, at most
            # a second or two after it): the size it then keeps.
            time.sleep(3)
            print(f"{'RSS 3 s later (MiB)':<26} {' '.join(f'{m:.0f}' for m in _rss_mb(_server_pids(server.proc.pid)))}")
            print("results:", json.dumps({f"{k[0]}@{k[1]}": round(v, 1) for k, v in results.items()}))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
