"""API server benchmark: start-to-/readyz, idle RSS, requests/s over HTTPS keep-alive and in-process.

Usage: python bench/server.py [--smoke]. Prints figures only.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import ssl
import sys
import tempfile
import time

import httpx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "server"))


def _rss_kb(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _rate(label: str, n: int, fn) -> None:
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    elapsed = time.perf_counter() - start
    print(f"{label:<34} {n / elapsed:10.1f} req/s")


def _workload(client: httpx.Client, door: str, n: int, list_size: int) -> None:
    ns = "/api/v1/namespaces/default/configmaps"
    tag = f"{door}-{time.monotonic_ns()}"
    _rate(f"{door} create", n, lambda i: client.post(ns, json={"metadata": {"name": f"{tag}-c{i}"}}).raise_for_status())
    _rate(f"{door} get", n, lambda i: client.get(f"{ns}/{tag}-c{i % n}").raise_for_status())
    have = n
    for i in range(have, list_size):
        client.post(ns, json={"metadata": {"name": f"{tag}-c{i}"}}).raise_for_status()
    _rate(f"{door} list ({list_size} objects)", max(3, n // 20),
          lambda i: client.get(ns, params={"labelSelector": ""}).raise_for_status())
    deps = "/apis/apps/v1/namespaces/default/deployments"
    client.post(deps, json={"metadata": {"name": tag}, "spec": {
        "selector": {"matchLabels": {"app": "b"}},
        "template": {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
                ).raise_for_status()
    _rate(f"{door} strategic patch", n, lambda i: client.patch(
        f"{deps}/{tag}", content=json.dumps({"spec": {"replicas": i % 5 + 1}}),
        headers={"content-type": "application/strategic-merge-patch+json"}).raise_for_status())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small and quick (CI)")
    args = parser.parse_args()
    n, list_size = (20, 50) if args.smoke else (300, 1000)
    from test_serve_support import Served

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        t0 = time.perf_counter()
        server = Served(tmp / "data", tmp / "kubeconfig").start()
        print(f"{'start to /readyz (first start)':<34} {time.perf_counter() - t0:10.3f} s")
        try:
            time.sleep(0.5)
            print(f"{'idle RSS':<34} {_rss_kb(server.proc.pid) / 1024:10.1f} MiB")
            with httpx.Client(base_url=server.url, verify=ssl.create_default_context(cafile=server.ca),
                              headers={"Authorization": f"Bearer {server.token}"}, timeout=30) as client:
                _workload(client, "https", n, list_size)
        finally:
            server.stop()

        from kubelite.server.app import create_app
        from kubelite.server.core import APIServer
        from kubelite.server.inprocess import InProcessTransport
        from kubelite.server.resources import Registry
        from kubelite.server.storage import open_store

        store = open_store(str(tmp / "inproc.db"))
        api = APIServer(store, Registry())
        api.bootstrap()
        transport = InProcessTransport(create_app(api))
        with httpx.Client(transport=transport, base_url="http://kubelite") as client:
            _workload(client, "in-process", n, list_size)
        transport.close()
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
