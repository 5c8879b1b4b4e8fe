"""HorizontalPodAutoscaler served as autoscaling/v1 and v2 from one stored (v2) object.

The v2 side is checked against kube-apiserver 1.32 recordings (tests/data/reference/apiserver/defaults);
the v1 side against upstream's conversion rules: the first CPU utilization metric is
targetCPUUtilizationPercentage, the other metrics ride in the autoscaling.alpha.kubernetes.io/metrics
annotation, and a v1 client writing the object back loses none of them.
"""
import json
import os
from pathlib import Path

import pytest
import yaml

from imperative_support import needs_kubectl, run_kubectl

DEFAULTS = Path(__file__).parents[1] / "data" / "reference" / "apiserver" / "defaults"
V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
METRICS = "autoscaling.alpha.kubernetes.io/metrics"


def _recorded(name: str) -> dict:
    return json.loads((DEFAULTS / f"{name}.created.json").read_text())


def test_recorded_v2_objects_convert_down_and_back():
    from kubelite.server.conversion import hpa_to_v1, hpa_to_v2

    rich = _recorded("hpa-rich")
    v1 = hpa_to_v1(rich)
    assert v1["apiVersion"] == "autoscaling/v1"
    assert v1["spec"] == {"scaleTargetRef": rich["spec"]["scaleTargetRef"], "minReplicas": 2, "maxReplicas": 10,
                          "targetCPUUtilizationPercentage": 60}
    others = json.loads(v1["metadata"]["annotations"][METRICS])
    assert [m["type"] for m in others] == ["Resource", "Pods", "External"]
    assert others[0]["resource"] == {"name": "memory", "targetAverageValue": "500Mi"}
    assert others[1]["pods"] == {"metricName": "packets-per-second", "targetAverageValue": "1k"}
    assert others[2]["external"] == {"metricName": "queue_messages_ready",
                                     "metricSelector": {"matchLabels": {"queue": "worker_tasks"}}, "targetValue": "30"}
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    back = hpa_to_v2(v1)
    # the CPU metric comes back after the annotation's ones, as upstream orders them
    assert back["spec"]["metrics"] == rich["spec"]["metrics"][1:] + rich["spec"]["metrics"][:1]
    assert "annotations" not in back["metadata"]

    minimal = _recorded("hpa-minimal")
    assert hpa_to_v1(minimal)["spec"]["targetCPUUtilizationPercentage"] == 80
    assert "annotations" not in hpa_to_v1(minimal)["metadata"]


def test_v1_without_a_target_means_80_percent_cpu():
    from kubelite.server.conversion import hpa_to_v2

    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "x"},
          "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 3}}
    assert hpa_to_v2(v1)["spec"]["metrics"] == _recorded("hpa-minimal")["spec"]["metrics"]


@pytest.fixture
def kubectl(served, tmp_path):
    env = {**os.environ, "KUBECONFIG": str(served.kubeconfig), "HOME": str(tmp_path)}

    def run(*argv, stdin=None):
        p = run_kubectl(argv, env, cache_dir=tmp_path / "kc", stdin=stdin)
        assert p.returncode == 0, p.stderr
        return p.stdout
    return run


def _without_server_fields(obj: dict) -> dict:
    meta = {k: v for k, v in obj["metadata"].items()
            if k not in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "namespace", "generation")}
    return {**obj, "metadata": meta}


@pytest.mark.kubectl
@needs_kubectl
def test_v1_and_v2_views_of_one_object(served, kubectl, tmp_path):
    for name in ("hpa-rich", "hpa-minimal"):
        kubectl("create", "-f", str(DEFAULTS / f"{name}.in.yaml"))
        stored = json.loads(kubectl("get", "hpa", name, "-o", "json"))
        assert _without_server_fields(stored) == _without_server_fields(_recorded(name))
        v1 = json.loads(kubectl("get", "--raw", f"{V1}/{name}"))
        assert v1["apiVersion"] == "autoscaling/v1" and "metrics" not in v1["spec"]
        assert v1["spec"]["targetCPUUtilizationPercentage"] == (60 if name == "hpa-rich" else 80)
    listed = json.loads(kubectl("get", "--raw", V1))
    assert listed["apiVersion"] == "autoscaling/v1"
    assert [item["spec"]["targetCPUUtilizationPercentage"] for item in listed["items"]] == [80, 60]
    assert all("metrics" not in item["spec"] for item in listed["items"])

    # a v1 client writing back what it read keeps the metrics v1 cannot express
    v1 = json.loads(kubectl("get", "--raw", f"{V1}/hpa-rich"))
    v1["spec"]["maxReplicas"] = 12
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(v1))
    kubectl("replace", "-f", str(path))
    after = json.loads(kubectl("get", "hpa", "hpa-rich", "-o", "json"))
    assert after["spec"]["maxReplicas"] == 12
    assert sorted(json.dumps(m, sort_keys=True) for m in after["spec"]["metrics"]) == \
        sorted(json.dumps(m, sort_keys=True) for m in _recorded("hpa-rich")["spec"]["metrics"])
    assert METRICS not in (after["metadata"].get("annotations") or {})

    # a patch written against v1 lands on the stored v2 metric (kubectl patch always picks v2: plain HTTP)
    import ssl

    import httpx

    with httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                      headers={"Authorization": f"Bearer {served.token}"}) as http:
        answer = http.patch(f"{V1}/hpa-minimal", content='{"spec":{"targetCPUUtilizationPercentage":55}}',
                            headers={"Content-Type": "application/merge-patch+json"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["apiVersion"] == "autoscaling/v1"
    assert answer.json()["spec"]["targetCPUUtilizationPercentage"] == 55
    patched = json.loads(kubectl("get", "hpa", "hpa-minimal", "-o", "json"))
    assert patched["spec"]["metrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 55}}}]
    # and v1 objects created from a file are stored as v2
    created = yaml.safe_load(kubectl("create", "-f", "-", "-o", "yaml", stdin=json.dumps({
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "from-v1"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 4,
                 "targetCPUUtilizationPercentage": 70}})))
    assert created["apiVersion"] == "autoscaling/v1"
    assert created["spec"] == {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
                               "minReplicas": 1, "maxReplicas": 4, "targetCPUUtilizationPercentage": 70}
    assert json.loads(kubectl("get", "hpa", "from-v1", "-o", "json"))["spec"]["metrics"][0]["resource"]["target"] \
        == {"type": "Utilization", "averageUtilization": 70}
