"""Strategic merge patch benchmark: schema loading, then three-way patch creation and
application (what `kubectl apply` does per object) for many realistic Deployments and for one
Deployment with hundreds of containers.

Usage: python bench/patch.py [--smoke]. Prints figures only.
"""
from __future__ import annotations

import argparse
import copy
import time

from kubelite.patch import strategic
from kubelite.schema import for_kind


def _container(i: int, name: str, version: int) -> dict:
    return {
        "name": name,
        "image": f"registry.example.com/{name}:{version}.{i % 7}",
        "args": ["--port=8080", f"--replica={i}"],
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                  {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
        "env": [{"name": f"VAR_{j}", "value": str(j * version)} for j in range(6)],
        "volumeMounts": [{"name": "config", "mountPath": "/etc/config"}, {"name": "cache", "mountPath": "/cache"}],
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
    }


def _deployment(i: int, names: list[str], version: int) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"app-{i}", "namespace": "default", "labels": {"app": f"app-{i}", "v": str(version)},
                     "annotations": {"example.com/owner": "team"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": f"app-{i}"}},
            "template": {
                "metadata": {"labels": {"app": f"app-{i}"}},
                "spec": {
                    "containers": [_container(i, n, version) for n in names],
                    "volumes": [{"name": "config", "configMap": {"name": "cfg"}}, {"name": "cache", "emptyDir": {}}],
                    "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
                },
            },
        },
    }


def _live(obj: dict) -> dict:
    """What the server holds: the object plus defaults and status."""
    live = copy.deepcopy(obj)
    live["metadata"].update({"uid": "0000", "resourceVersion": "42", "generation": 2})
    live["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = "2"
    for c in live["spec"]["template"]["spec"]["containers"]:
        c.update({"terminationMessagePath": "/dev/termination-log", "imagePullPolicy": "IfNotPresent"})
    live["status"] = {"replicas": 3, "readyReplicas": 3}
    return live


def _workload(count: int, names: list[str]) -> list[tuple[dict, dict, dict]]:
    out = []
    for i in range(count):
        original = _deployment(i, names, 1)
        modified = _deployment(i, names, 2)
        modified["spec"]["template"]["spec"]["containers"].reverse()
        out.append((original, modified, _live(original)))
    return out


def _run(label: str, items: list[tuple[dict, dict, dict]], schema) -> None:
    start = time.perf_counter()
    patches = [strategic.create_three_way(o, m, c, schema) for o, m, c in items]
    created = time.perf_counter() - start
    start = time.perf_counter()
    for (_, _, current), patch in zip(items, patches):
        strategic.apply(current, patch, schema)
    applied = time.perf_counter() - start
    n = len(items)
    print(f"{label:<40} create {n / created:9.1f} objects/s   apply {n / applied:9.1f} objects/s   "
          f"both {n / (created + applied):9.1f} objects/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, a few seconds")
    args = parser.parse_args()
    deployments, wide = (20, 30) if args.smoke else (1000, 500)

    start = time.perf_counter()
    schema = for_kind("apps/v1", "Deployment")
    first = time.perf_counter() - start
    start = time.perf_counter()
    for_kind("v1", "Service")
    another = time.perf_counter() - start
    print(f"{'schema: first for_kind (loads 1.32 defs)':<40} {first * 1000:9.1f} ms")
    print(f"{'schema: for_kind of another kind':<40} {another * 1000:9.1f} ms")

    three = ["app", "sidecar", "proxy"]
    _run(f"three-way, {deployments} Deployments x 3 containers", _workload(deployments, three), schema)
    many = [f"c{i:03d}" for i in range(wide)]
    _run(f"three-way, 1 Deployment x {wide} containers", _workload(1, many), schema)


if __name__ == "__main__":
    main()
