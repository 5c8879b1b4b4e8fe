"""Field management benchmark: the cost of managedFields on CREATE / PATCH throughput, and
server-side apply (create, unchanged, changed) beside a strategic merge patch — in-process,
with field management on and (for comparison) switched off.

Usage: python bench/fieldmanager.py [--smoke]. Prints requests/s (best of three interleaved
rounds) and the ratio off/on. "Off" replaces only the Update bookkeeping (apply rows still merge
and track ownership there, so they compare the cost of stored managedFields alone).
"""
from __future__ import annotations

import argparse
import json
import time

APPLY = "application/apply-patch+yaml"
SMP = "application/strategic-merge-patch+json"


def _deployment(name: str, image: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "app", "image": image,
                                                           "ports": [{"containerPort": 80}],
                                                           "env": [{"name": "A", "value": "1"}]}]}}}}


def _rate(n: int, fn) -> float:
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return n / (time.perf_counter() - start)


def _workload(client, tag: str, n: int) -> dict:
    cms = "/api/v1/namespaces/default/configmaps"
    deps = "/apis/apps/v1/namespaces/default/deployments"
    out = {}
    out["create configmap"] = _rate(n, lambda i: client.post(
        cms, json={"metadata": {"name": f"{tag}-c{i}"}, "data": {"a": "1"}}).raise_for_status())
    out["create deployment"] = _rate(n, lambda i: client.post(
        deps, json=_deployment(f"{tag}-d{i}", "nginx:1")).raise_for_status())
    out["strategic patch"] = _rate(n, lambda i: client.patch(
        f"{deps}/{tag}-d{i}", content=json.dumps({"spec": {"replicas": 3}}),
        headers={"content-type": SMP}).raise_for_status())
    out["apply (create)"] = _rate(n, lambda i: client.patch(
        f"{deps}/{tag}-a{i}", params={"fieldManager": "bench"}, content=json.dumps(_deployment(f"{tag}-a{i}", "x:1")),
        headers={"content-type": APPLY}).raise_for_status())
    out["get (for scale)"] = _rate(n, lambda i: client.get(f"{deps}/{tag}-a{i}").raise_for_status())
    out["apply (unchanged)"] = _rate(n, lambda i: client.patch(
        f"{deps}/{tag}-a{i}", params={"fieldManager": "bench"}, content=json.dumps(_deployment(f"{tag}-a{i}", "x:1")),
        headers={"content-type": APPLY}).raise_for_status())
    out["apply (changed)"] = _rate(n, lambda i: client.patch(
        f"{deps}/{tag}-a{i}", params={"fieldManager": "bench"}, content=json.dumps(_deployment(f"{tag}-a{i}", "x:2")),
        headers={"content-type": APPLY}).raise_for_status())
    return out


def _disable(api) -> None:
    """Field management off: writes keep no managedFields (what kubelite did before)."""
    api.fields.record_update = lambda r, old, new, manager, subresource="": new


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small and quick (CI)")
    args = parser.parse_args()
    n = 20 if args.smoke else 300
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    results: dict = {"on": {}, "off": {}}
    # Interleaved rounds, best of each: a loaded machine's noise hits both sides alike.
    for round_ in range(3):
        for label in ("on", "off"):
            with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster, \
                    cluster.http_client() as client:
                if label == "off":
                    _disable(cluster.api)
                for op, rate in _workload(client, f"{label}{round_}", n).items():
                    results[label][op] = max(rate, results[label].get(op, 0.0))
    print(f"{'operation':<22} {'managedFields on':>18} {'off':>12} {'off/on':>8}")
    for op, on_rate in results["on"].items():
        off_rate = results["off"][op]
        print(f"{op:<22} {on_rate:14.1f} r/s {off_rate:8.1f} r/s {off_rate / on_rate:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
