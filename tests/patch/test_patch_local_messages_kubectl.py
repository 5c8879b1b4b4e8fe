"""Differential: `kubelite patch --local` against `/usr/bin/kubectl patch --local` for patches
that fail, or nearly fail: unknown fields met inside a strategic patch, merge and JSON
patches whose result is not an object, bodies of the wrong shape. Exit code, stdout and
stderr must be the same."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

KUBECTL = "/usr/bin/kubectl"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  x-extra: {b: 2}
  y-list: [{name: a}]
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      x-pod: {c: 3}
      containers:
      - name: app
        image: nginx
        x-container: {d: 4}
"""

CASES = {
    # an unknown field both in the object and the patch, as maps or lists: the Go struct is named
    "unknown-map-field": ("strategic", '{"spec":{"x-extra":{"a":1}}}'),
    "unknown-list-field": ("strategic", '{"spec":{"y-list":[{"name":"b"}]}}'),
    "unknown-list-of-scalars": ("strategic", '{"spec":{"y-list":[1]}}'),
    "unknown-field-in-pod-spec": ("strategic", '{"spec":{"template":{"spec":{"x-pod":{"c":4}}}}}'),
    "unknown-field-in-container": ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"app",'
                                                '"x-container":{"e":5}}]}}}}'),
    "unknown-field-at-the-top": ("strategic", '{"x-top":{"a":1}}'),
    # unknown fields that need no lookup pass
    "unknown-scalar-field": ("strategic", '{"spec":{"x-extra":1}}'),
    "unknown-field-absent-from-object": ("strategic", '{"spec":{"x-new":{"a":1}}}'),
    "unknown-field-null": ("strategic", '{"spec":{"x-extra":null}}'),
    # bodies that are not objects
    "merge-array": ("merge", "[1,2]"),
    "merge-empty-array": ("merge", "[]"),
    "merge-array-of-objects": ("merge", '[{"kind":"X"}]'),
    "merge-string": ("merge", '"x"'),
    "merge-number": ("merge", "1"),
    "merge-null": ("merge", "null"),
    "merge-kind-removed": ("merge", '{"kind":null}'),
    "strategic-array": ("strategic", "[1]"),
    "json-object": ("json", "{}"),
    "json-root-replaced-by-array": ("json", '[{"op":"replace","path":"","value":[1]}]'),
    "json-root-replaced-by-empty-object": ("json", '[{"op":"replace","path":"","value":{}}]'),
    "retain-keys-with-unknown-field": ("strategic", '{"spec":{"$retainKeys":["replicas"],"x-extra":{"a":1}}}'),
}


def _run(argv: list[str], cwd: str) -> tuple[int, str, str]:
    env = {**os.environ, "KUBECONFIG": os.devnull}
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60, env=env)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_patch_local_as_kubectl(case, tmp_path):
    if shutil.which(KUBECTL) is None:
        pytest.skip("kubectl not installed")
    (tmp_path / "d.yaml").write_text(DEPLOYMENT)
    patch_type, patch = CASES[case]
    args = ["patch", "--local", "-f", "d.yaml", "--type", patch_type, "-p", patch, "-o", "json"]
    theirs = _run([KUBECTL, *args], str(tmp_path))
    mine = _run([sys.executable, "-m", "kubelite", *args], str(tmp_path))
    assert mine == theirs
