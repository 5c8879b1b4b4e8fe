"""diff's text and prune (by selector and through an ApplySet), through the Python API,
compared with real kubectl against the same served cluster."""
from __future__ import annotations

import json
import re

import kubelite
from api_support import kubectl, needs_kubectl

START = 1767225600  # fake clock: nothing changes between the two diffs


def configmap(name: str, value: str, **labels) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels or {"app": "web"}},
            "data": {"value": value}}


def body(text: str) -> list[str]:
    """The diff without its header lines (temporary directory names and times differ)."""
    return [line for line in text.splitlines()
            if not re.match(r"^(diff -u -N|--- |\+\+\+ |\+  uid: )", line)]  # a dry-run create's uid is new each time


@needs_kubectl
def test_diff_text_is_kubectl_diffs(tmp_path):
    path = tmp_path / "objects.json"
    with kubelite.Cluster(fake_clock=START) as kube, kube.serve() as kubeconfig:
        kube.apply([configmap("a", "1"), configmap("b", "1")])
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                    "items": [configmap("a", "2"), configmap("b", "1"), configmap("c", "new")]}))
        ours = kube.diff(str(path))
        done = kubectl(kubeconfig, "diff", "-f", str(path), cache=tmp_path)
    assert done.returncode == 1, done.stderr
    assert body(ours) == body(done.stdout)
    assert "-  value: \"1\"" in ours and "+  value: \"2\"" in ours and "+  value: new" in ours


@needs_kubectl
def test_prune_by_selector_as_kubectl(tmp_path):
    first = [configmap("keep", "1"), configmap("drop", "1")]
    second = [configmap("keep", "1")]
    other = configmap("other", "1", app="other")  # applied too, but outside the selector: kept
    with kubelite.Cluster(fake_clock=START) as reference, kubelite.Cluster(fake_clock=START) as kube, \
            reference.serve() as kubeconfig:
        kube.apply(other)
        reference.apply(other)
        for objs in (first, second):
            path = tmp_path / "cms.json"
            path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
            done = kubectl(kubeconfig, "apply", "--prune", "-l", "app=web", "-f", str(path), cache=tmp_path)
            assert done.returncode == 0, done.stderr
            results = kube.apply(objs if objs is first else str(path), prune=True, selector="app=web")
        assert done.stdout == "".join(f"configmap/{r.name} {r.action}\n" for r in results)
        assert [(r.action, r.name) for r in results] == [("unchanged", "keep"), ("pruned", "drop")]
        assert names(kube) == names(reference) == ["keep", "other"]


def names(cluster) -> list[str]:
    """The ConfigMaps apply made (not the kube-root-ca.crt every namespace gets)."""
    return sorted(o["metadata"]["name"] for o in cluster.list("configmaps")
                  if o["metadata"]["name"] != "kube-root-ca.crt")


def test_prune_through_an_applyset(kube):
    kube.apply([configmap("one", "1"), configmap("two", "1")], prune=True, applyset="web-set", namespace="default")
    parent = kube.get("secrets", "web-set")
    assert "applyset.kubernetes.io/id" in parent["metadata"]["labels"]
    results = kube.apply([configmap("one", "1")], prune=True, applyset="web-set", namespace="default")
    assert [(r.action, r.name) for r in results] == [("unchanged", "one"), ("pruned", "two")]
    assert [o["metadata"]["name"] for o in kube.list("configmaps", selector="app=web")] == ["one"]


def test_prune_needs_a_selector_all_or_applyset(kube):
    import pytest

    with pytest.raises(ValueError, match="without explicitly passing --all"):
        kube.apply([configmap("x", "1")], prune=True)
    results = kube.apply([configmap("x", "1")], prune=True, prune_all=True)
    assert [r.action for r in results] == ["created"]
