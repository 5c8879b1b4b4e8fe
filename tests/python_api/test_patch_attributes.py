"""`kubelite.patch.strategic` as an attribute, and strategic.apply finding its own schema."""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

import kubelite.patch

KUBECTL = "/usr/bin/kubectl"

DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    "spec": {"selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "web", "image": "nginx:1.26"}]}}},
}
PATCH = {"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "busybox"}]}}}}


def test_submodules_are_attributes_of_the_package():
    assert kubelite.patch.strategic.apply is not None
    assert callable(kubelite.patch.merge_patch.apply)
    assert callable(kubelite.patch.json_patch.apply)
    with pytest.raises(AttributeError):
        kubelite.patch.no_such_module  # noqa: B018


@pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")
def test_apply_without_schema_merges_containers_as_kubectl_patch_does(tmp_path: pathlib.Path):
    path = tmp_path / "deployment.json"
    path.write_text(json.dumps(DEPLOYMENT))
    done = subprocess.run([KUBECTL, "patch", "--local", "-f", str(path), "--type", "strategic", "-p",
                           json.dumps(PATCH), "-o", "json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)
    got = kubelite.patch.strategic.apply(DEPLOYMENT, PATCH)
    assert got["spec"]["template"]["spec"]["containers"] == expected["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in got["spec"]["template"]["spec"]["containers"]] == ["sidecar", "web"]


def test_apply_without_a_known_schema_raises_instead_of_merging():
    custom = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"items": [{"name": "a"}]}}
    with pytest.raises(kubelite.patch.PatchError, match="example.com/v1.*Widget"):
        kubelite.patch.strategic.apply(custom, {"spec": {"items": [{"name": "b"}]}})
    # an explicit schema=None still asks for the JSON merge patch: the list is replaced
    merged = kubelite.patch.strategic.apply(custom, {"spec": {"items": [{"name": "b"}]}}, None)
    assert merged["spec"]["items"] == [{"name": "b"}]
