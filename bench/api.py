"""Python API benchmark: what a test suite using kubelite's pytest plugin pays per test.

    fresh kube         kubelite.Cluster() (in memory, controllers settled) then close()
    kube_server        Cluster() + serve() until the first kubectl-style request answers, then close
    test with apply    a fresh Cluster applying a 10-object manifest (ConfigMaps, Secrets, Services
                       and two Deployments whose Pods the controllers create), then close; repeated
                       to estimate 1,000 such tests; once more without controllers (as envtest runs)

Targets (issue 17): fresh kube <= 20 ms, kube_server ready <= 300 ms, 1,000 tests <= 30 s.
The anchor: envtest (a real etcd + kube-apiserver) takes about 5-7 s per start and runs no
controllers; kwok's cluster start is of the same order.

Usage: python bench/api.py [--smoke] [--tests N]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

TARGETS = {"fresh kube": 0.020, "kube_server ready": 0.300}
TESTS_TARGET = 30.0  # seconds for 1,000 tests


def manifest() -> list[dict]:
    """Ten objects: 4 ConfigMaps, 2 Secrets, 2 Services, 2 Deployments (one replica each)."""
    objs: list[dict] = []
    for i in range(4):
        objs.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}, "data": {"i": str(i)}})
    for i in range(2):
        objs.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"s-{i}"}, "stringData": {"k": "v"}})
        objs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"svc-{i}"},
                     "spec": {"selector": {"app": f"d{i}"}, "ports": [{"port": 80}]}})
        objs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"d-{i}"},
                     "spec": {"replicas": 1, "selector": {"matchLabels": {"app": f"d{i}"}},
                              "template": {"metadata": {"labels": {"app": f"d{i}"}},
                                           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    return objs


def fresh_kube() -> float:
    import kubelite

    started = time.perf_counter()
    kube = kubelite.Cluster()
    elapsed = time.perf_counter() - started
    kube.close()
    return elapsed


def kube_server_ready() -> float:
    """Until a client holding only the kubeconfig gets an answer over HTTPS."""
    import kubelite
    from kubelite.client.dynamic import Session
    from kubelite.client.kubeconfig import Overrides

    started = time.perf_counter()
    kube = kubelite.Cluster()
    try:
        with kube.serve() as kubeconfig:
            with Session.open(Overrides(kubeconfig=kubeconfig)) as session:
                session.transport.json("GET", "/api/v1/namespaces/default")
                return time.perf_counter() - started
    finally:
        kube.close()


def one_test(objs: list[dict], controllers: bool = True) -> float:
    import kubelite

    started = time.perf_counter()
    with kubelite.Cluster(controllers=controllers) as kube:
        results = kube.apply(objs)
        assert len(results) == 10 and len(kube.list("pods")) == (2 if controllers else 0)
    return time.perf_counter() - started


def measure(label: str, fn, runs: int) -> list[float]:
    fn()  # warm: imports, schemas, first TLS key
    times = sorted(fn() for _ in range(runs))
    median = statistics.median(times)
    target = TARGETS.get(label)
    verdict = "" if target is None else f"  target <= {target * 1000:.0f} ms: {'ok' if median <= target else 'MISSED'}"
    print(f"{label:20s} median {median * 1000:7.1f} ms  p90 {times[int(len(times) * 0.9)] * 1000:7.1f} ms"
          f"  ({runs} runs){verdict}")
    return times


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a few runs only (CI)")
    parser.add_argument("--tests", type=int, default=None, help="tests with apply to time (default 200; smoke 5)")
    args = parser.parse_args(argv)
    runs = 3 if args.smoke else 30
    tests = args.tests or (5 if args.smoke else 200)
    measure("fresh kube", fresh_kube, runs)
    measure("kube_server ready", kube_server_ready, max(3, runs // 3))
    objs = manifest()
    times = measure("test with apply", lambda: one_test(objs), tests)
    projected = statistics.mean(times) * 1000
    verdict = "ok" if projected <= TESTS_TARGET else "MISSED"
    print(f"1,000 tests applying 10 objects: {projected:.1f} s projected (mean x 1000); "
          f"target <= {TESTS_TARGET:.0f} s: {verdict}")
    # what the API and the API server cost, without the controllers' reactions (envtest's setting)
    bare = measure("... no controllers", lambda: one_test(objs, controllers=False), tests)
    print(f"1,000 tests without controllers: {statistics.mean(bare) * 1000:.1f} s projected")
    print("anchor: envtest starts a real etcd + kube-apiserver in ~5-7 s per cluster, with no controllers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
