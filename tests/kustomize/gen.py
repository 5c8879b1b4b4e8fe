"""Seeded random kustomization trees (for differential tests and the benchmark)."""
from __future__ import annotations

import os
import random

import yaml


def _dump(path: str, docs) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        if isinstance(docs, list):
            f.write(yaml.safe_dump_all(docs, sort_keys=False))
        else:
            f.write(yaml.safe_dump(docs, sort_keys=False))


def deployment(name: str, cm: str, secret: str, image: str = "nginx:1.25") -> dict:
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "main", "image": image,
                                                       "envFrom": [{"configMapRef": {"name": cm}}, {"secretRef": {"name": secret}}],
                                                       "ports": [{"containerPort": 8080}]}],
                                       "volumes": [{"name": "cfg", "configMap": {"name": cm}}]}}},
    }


def service(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]}}


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"key": "value", "n": "1"}}


def random_tree(root: str, seed: int) -> str:
    """Write a base and an overlay under root; return the directory to build."""
    rnd = random.Random(seed)
    base = os.path.join(root, "base")
    apps = [f"app{i}" for i in range(rnd.randint(1, 3))]
    docs = []
    for app in apps:
        docs += [deployment(app, f"{app}-config", f"{app}-secret"), service(app)]
    if rnd.random() < 0.5:
        docs.append(configmap("static"))
    _dump(os.path.join(base, "resources.yaml"), docs)
    k: dict = {"resources": ["resources.yaml"]}
    k["configMapGenerator"] = [{"name": f"{a}-config", "literals": [f"A={rnd.randint(0, 99)}", "B=yes"]} for a in apps]
    k["secretGenerator"] = [{"name": f"{a}-secret", "literals": [f"PASSWORD=p{rnd.randint(0, 999)}"]} for a in apps]
    if rnd.random() < 0.5:
        k["commonLabels"] = {"team": rnd.choice(["a", "b"])}
    if rnd.random() < 0.3:
        k["generatorOptions"] = {"labels": {"gen": "true"}}
    _dump(os.path.join(base, "kustomization.yaml"), k)
    overlay = os.path.join(root, "overlay")
    ok: dict = {"resources": ["../base"]}
    if rnd.random() < 0.7:
        ok["namePrefix"] = rnd.choice(["dev-", "prod-", "x-"])
    if rnd.random() < 0.4:
        ok["nameSuffix"] = rnd.choice(["-v1", "-b"])
    if rnd.random() < 0.6:
        ok["namespace"] = rnd.choice(["staging", "prod"])
    if rnd.random() < 0.5:
        ok["commonAnnotations"] = {"owner": "me", "version": "1.0"}
    if rnd.random() < 0.5:
        ok["labels"] = [{"pairs": {"env": "dev"}, "includeSelectors": rnd.random() < 0.5,
                         "includeTemplates": rnd.random() < 0.5}]
    if rnd.random() < 0.5:
        ok["images"] = [{"name": "nginx", "newName": "registry.local/nginx", "newTag": rnd.choice(["1.26", "2"])}]
    if rnd.random() < 0.5:
        ok["replicas"] = [{"name": apps[0], "count": rnd.randint(2, 5)}]
    patches = []
    if rnd.random() < 0.6:
        patches.append({"patch": yaml.safe_dump({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": apps[-1]},
            "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "busybox"},
                                                          {"name": "main", "env": [{"name": "X", "value": "1"}]}]}}}})})
    if rnd.random() < 0.5:
        patches.append({"target": {"kind": "Service"},
                        "patch": "- op: add\n  path: /metadata/annotations\n  value: {patched: \"true\"}\n"})
    if patches:
        ok["patches"] = patches
    if rnd.random() < 0.5:
        ok["configMapGenerator"] = [{"name": f"{apps[0]}-config", "behavior": "merge", "literals": ["C=overlay"]}]
    _dump(os.path.join(overlay, "kustomization.yaml"), ok)
    return overlay
