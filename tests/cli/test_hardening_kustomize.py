"""`kubelite kustomize` of the broken kustomizations of issue 19 answers as `kubectl kustomize`
(kustomize v5.5, offline): the same output or the same error, never a Python traceback."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from cli_support import KUBECTL

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"
BIG = "9" * 4400
DEEP = "[" * 1000 + "]" * 1000
# name: (kustomization.yaml, cm.yaml)
CASES = {
    "labels-pairs-not-a-map": ("resources: [cm.yaml]\nlabels: [{pairs: [1]}]\n", CONFIGMAP),
    "image-name-a-number": ("resources: [cm.yaml]\nimages: [{name: 5}]\n", CONFIGMAP),
    "replica-count-4400-digits": (f"resources: [cm.yaml]\nreplicas: [{{name: x, count: {BIG}}}]\n", CONFIGMAP),
    "replica-count-1e400": ("resources: [cm.yaml]\nreplicas: [{name: x, count: 1e400}]\n", CONFIGMAP),
    "resource-number-4400-digits": ("resources: [cm.yaml]\n", CONFIGMAP + f"x: {BIG}\n"),
    "resource-number-1e400": ("resources: [cm.yaml]\n", CONFIGMAP + "x: 1e400\n"),
    "resource-1000-deep": ("resources: [cm.yaml]\n", CONFIGMAP + f"x: {DEEP}\n"),
    "annotation-1e400": ("resources: [cm.yaml]\ncommonAnnotations: {a: 1e400}\n", CONFIGMAP),
    "api-version-v9": ("apiVersion: v9\nresources: [cm.yaml]\n", CONFIGMAP),
    "kind-and-api-version-wrong": ("kind: Foo\napiVersion: v9\nresources: [cm.yaml]\n", CONFIGMAP),
    "component-without-api-version": ("kind: Component\nresources: [cm.yaml]\n", CONFIGMAP),
    "empty-file": ("", CONFIGMAP),
    "only-type-meta-and-nulls": ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                 "namespace: \"\"\nresources: null\n", CONFIGMAP),
    "helm-chart-without-enable-helm": ("helmCharts: [{name: x, version: 1.0.0}]\n", CONFIGMAP),
    # null items of lists of structs are zero structs (found by the fuzz suite)
    "null-label": ("resources: [cm.yaml]\nlabels: [null]\n", CONFIGMAP),
    "null-image": ("resources: [cm.yaml]\nimages: [null]\n", CONFIGMAP),
    "null-replica": ("resources: [cm.yaml]\nreplicas: [null]\n", CONFIGMAP),
    "null-patch": ("resources: [cm.yaml]\npatches: [null]\n", CONFIGMAP),
}
_KLOG_HEAD = re.compile(r"^E\d{4} [\d:.]+ +\d+ ", re.M)


def run(argv: list[str], cwd) -> tuple[int, str, str]:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=120)
    return done.returncode, done.stdout, _KLOG_HEAD.sub("", done.stderr)  # klog's time and pid differ


@pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_kustomize_as_kubectl(embedded, tmp_path, name):
    kustomization, configmap = CASES[name]
    folder = tmp_path / name
    folder.mkdir()
    (folder / "kustomization.yaml").write_text(kustomization)
    (folder / "cm.yaml").write_text(configmap)
    ours = run(embedded.argv0 + ["kustomize", name], tmp_path)
    theirs = run([KUBECTL, "kustomize", name], tmp_path)
    assert "Traceback" not in ours[2]
    assert ours == theirs
