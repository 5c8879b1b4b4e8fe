"""API server under concurrent load: every cell of issue 16's server table, measured with wrk.

    python bench/server_load.py [--smoke] [--seconds S] [--workers N] [--storage URL] [--profile FILE]

Starts `kubelite serve` (its default SQLite store, controllers on, as a user runs it), fills a
namespace with 1,000 labelled ConfigMaps, then drives each cell for S seconds with wrk (HTTPS,
keep-alive, bearer token) at 1, 8 and 32 connections. Cells: GET one object, GET as a Table,
LIST of the 1,000, LIST with a label selector (100 match), LIST as a Table, strategic PATCH of
one ConfigMap, CREATE of new ConfigMaps (in another namespace, so the LIST stays 1,000).

Comparison figures. There is no kube-apiserver on this machine, so the bench cannot run one
beside kubelite. The `kube-apiserver` column holds the only figures it has, from issue 16 (a
real kube-apiserver 1.32 + etcd measured with wrk on this machine kind, the same 1,000
ConfigMaps): LIST at 8 connections 137 req/s, stated absolutely; every other cell is given there
only as a ratio to kubelite at that time (GET 1.5-2.4x, CREATE 1.4-2.3x, PATCH 1.9-2.8x in
kubelite's favour; LIST 0.45x at 1 connection, LIST with a selector 0.8x). For those cells the
column shows kubelite's figure before this work (BASELINE, measured by this bench at commit
1f8fbd8) divided by the issue's least favourable ratio: an estimate, marked with `~`.

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

# kubelite req/s at commit 1f8fbd8 (before issue 16's server work), this bench, 5 s per cell.
BASELINE: dict[tuple[str, int], float] = {}
# Issue 16's kube-apiserver figures: absolute where it gives one, else kubelite's ratio to it.
KUBE_ABSOLUTE = {("list", 8): 137.0}
KUBE_RATIO = {"get": 1.5, "get-table": 1.5, "create": 1.4, "patch": 1.9, "list": 0.45, "list-selector": 0.8}


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


def _kube_column(cell: str, c: int) -> str:
    if (cell, c) in KUBE_ABSOLUTE:
        return f"{KUBE_ABSOLUTE[(cell, c)]:.0f}"
    if cell in KUBE_RATIO and (cell, c) in BASELINE:
        return f"~{BASELINE[(cell, c)] / KUBE_RATIO[cell]:.0f}"
    return "n/a"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="1 s per cell (CI)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=0, help="serve --workers N (0: the server's default)")
    parser.add_argument("--storage", default=None, help="serve --storage URL (default: its SQLite file)")
    parser.add_argument("--controllers", default="*", help="serve --controllers (default: all)")
    parser.add_argument("--only", default="", help="comma-separated cells to run")
    args = parser.parse_args()
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
            print(f"{'cell':<16}{'conns':>6}{'kubelite':>11}{'kube-apiserver':>16}{'ratio':>8}  non-2xx")
            only = set(filter(None, args.only.split(",")))
            results = {}
            for cell, path, script, headers in _cells(server.token):
                if only and cell not in only:
                    continue
                for c in CONCURRENCY:
                    rate, bad = _wrk(server.url + path, server.token, c, seconds, script, headers, tmp)
                    results[(cell, c)] = rate
                    kube = _kube_column(cell, c)
                    ratio = f"{rate / float(kube.lstrip('~')):.2f}" if kube != "n/a" else ""
                    print(f"{cell:<16}{c:>6}{rate:>11.1f}{kube:>16}{ratio:>8}  {bad}", flush=True)
            pids = _server_pids(server.proc.pid)
            print(f"{'RSS after load (MiB)':<26} {' '.join(f'{m:.0f}' for m in _rss_mb(pids))}")
            print("results:", json.dumps({f"{k[0]}@{k[1]}": round(v, 1) for k, v in results.items()}))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
