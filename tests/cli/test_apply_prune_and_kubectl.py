"""Prune safety, and real kubectl and kubelite alternating on one `kubelite serve`."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "apply"))
from apply_support import HAVE_KUBECTL, served  # noqa: E402,F401 (a fixture)


def cm(name, labels=None, namespace=None, data=None):
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {"k": "v"}}


def write(path: pathlib.Path, *objs) -> str:
    path.write_text("\n".join(json.dumps(o) for o in objs))  # a JSON stream
    return str(path)


def names(runner, kind, namespace="default"):
    out = runner.kubelite("get", kind, "-n", namespace, "-o", "json")
    assert out.returncode == 0, out.stderr
    return sorted(i["metadata"]["name"] for i in json.loads(out.stdout)["items"])


def test_prune_deletes_only_what_it_should(served, tmp_path):
    run = served.kubelite
    ns = tmp_path / "ns.json"
    write(ns, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    assert run("apply", "-f", str(ns)).returncode == 0
    first = write(tmp_path / "first.json", cm("keep", {"app": "p"}), cm("gone", {"app": "p"}))
    assert run("apply", "-f", first).returncode == 0
    # safety: no annotation (created imperatively), outside the selector, other namespace, other kind
    assert run("create", "-f", write(tmp_path / "plain.json", cm("plain", {"app": "p"}))).returncode == 0
    assert run("apply", "-f", write(tmp_path / "outside.json", cm("outside", {"app": "q"}))).returncode == 0
    assert run("apply", "-f", write(tmp_path / "elsewhere.json", cm("elsewhere", {"app": "p"}, "other"))).returncode == 0
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "r", "labels": {"app": "p"}}, "rules": []}
    assert run("apply", "-f", write(tmp_path / "role.json", role)).returncode == 0

    second = write(tmp_path / "second.json", cm("keep", {"app": "p"}))
    proc = run("apply", "-f", second, "--prune", "-l", "app=p", "--dry-run=server")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "configmap/keep unchanged (server dry run)\nconfigmap/gone pruned (server dry run)\n"
    assert "gone" in names(served, "configmaps")

    proc = run("apply", "-f", second, "--prune", "-l", "app=p")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "configmap/keep unchanged\nconfigmap/gone pruned\n"
    left = names(served, "configmaps")
    assert "gone" not in left
    assert {"keep", "plain", "outside"} <= set(left)
    assert "elsewhere" in names(served, "configmaps", "other")
    assert names(served, "roles") == ["r"]

    # an allowlist without ConfigMap prunes no ConfigMap
    proc = run("apply", "-f", second, "--prune", "--all", "--prune-allowlist=core/v1/Secret")
    assert proc.returncode == 0 and "pruned" not in proc.stdout
    assert "outside" in names(served, "configmaps")


def test_prune_needs_a_selector_or_all(served, tmp_path):
    proc = served.kubelite("apply", "-f", write(tmp_path / "x.json", cm("x")), "--prune")
    assert proc.returncode == 1
    assert proc.stderr == ("error: all resources selected for prune without explicitly passing --all. To prune all "
                           "resources, pass the --all flag. If you did not mean to prune all resources, specify a "
                           "label selector\n")


VOLATILE_META = ("uid", "creationTimestamp", "resourceVersion", "generation")


def comparable(obj: dict) -> dict:
    meta = {k: v for k, v in obj["metadata"].items() if k not in VOLATILE_META}
    meta["managedFields"] = [{k: v for k, v in m.items() if k != "time"} for m in meta.get("managedFields", [])]
    meta["name"] = "X"
    annotations = dict(meta.get("annotations") or {})
    key = "kubectl.kubernetes.io/last-applied-configuration"
    if key in annotations:
        annotations[key] = annotations[key].replace(obj["metadata"]["name"], "X")
    meta["annotations"] = annotations
    out = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    out["metadata"] = meta
    return json.loads(json.dumps(out).replace(obj["metadata"]["name"], "X"))


STEPS = [
    {"spec": {"minReadySeconds": 5, "replicas": 2}},
    {"spec": {"replicas": None, "strategy": {"type": "Recreate"}}},
    {"spec": {}, "metadata": {"labels": {"tier": "web"}}},
]


def deployment(name, extra):
    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
           "spec": {"selector": {"matchLabels": {"app": "alt"}},
                    "template": {"metadata": {"labels": {"app": "alt"}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx:1.14.2"}]}}}}
    obj["spec"].update(extra.get("spec", {}))
    obj["metadata"].update(extra.get("metadata", {}))
    return obj


@pytest.mark.kubectl
@pytest.mark.skipif(not HAVE_KUBECTL, reason="kubectl not installed")
def test_kubectl_and_kubelite_alternating_leave_identical_objects(served, tmp_path):
    # a: kubectl, kubelite, kubectl; b: kubelite, kubectl, kubelite
    tools = {"a": [served.kubectl, served.kubelite, served.kubectl],
             "b": [served.kubelite, served.kubectl, served.kubelite]}
    for i, step in enumerate(STEPS):
        outputs = {}
        for name in ("alt-a", "alt-b"):
            f = write(tmp_path / f"{name}-{i}.json", deployment(name, step))
            proc = tools[name[-1]][i]("apply", "-f", f)
            assert proc.returncode == 0, proc.stderr
            outputs[name] = proc.stdout.replace(name, "X")
        assert outputs["alt-a"] == outputs["alt-b"]
        objs = {name: json.loads(served.kubectl("get", "deployment", name, "-o", "json").stdout)
                for name in ("alt-a", "alt-b")}
        assert comparable(objs["alt-a"]) == comparable(objs["alt-b"]), f"after step {i}"
