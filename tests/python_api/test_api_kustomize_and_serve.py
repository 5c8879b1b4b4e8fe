"""kustomize() equals kubectl kustomize; a served cluster is the same cluster for every client."""
from __future__ import annotations

import os
import subprocess

import pytest
import yaml

import kubelite
from api_support import KUBECTL, ROOT, kubectl, needs_kubectl

MY_NGINX = ROOT / "examples" / "my-nginx"
OVERLAY = ROOT / "tests" / "data" / "kustomize" / "cases" / "016-small-overlay" / "input" / "overlay"


@needs_kubectl
@pytest.mark.parametrize("directory", [MY_NGINX, OVERLAY], ids=["my-nginx", "small-overlay"])
def test_kustomize_equals_kubectl_kustomize_in_order(directory):
    done = subprocess.run([KUBECTL, "kustomize", str(directory)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    expected = [doc for doc in yaml.safe_load_all(done.stdout) if doc is not None]
    assert kubelite.kustomize(str(directory)) == expected
    assert len(expected) > 1


def test_apply_a_kustomization(kube):
    results = kube.apply(str(MY_NGINX), kustomize=True)
    built = kubelite.kustomize(str(MY_NGINX))
    assert [(r.kind, r.name) for r in results] == [(o["kind"], o["metadata"]["name"]) for o in built]
    assert {r.action for r in results} == {"created"}
    assert kube.diff(str(MY_NGINX), kustomize=True) == ""


@needs_kubectl
def test_kube_server_sets_kubeconfig_for_kubectl(kube_server, tmp_path, monkeypatch):
    kube_server.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "from-python"}})
    monkeypatch.setenv("HOME", str(tmp_path))  # no discovery cache shared with other tests
    done = subprocess.run([KUBECTL, "get", "configmap", "from-python", "-o", "name"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "configmap/from-python\n"


def test_official_client_writes_and_controllers_act(kube_server):
    kubernetes = pytest.importorskip("kubernetes")
    # the client reads $KUBECONFIG once, when first imported (maybe by an earlier test): name it
    kubernetes.config.load_kube_config(config_file=os.environ["KUBECONFIG"])
    apps = kubernetes.client.AppsV1Api()
    apps.create_namespaced_deployment("default", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "py"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "py"}},
                 "template": {"metadata": {"labels": {"app": "py"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    dep = kube_server.wait("deployment/py", "condition=Available", timeout=60)
    assert dep["status"]["readyReplicas"] == 2
    core = kubernetes.client.CoreV1Api()
    names = sorted(p.metadata.name for p in core.list_namespaced_pod("default", label_selector="app=py").items)
    assert names == sorted(p["metadata"]["name"] for p in kube_server.list("pods", selector="app=py"))


@needs_kubectl
def test_serving_twice_and_the_in_process_api_keeps_working(kube, tmp_path):
    for _ in range(2):
        with kube.serve() as kubeconfig:
            assert kubectl(kubeconfig, "get", "ns", "default", "-o", "name", cache=tmp_path).stdout == \
                "namespace/default\n"
    kube.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "after"}})
    events = list(kube.watch("configmaps", name="after", timeout=0.5))
    assert [e["type"] for e in events] == ["ADDED"]


def test_lightkube_against_kube_server(kube_server):
    lightkube = pytest.importorskip("lightkube")
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap, Pod

    client = lightkube.Client(lightkube.KubeConfig.from_file(os.environ["KUBECONFIG"]))
    client.create(ConfigMap(metadata=ObjectMeta(name="lk"), data={"a": "1"}))
    assert kube_server.get("configmaps", "lk")["data"] == {"a": "1"}
    kube_server.apply(str(MY_NGINX / "deployment.yaml"))
    pods = sorted(p.metadata.name for p in client.list(Pod, namespace="default", labels={"run": "my-nginx"}))
    assert pods == sorted(p["metadata"]["name"] for p in kube_server.list("pods", selector="run=my-nginx"))
    assert len(pods) == 2


def test_kr8s_against_kube_server(kube_server):
    kr8s = pytest.importorskip("kr8s")
    from kr8s.objects import ConfigMap

    api = kr8s.api(kubeconfig=os.environ["KUBECONFIG"])
    kube_server.apply(str(MY_NGINX / "deployment.yaml"))
    pods = list(kr8s.get("pods", namespace="default", label_selector={"run": "my-nginx"}, api=api))
    assert len(pods) == 2
    ConfigMap({"metadata": {"name": "k8", "namespace": "default"}, "data": {"b": "2"}}, api=api).create()
    assert kube_server.get("configmaps", "k8")["data"] == {"b": "2"}
