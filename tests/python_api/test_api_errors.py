"""The Python API's exceptions: the class follows the Status reason, the message is the line real
kubectl prints for the same request against the same (served) cluster."""
from __future__ import annotations

import json

import pytest

import kubelite
from api_support import kubectl, needs_kubectl

BAD_SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "bad"},
               "spec": {"ports": [{"port": 70000}]}}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}


@needs_kubectl
def test_not_found_message_is_kubectls(kube, tmp_path):
    with pytest.raises(kubelite.NotFound) as caught:
        kube.get("deployments", "missing")
    with kube.serve() as kubeconfig:
        done = kubectl(kubeconfig, "get", "deployments", "missing", cache=tmp_path)
    assert done.returncode == 1
    assert done.stderr == str(caught.value) + "\n"
    assert caught.value.code == 404 and caught.value.reason == "NotFound"


@needs_kubectl
def test_already_exists_message_is_kubectls(kube, tmp_path):
    kube.create(CONFIGMAP)
    with pytest.raises(kubelite.AlreadyExists) as caught:
        kube.create(CONFIGMAP)
    path = tmp_path / "cm.json"
    path.write_text(json.dumps(CONFIGMAP))
    with kube.serve() as kubeconfig:
        done = kubectl(kubeconfig, "create", "-f", str(path), cache=tmp_path)
    # kubectl names the file it read; the API call had no file
    assert done.stderr == str(caught.value).replace("Error from server (AlreadyExists): ",
                                                    f'Error from server (AlreadyExists): error when creating '
                                                    f'"{path}": ') + "\n"


@needs_kubectl
def test_invalid_carries_the_causes_and_kubectls_message(kube, tmp_path):
    path = tmp_path / "svc.json"
    path.write_text(json.dumps(BAD_SERVICE))
    with pytest.raises(kubelite.Invalid) as caught:
        kube.apply(str(path))
    with kube.serve() as kubeconfig:
        done = kubectl(kubeconfig, "apply", "-f", str(path), cache=tmp_path)
    assert done.returncode == 1
    assert done.stderr == str(caught.value) + "\n"
    fields = [c["field"] for c in caught.value.causes]
    assert "spec.ports[0].port" in fields
    assert caught.value.results == []  # nothing else was applied


def test_conflict_on_a_stale_resource_version(kube):
    created = kube.create(CONFIGMAP)
    kube.patch("configmaps", "cm", {"data": {"a": "2"}}, type="merge")
    with pytest.raises(kubelite.Conflict) as caught:
        kube.replace(created)  # still carries the first resourceVersion
    assert caught.value.code == 409
    assert "the object has been modified" in str(caught.value)


def test_unknown_type_is_not_found_with_kubectls_wording(kube):
    with pytest.raises(kubelite.NotFound, match='the server doesn\'t have a resource type "widgets"'):
        kube.list("widgets")


def test_manifest_error_names_file_and_line(kube, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: [\n")
    with pytest.raises(kubelite.ManifestError) as caught:
        kube.apply(str(path))
    assert str(path) in str(caught.value)
    assert "line" in str(caught.value)


def test_several_failures_are_one_apply_error_and_the_rest_is_applied(kube):
    docs = [dict(CONFIGMAP, metadata={"name": "one"}),
            dict(CONFIGMAP, metadata={"name": "two", "namespace": "nowhere"}),
            dict(CONFIGMAP, metadata={"name": "three", "namespace": "nowhere-either"})]
    with pytest.raises(kubelite.ApplyError) as caught:
        kube.apply(docs)
    assert [type(e) for e in caught.value.errors] == [kubelite.NotFound, kubelite.NotFound]
    assert [r.name for r in caught.value.results] == ["one"]
    assert kube.get("configmaps", "one")["data"] == {"a": "1"}


def test_remote_only_operations_raise_not_supported(kube):
    with kube.serve() as kubeconfig:
        with kubelite.connect(kubeconfig) as remote:
            assert remote.get("namespaces", "default")["metadata"]["name"] == "default"
            for call in (remote.settle, lambda: remote.advance(1), remote.snapshot, remote.serve):
                with pytest.raises(kubelite.NotSupported):
                    call()
            with pytest.raises(kubelite.NotSupported, match="a remote cluster's clock cannot be moved"):
                remote.advance(1)
    # an in-process cluster on wall time can be advanced (its clock keeps the offset)
    before = kube.clock.time()
    kube.advance(60)
    assert kube.clock.time() - before >= 60


@needs_kubectl
def test_server_side_apply_conflict_is_kubectls(kube, tmp_path):
    path = tmp_path / "cm.json"
    path.write_text(json.dumps(CONFIGMAP))
    assert [r.action for r in kube.apply(str(path), server_side=True)] == ["serverside-applied"]
    kube.patch("configmaps", "cm", {"data": {"a": "2"}}, type="merge")
    with pytest.raises(kubelite.Conflict) as caught:
        kube.apply(str(path), server_side=True)
    with kube.serve() as kubeconfig:
        done = kubectl(kubeconfig, "apply", "--server-side", "-f", str(path), cache=tmp_path)
    assert done.returncode == 1
    assert done.stderr == str(caught.value) + "\n"
    assert kube.apply(str(path), server_side=True, force_conflicts=True)[0].object["data"] == {"a": "1"}
