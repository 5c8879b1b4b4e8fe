"""Admission plugins that need cluster state (passed in as arguments)."""

import ipaddress
import json
import pathlib
import random

import pytest

from kubelite.server import errors
from kubelite.server.admission import defaults, plugins

ERRORS = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "errors"


def _svc(**spec):
    return defaults.apply_defaults(
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "n"},
         "spec": {"ports": [{"port": 80}], **spec}}
    )


def test_missing_service_account_is_the_recorded_403():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "rc-errors-nosa"},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    with pytest.raises(errors.StatusError) as info:
        plugins.apply_service_account(pod, None)
    expected = json.loads((ERRORS / "pod-without-default-serviceaccount.body.json").read_text())
    assert info.value.to_status() == expected


def test_automount_false_still_requires_the_service_account():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"},
           "spec": {"automountServiceAccountToken": False, "containers": [{"name": "c", "image": "i"}]}}
    with pytest.raises(errors.StatusError):
        plugins.apply_service_account(pod, None)
    out = plugins.apply_service_account(pod, {"metadata": {"name": "default"}})
    assert "volumes" not in out["spec"]
    assert out["spec"]["serviceAccountName"] == "default"


def test_token_volume_name_and_mounts():
    pod = {"spec": {"containers": [{"name": "a", "image": "i"}], "initContainers": [{"name": "b", "image": "i"}]}}
    out = plugins.apply_service_account(pod, {}, volume_suffix="abcde")
    assert out["spec"]["volumes"][0]["name"] == "kube-api-access-abcde"
    for c in out["spec"]["containers"] + out["spec"]["initContainers"]:
        assert c["volumeMounts"][-1]["mountPath"] == plugins.SERVICE_ACCOUNT_MOUNT_PATH
    # The suffix is random when not given, drawn from the name-generator alphabet.
    other = plugins.apply_service_account(pod, {})
    assert other["spec"]["volumes"][0]["name"].startswith("kube-api-access-")
    assert len(other["spec"]["volumes"][0]["name"]) == len("kube-api-access-") + 5


def test_default_tolerations_respect_existing():
    pod = {"spec": {"tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                     "effect": "NoExecute", "tolerationSeconds": 10}]}}
    out = plugins.apply_default_tolerations(pod)
    keys = [t["key"] for t in out["spec"]["tolerations"]]
    assert keys == ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
    assert out["spec"]["tolerations"][0]["tolerationSeconds"] == 10


def test_priority_classes():
    pod = {"metadata": {"name": "p"}, "spec": {}}
    assert plugins.apply_priority(pod)["spec"]["priority"] == 0
    high = {"metadata": {"name": "high"}, "value": 1000, "globalDefault": True}
    out = plugins.apply_priority(pod, [high])
    assert (out["spec"]["priority"], out["spec"]["priorityClassName"]) == (1000, "high")
    crit = plugins.apply_priority({"spec": {"priorityClassName": "system-node-critical"}})
    assert crit["spec"]["priority"] == 2000001000
    with pytest.raises(errors.StatusError) as info:
        plugins.apply_priority({"metadata": {"name": "p"}, "spec": {"priorityClassName": "nope"}})
    assert info.value.code == 403


def test_cluster_ip_allocation_in_range_and_unique():
    used = {"10.0.0.1"}
    rng = random.Random(7)
    for _ in range(20):
        svc = plugins.allocate_cluster_ip(_svc(), used, rng=rng)
        ip = svc["spec"]["clusterIP"]
        assert ipaddress.ip_address(ip) in ipaddress.ip_network(plugins.DEFAULT_SERVICE_CIDR)
        assert ip not in used
        assert svc["spec"]["clusterIPs"] == [ip]
        assert svc["spec"]["ipFamilies"] == ["IPv4"] and svc["spec"]["ipFamilyPolicy"] == "SingleStack"
        used.add(ip)


def test_kubernetes_service_gets_first_address():
    assert plugins.kubernetes_service_ip() == "10.0.0.1"
    assert plugins.kubernetes_service_ip("10.96.0.0/12") == "10.96.0.1"


def test_requested_ip_already_allocated():
    with pytest.raises(errors.StatusError) as info:
        plugins.allocate_cluster_ip(_svc(clusterIP="10.0.0.5"), {"10.0.0.5"})
    assert info.value.code == 422
    assert "provided IP is already allocated" in info.value.message


def test_headless_and_external_name_get_no_ip():
    headless = plugins.allocate_cluster_ip(_svc(clusterIP="None"), set())
    assert headless["spec"]["clusterIPs"] == ["None"]
    external = plugins.allocate_cluster_ip(_svc(type="ExternalName", externalName="a.b"), set())
    assert "clusterIP" not in external["spec"]


def test_node_ports():
    svc = plugins.allocate_node_ports(_svc(type="NodePort"), {30000}, rng=random.Random(1))
    port = svc["spec"]["ports"][0]["nodePort"]
    assert 30000 < port <= 32767
    lb = defaults.apply_defaults({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "l"},
                                  "spec": {"type": "LoadBalancer", "externalTrafficPolicy": "Local",
                                           "allocateLoadBalancerNodePorts": False, "ports": [{"port": 80}]}})
    lb = plugins.allocate_node_ports(lb, set())
    assert "nodePort" not in lb["spec"]["ports"][0]
    assert 30000 <= lb["spec"]["healthCheckNodePort"] <= 32767
    with pytest.raises(errors.StatusError):
        plugins.allocate_node_ports(_svc(type="NodePort", ports=[{"port": 80, "nodePort": 30001}]), {30001})
