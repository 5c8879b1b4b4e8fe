"""Workload controllers benchmark: a StatefulSet rolled out, an Indexed Job run to completion, a
DaemonSet over many nodes.

    in-process   a memory Cluster on a fake clock: create, then settle / move the clock (the
                 controllers alone; a Job's pods take 1 s of cluster time each)
    embedded     kubelite apply + kubelite rollout status / wait on the embedded cluster
    served       kubelite -> `kubelite serve` (controllers in the background, real time)

For each: seconds from `apply` to the workload being done (rollout status success, or the Job's
Complete condition). Usage: python bench/workloads.py [--smoke]. Full size: a 100-pod StatefulSet
(Parallel), an Indexed Job of 1,000 completions (parallelism 100), a DaemonSet over 50 nodes;
--smoke: 10 pods, 40 completions (parallelism 10), 5 nodes.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "server"))

KUBELITE = [sys.executable, "-m", "kubelite"]

STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: web}}
spec:
  serviceName: web
  replicas: {n}
  podManagementPolicy: Parallel
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: c, image: nginx:1.24}}]}}
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {{name: calc}}
spec:
  completionMode: Indexed
  completions: {n}
  parallelism: {parallelism}
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: busybox:1.36}}]
"""
DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: busybox:1.36}]}
"""


def _run(argv: list[str], env: dict) -> None:
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr}")


def through_cli(cli: list[str], env: dict, path: pathlib.Path, done: list[str]) -> float:
    started = time.perf_counter()
    _run(cli + ["apply", "-f", str(path)], env)
    _run(cli + done, env)
    return time.perf_counter() - started


def in_process(manifest: str, nodes: int, finished) -> float:
    """Seconds until `finished(api)` holds, the fake clock moving 1 s whenever the cluster is idle."""
    import yaml

    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    obj = yaml.safe_load(manifest)
    plural = {"StatefulSet": "statefulsets", "Job": "jobs", "DaemonSet": "daemonsets"}[obj["kind"]]
    with Cluster("memory://", clock=FakeClock(), nodes=nodes) as cluster, cluster.http_client() as api:
        cluster.settle(600)
        started = time.perf_counter()
        r = api.post(f"/apis/{obj['apiVersion']}/namespaces/default/{plural}", json=obj)
        assert r.status_code == 201, r.text
        cluster.settle(600)
        for _ in range(100_000):
            if finished(api):
                return time.perf_counter() - started
            cluster.advance(1.0)
    raise SystemExit(f"{obj['kind']} never finished in-process")


def _sts_ready(n):
    return lambda api: (api.get("/apis/apps/v1/namespaces/default/statefulsets/web").json().get("status") or {}) \
        .get("readyReplicas") == n


def _job_complete(api) -> bool:
    job = api.get("/apis/batch/v1/namespaces/default/jobs/calc").json()
    return any(c["type"] == "Complete" for c in (job.get("status") or {}).get("conditions") or [])


def _ds_ready(n):
    return lambda api: (api.get("/apis/apps/v1/namespaces/default/daemonsets/agent").json().get("status") or {}) \
        .get("numberReady") == n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small sizes (CI)")
    args = parser.parse_args()
    pods, completions, parallelism, nodes = (10, 40, 10, 5) if args.smoke else (100, 1000, 100, 50)
    from test_serve_support import Served

    cases = [
        (f"StatefulSet of {pods} pods (Parallel)", STATEFULSET.format(n=pods), 1, _sts_ready(pods),
         ["rollout", "status", "statefulset/web", "--timeout=1800s"]),
        (f"Indexed Job, {completions} completions, parallelism {parallelism}",
         JOB.format(n=completions, parallelism=parallelism), 1, _job_complete,
         ["wait", "--for=condition=Complete", "job/calc", "--timeout=1800s"]),
        (f"DaemonSet over {nodes} nodes", DAEMONSET, nodes, _ds_ready(nodes),
         ["rollout", "status", "daemonset/agent", "--timeout=1800s"]),
    ]
    with tempfile.TemporaryDirectory(prefix="kubelite-bench-workloads-") as tmp:
        base = pathlib.Path(tmp)
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG",)}
        env.update(HOME=str(base / "home"), PYTHONPYCACHEPREFIX=str(base / "pycache"))
        (base / "home").mkdir()
        for i, (title, manifest, node_count, finished, done) in enumerate(cases):
            path = base / f"case{i}.yaml"
            path.write_text(manifest)
            rows = [("in-process", in_process(manifest, node_count, finished))]
            env["KUBELITE_HOME"] = str(base / f"embedded{i}")
            if node_count == 1:  # the embedded cluster has one simulated node
                rows.append(("embedded", through_cli(KUBELITE, env, path, done)))
            server = Served(base / f"served{i}", base / f"kubeconfig{i}", ("--nodes", str(node_count))).start()
            try:
                kc = ["--kubeconfig", str(base / f"kubeconfig{i}")]
                rows.append(("served", through_cli(KUBELITE + kc, env, path, done)))
            finally:
                server.stop()
            print(title)
            for label, seconds in rows:
                print(f"  {label:12s} {seconds:8.2f} s")


if __name__ == "__main__":
    main()
