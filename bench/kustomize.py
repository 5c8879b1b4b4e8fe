"""Benchmark: kubelite.kustomize.build + render against `kubectl kustomize` on the same trees.

Usage: python bench/kustomize.py [--smoke] [--large]. Prints figures only.
--large adds a tree of 20,000 resources, kubelite alone: `kubectl kustomize` grows faster than
linearly (14 s for 2,000 here; kustomize issue #5084), so it is not run at that size and the output
is compared at 2,000 only.

Where the time went (cProfile, 8,000 resources, issue 16): before, the name index of the resource
map was rebuilt after every transformer step and every patch (100 patches: 800,000 resources
re-indexed, half the run) and field-spec paths were split again for every resource they were
applied to. After: a patch re-indexes only when it renamed what it patched, transformers that
never rename keep the index, and paths are split once. 2,000 resources: 1.19 s -> 0.59 s; 20,000:
20.8 s -> 12.2 s. What is left is YAML reading (PyYAML's composer, 15%), name-reference fixing
(12%), the field-spec walks of the label and image transformers, and writing YAML.

Trees: an overlay over a base of N resources (a quarter each Deployments, Services,
generated ConfigMaps and generated Secrets; every Deployment references its
ConfigMap and Secret through envFrom), with 100 strategic merge patches (fewer in
small trees), images, namePrefix, namespace and commonLabels.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

KUBECTL = "/usr/bin/kubectl"


def write_tree(root: str, resources: int, patches: int) -> str:
    apps = max(1, resources // 4)
    base = os.path.join(root, "base")
    os.makedirs(base)
    docs = []
    for i in range(apps):
        name = f"app{i}"
        docs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
                     "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                              "template": {"metadata": {"labels": {"app": name}},
                                           "spec": {"containers": [{"name": "main", "image": "nginx:1.25",
                                                                    "envFrom": [{"configMapRef": {"name": f"{name}-cm"}},
                                                                                {"secretRef": {"name": f"{name}-secret"}}]}]}}}})
        docs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                     "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]}})
    with open(os.path.join(base, "resources.yaml"), "w") as f:
        yaml.safe_dump_all(docs, f, sort_keys=False)
    k = {"resources": ["resources.yaml"],
         "configMapGenerator": [{"name": f"app{i}-cm", "literals": [f"INDEX={i}", "MODE=prod"]} for i in range(apps)],
         "secretGenerator": [{"name": f"app{i}-secret", "literals": [f"TOKEN=t{i}"]} for i in range(apps)]}
    with open(os.path.join(base, "kustomization.yaml"), "w") as f:
        yaml.safe_dump(k, f, sort_keys=False)
    overlay = os.path.join(root, "overlay")
    os.makedirs(overlay)
    patch_list = []
    for i in range(min(patches, apps)):
        patch_list.append({"patch": yaml.safe_dump({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"app{i}"},
            "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "main", "env": [{"name": "P", "value": str(i)}]}]}}}})})
    ok = {"resources": ["../base"], "namePrefix": "prod-", "namespace": "production",
          "commonLabels": {"env": "production"}, "images": [{"name": "nginx", "newTag": "1.27"}],
          "patches": patch_list}
    with open(os.path.join(overlay, "kustomization.yaml"), "w") as f:
        yaml.safe_dump(ok, f, sort_keys=False)
    return overlay


def time_kubelite(path: str, runs: int) -> tuple[float, str]:
    from kubelite.kustomize import build, render

    best, out = float("inf"), ""
    for _ in range(runs):
        start = time.perf_counter()
        out = render(build(path))
        best = min(best, time.perf_counter() - start)
    return best, out


def time_kubectl(path: str, runs: int) -> tuple[float, str]:
    best, out = float("inf"), ""
    for _ in range(runs):
        start = time.perf_counter()
        run = subprocess.run([KUBECTL, "kustomize", path], capture_output=True, text=True, check=True)
        best = min(best, time.perf_counter() - start)
        out = run.stdout
    return best, out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small trees, one run each")
    parser.add_argument("--large", action="store_true", help="also 20,000 resources, kubelite alone")
    args = parser.parse_args()
    sizes = [(20, 5)] if args.smoke else [(200, 50), (2000, 100)]
    if args.large:
        sizes.append((20000, 100))
    runs = 1 if args.smoke else 3
    have_kubectl = os.path.exists(KUBECTL)
    for resources, patches in sizes:
        root = tempfile.mkdtemp()
        try:
            path = write_tree(root, resources, patches)
            ours, text = time_kubelite(path, 1 if resources > 2000 else runs)
            docs = text.count("\n---\n") + 1
            line = f"{resources:5d} resources ({docs} documents): kubelite {ours * 1000:8.1f} ms"
            if have_kubectl and resources <= 2000:
                theirs, expected = time_kubectl(path, runs)
                same = "identical" if expected == text else "DIFFERENT"
                line += f"   kubectl kustomize {theirs * 1000:8.1f} ms   ratio kubelite/kubectl {ours / theirs:5.2f}   output {same}"
            print(line)
        finally:
            shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
