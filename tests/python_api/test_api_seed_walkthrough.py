"""The seed walkthrough (declarative management with configuration files) through the Python API
gives the same live objects as real kubectl applying the same files to a served cluster."""
from __future__ import annotations

import json
import pathlib

import pytest

import kubelite
from api_support import ROOT, comparable, kubectl, needs_kubectl

SIMPLE = ROOT / "examples" / "simple_deployment.yaml"
UPDATE = ROOT / "examples" / "updates" / "update_deployment.yaml"


def steps(tmp_path: pathlib.Path) -> list[pathlib.Path]:
    """The files the walkthrough applies, in order (the last two: Recreate, then replicas: null)."""
    recreate = tmp_path / "recreate.yaml"
    recreate.write_text(UPDATE.read_text().replace("spec:\n  selector:",
                                                   "spec:\n  strategy:\n    type: Recreate\n  selector:", 1))
    nulled = tmp_path / "nulled.yaml"
    nulled.write_text(recreate.read_text().replace("spec:\n  strategy:", "spec:\n  replicas: null\n  strategy:", 1))
    return [SIMPLE, UPDATE, UPDATE, recreate, nulled]


@needs_kubectl
def test_api_apply_equals_kubectl_apply_step_by_step(tmp_path):
    # fake clocks: the objects then change only when the test says so (minReadySeconds would
    # otherwise update the status, and managedFields, at a moment of its own)
    start = 1767225600  # 2026-01-01T00:00:00Z
    with kubelite.Cluster(fake_clock=start) as reference, kubelite.Cluster(fake_clock=start) as kube, \
            reference.serve() as kubeconfig:
        actions = []
        for i, path in enumerate(steps(tmp_path)):
            done = kubectl(kubeconfig, "apply", "-f", str(path), cache=tmp_path / "cache")
            assert done.returncode == 0, done.stderr
            reference.settle()  # as every kube call does
            results = kube.apply(str(path))
            actions.append(results[0].action)
            # kubectl's success line names the same action
            assert done.stdout == f"deployment.apps/nginx-deployment {results[0].action}\n"
            if i == 0:  # another writer scales, as the walkthrough does, between the first two applies
                patch = {"spec": {"replicas": 2}}
                kube.patch("deployments", "nginx-deployment", patch, type="merge")
                reference.patch("deployments", "nginx-deployment", patch, type="merge")
            reference.settle()
            ours = kube.get("deployments", "nginx-deployment")
            theirs = json.loads(kubectl(kubeconfig, "get", "deployment", "nginx-deployment", "-o", "json",
                                       "--show-managed-fields").stdout)
            assert comparable(ours) == comparable(theirs), path.name
        assert actions == ["created", "configured", "unchanged", "configured", "configured"]
        assert kube.get("deploy", "nginx-deployment")["spec"]["replicas"] == 1  # null: defaulted again
        assert kube.diff(str(steps(tmp_path)[-1])) == ""


def test_apply_results_carry_the_live_object_and_source(kube):
    results = kube.apply(str(SIMPLE))
    assert [(r.action, r.kind, r.name, r.namespace) for r in results] == [
        ("created", "Deployment", "nginx-deployment", "default")]
    assert results[0].source == str(SIMPLE)
    assert results[0].object["metadata"]["uid"] == kube.get("deployments", "nginx-deployment")["metadata"]["uid"]


def test_diff_of_a_new_object_shows_every_line_added(kube):
    text = kube.diff(str(SIMPLE))
    assert "apps.v1.Deployment.default.nginx-deployment" in text
    assert "+  minReadySeconds: 5" in text
    kube.apply(str(SIMPLE))
    assert kube.diff(str(SIMPLE)) == ""
    changed = kube.diff(str(UPDATE))
    assert "-  minReadySeconds: 5" in changed and "+      - image: nginx:1.16.1" in changed


@pytest.mark.parametrize("dry_run", ["client", "server"])
def test_dry_runs_change_nothing(kube, dry_run):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dry"}, "data": {"a": "1"}}
    assert [r.action for r in kube.apply(cm, dry_run=dry_run)] == ["created"]
    with pytest.raises(kubelite.NotFound):
        kube.get("configmaps", "dry")
