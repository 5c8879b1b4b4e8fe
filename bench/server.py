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
    _authorization(n)
    return 0


def _authorization(n: int) -> None:
    """The cost of authentication and RBAC, in-process (no TLS): the same GET as the admin
    (system:masters: no RBAC walk), as a service account whose RoleBinding names the aggregated
    `edit` ClusterRole (token verified, bindings and rules walked), and with no authentication."""
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    with Cluster("memory://", clock=FakeClock(), token="bench-admin") as cluster:
        cluster.settle()  # the aggregation controller fills edit's rules
        admin = {"Authorization": "Bearer bench-admin"}
        with cluster.http_client(headers=admin) as client:
            client.post("/api/v1/namespaces/default/serviceaccounts", json={"metadata": {"name": "bench"}})
            client.post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", json={
                "metadata": {"name": "bench-edit"}, "subjects": [{"kind": "ServiceAccount", "name": "bench"}],
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"}})
            client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "target"}})
            token = client.post("/api/v1/namespaces/default/serviceaccounts/bench/token",
                                json={"spec": {}}).json()["status"]["token"]
            path = "/api/v1/namespaces/default/configmaps/target"
            _rate("rbac: get as admin", n, lambda i: client.get(path).raise_for_status())
            sa = {"Authorization": f"Bearer {token}"}
            _rate("rbac: get as SA via aggregated edit", n, lambda i: client.get(path, headers=sa).raise_for_status())
    with Cluster("memory://", clock=FakeClock()) as cluster, cluster.http_client() as client:
        client.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "target"}})
        _rate("rbac: get, no authentication", n,
              lambda i: client.get("/api/v1/namespaces/default/configmaps/target").raise_for_status())


if __name__ == "__main__":
    raise SystemExit(main())
