"""Seed 004 (kubectl patch) and the kustomize walkthrough through the Python API give the same
live objects as real kubectl doing the same to a served cluster, step by step."""
from __future__ import annotations

import json

import pytest

import kubelite
from api_support import ROOT, comparable, kubectl, needs_kubectl

PATCH_DATA = ROOT / "tests" / "data" / "cli" / "patch"
START = 1767225600  # fake clocks: objects change only when the test acts


def text(name: str) -> str:
    return (PATCH_DATA / name).read_text()


# (kubectl arguments, the same through the API, the object compared afterwards)
STEPS = [
    (["apply", "-f", str(PATCH_DATA / "deployment-patch.yaml")],
     lambda k: k.apply(str(PATCH_DATA / "deployment-patch.yaml")), "patch-demo"),
    (["patch", "deployment", "patch-demo", "--patch", text("patch-file.yaml")],
     lambda k: k.patch("deployment", "patch-demo", text("patch-file.yaml")), "patch-demo"),
    (["patch", "deployment", "patch-demo", "--patch", text("patch-file-tolerations.yaml")],
     lambda k: k.patch("deployment", "patch-demo", text("patch-file-tolerations.yaml")), "patch-demo"),
    (["patch", "deployment", "patch-demo", "--type", "merge", "--patch", text("patch-file-2.yaml")],
     lambda k: k.patch("deployment", "patch-demo", text("patch-file-2.yaml"), type="merge"), "patch-demo"),
    (["apply", "-f", str(PATCH_DATA / "deployment-retainkeys.yaml")],
     lambda k: k.apply(str(PATCH_DATA / "deployment-retainkeys.yaml")), "retainkeys-demo"),
    (["patch", "deployment", "retainkeys-demo", "--patch", text("patch-file-retainkeys.yaml")],
     lambda k: k.patch("deployment", "retainkeys-demo", text("patch-file-retainkeys.yaml")), "retainkeys-demo"),
    (["patch", "deployment", "patch-demo", "--type", "json", "--patch",
      '[{"op": "replace", "path": "/spec/replicas", "value": 3}]'],
     lambda k: k.patch("deployment", "patch-demo", [{"op": "replace", "path": "/spec/replicas", "value": 3}],
                       type="json"), "patch-demo"),
]


@needs_kubectl
def test_seed004_patches_equal_kubectls(tmp_path):
    with kubelite.Cluster(fake_clock=START) as reference, kubelite.Cluster(fake_clock=START) as kube, \
            reference.serve() as kubeconfig:
        for args, call, name in STEPS:
            done = kubectl(kubeconfig, *args, cache=tmp_path)
            assert done.returncode == 0, done.stderr
            reference.settle()
            call(kube)
            theirs = json.loads(kubectl(kubeconfig, "get", "deployment", name, "-o", "json", "--show-managed-fields",
                                        cache=tmp_path).stdout)
            assert comparable(kube.get("deployments", name)) == comparable(theirs), " ".join(args[:3])


@needs_kubectl
def test_seed004_forbidden_strategy_is_kubectls_invalid(kube, tmp_path):
    kube.apply(str(PATCH_DATA / "deployment-retainkeys.yaml"))
    with pytest.raises(kubelite.Invalid) as caught:
        kube.patch("deployment", "retainkeys-demo", text("patch-file-no-retainkeys.yaml"))
    with kube.serve() as kubeconfig:
        done = kubectl(kubeconfig, "patch", "deployment", "retainkeys-demo", "--patch",
                       text("patch-file-no-retainkeys.yaml"), cache=tmp_path)
    assert done.returncode == 1
    assert done.stderr == str(caught.value) + "\n"


@needs_kubectl
def test_apply_k_equals_kubectls(tmp_path):
    directory = str(ROOT / "examples" / "my-nginx")
    with kubelite.Cluster(fake_clock=START) as reference, kubelite.Cluster(fake_clock=START) as kube, \
            reference.serve() as kubeconfig:
        done = kubectl(kubeconfig, "apply", "-k", directory, cache=tmp_path)
        assert done.returncode == 0, done.stderr
        reference.settle()
        results = kube.apply(directory, kustomize=True)
        assert done.stdout == "".join(f"{'deployment.apps' if r.kind == 'Deployment' else r.kind.lower()}/{r.name} "
                                      f"{r.action}\n" for r in results)
        for kind, name in (("service", "my-nginx"), ("deployment", "my-nginx")):
            theirs = json.loads(kubectl(kubeconfig, "get", kind, name, "-o", "json", "--show-managed-fields",
                                        cache=tmp_path).stdout)
            assert comparable(kube.get(kind, name)) == comparable(theirs), kind
