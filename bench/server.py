"""API server benchmark: start-to-/readyz, idle RSS, requests/s over HTTPS keep-alive and in-process.

Usage: python bench/server.py [--smoke] [--starts N]. Prints figures only.

Start to /readyz: from the `kubelite serve` command (a new interpreter) to /readyz answering ok,
"first start" on a fresh data directory (certificates, store and bootstrap objects made) and
"restart" on the same directory again; medians of N pairs (7; 1 with --smoke). /readyz is looked
at every 5 ms: Served's 0.1 s between looks, which this figure was once taken with, added up to a
tenth of a second of its own (issue 16's 0.341 s first start was a ~0.26 s start).

Where a first start's time went (issue 16, target 0.3 s). Before: 6ce3e88 with this series
(33263ad, aad7b58, 17ad570, 89e4174, 0177bb0, 6ce3e88) reverted, the rest of that tree kept;
after: 6ce3e88 (a25b3bd then removed the wait for the certificates). Each step's start and end
in ms since the command, medians of 7 first starts each, from a launcher wrapping the steps as
their modules load; runs taken only while the CPU was >= 70% idle (load 3-5: two other benches
running); import shares from -X importtime:

  step                                               before          after
  interpreter up, CLI, arguments                     0-50            0-54 (the fork included)
  imports: controller manager, storage, asyncio     50-103          54-115
  certificates: cryptography's import (~25 ms),    104-136 (31)    115-123 (8: the wait for
    CA, serving and admin certificates, SA key                       the child; 0.4 ms a25b3bd)
  store created (SQLite file, schema)              146-177 (31)    130-136 (6)
  namespaces, their ServiceAccounts, kubernetes    190-218 (28)    147-167 (20: one commit)
  bootstrap RBAC policy, 113 objects               219-263 (44)    167-173 (5: prepared)
  kubeconfig (PyYAML's import)                     267-280 (13)    175-176 (0.2)
  uvicorn's import and startup                     280-316 (36)    176-206 (30)
  /readyz answered (the poller's measure)          337             218

Restarts, the same way: 220 -> 170 ms; what went: cryptography's import for the expiry checks
and the signing key (23 ms -> 0.1), PyYAML (12 -> 0.2), the policy's reconcile (7.5 -> 3.8).
The changes: certificates made in a child forked at the start, nothing importing cryptography
before /readyz (the expiry read from the DER form, the signing key loaded when first used); the
kubeconfig written without PyYAML; a new store's bootstrap writes in one commit; the RBAC policy
written from its prepared stored form (server/data/bootstrap_policy_stored.json).

Interleaved A/B of this measure (the same before; pairs taken in turn, each when the CPU was
>= 70% idle): first start 0.269 -> 0.223 s (min 0.245 -> 0.178), restart 0.225 -> 0.172 s (after:
6ce3e88; 16 pairs each, load 3-8); first 0.291 -> 0.228 s, restart 0.210 -> 0.162 s (after:
a25b3bd; 12 pairs, load ~2.7). With Served's 0.1 s looks instead: first 0.313 -> 0.254 s (max
0.364 -> 0.476), restart 0.255 -> 0.167 s (8 pairs, load ~3); there a start whose kubeconfig is
written just after a look waits for the next one.

What remains of a first start's ~0.2 s: the interpreter and CLI (~40 ms), imports (~100 ms of
-X importtime: the controllers, storage and asyncio, the app and core, uvicorn ~17 ms of which
its `main` brings click and multiprocessing ~10 ms), the namespaces' creates through the whole
create path (~20 ms), uvicorn's startup with the TLS context (~13 ms), ~100 young garbage
collections (~5-10 ms, not made cheaper by disabling the collector until the freeze: the last
collection then walks everything once).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import ssl
import statistics
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


# How often the start's measure looks at /readyz. Served's default (0.1 s, plenty for tests) put up
# to a tenth of a second of waiting into the figure; once the kubeconfig is written (the socket is
# bound by then), a look is a request that waits in the listen queue until the server answers it.
START_POLL = 0.005


def _starts(tmp: pathlib.Path, pairs: int) -> None:
    """`kubelite serve` from its command to /readyz answering ok, on a fresh data directory (the
    certificates, the store and its bootstrap objects are made) and again on the same directory."""
    from test_serve_support import Served

    first, restart = [], []
    for i in range(pairs):
        for into in (first, restart):
            server = Served(tmp / f"start{i}" / "data", tmp / f"start{i}" / "kubeconfig")
            server.poll = START_POLL
            t0 = time.perf_counter()
            server.start()
            into.append(time.perf_counter() - t0)
            server.stop()
    for label, times in (("first start", first), ("restart", restart)):
        spread = f"  (min {min(times):.3f}, max {max(times):.3f}, {pairs} runs)" if pairs > 1 else ""
        print(f"{'start to /readyz (' + label + ')':<34} {statistics.median(times):10.3f} s{spread}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small and quick (CI)")
    parser.add_argument("--starts", type=int, default=None, help="first starts and restarts to time (median)")
    args = parser.parse_args()
    n, list_size = (20, 50) if args.smoke else (300, 1000)
    from test_serve_support import Served

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        _starts(tmp, args.starts or (1 if args.smoke else 7))
        server = Served(tmp / "data", tmp / "kubeconfig").start()
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
