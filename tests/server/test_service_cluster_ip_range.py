"""kube-apiserver's --service-cluster-ip-range: the range Services' cluster IPs come from, chosen
with `Cluster(service_cidr=...)`, `kubelite.Cluster(service_cidr=...)` and `kubelite serve
--service-cluster-ip-range`. The default stays kube-apiserver's own 10.0.0.0/24 (the recorded
reference server's), which holds 253 Services besides `kubernetes`."""
from __future__ import annotations

import ipaddress
import json
import pathlib
import subprocess
import sys

import pytest

import kubelite
from kubelite.server.cluster import Cluster
from test_serve_support import KUBECTL, serving

REFERENCE = pathlib.Path(__file__).resolve().parent.parent / "data" / "reference" / "apiserver" / "errors"
SERVICES = "/api/v1/namespaces/default/services"


def _service(name: str, cluster_ip: str | None = None) -> dict:
    spec: dict = {"ports": [{"port": 80}]}
    if cluster_ip:
        spec["clusterIP"] = cluster_ip
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def _kubernetes_ip(client) -> str:
    return client.get(SERVICES + "/kubernetes").json()["spec"]["clusterIP"]


def test_services_take_their_addresses_from_the_given_range():
    network = ipaddress.ip_network("10.96.0.0/16")
    with Cluster("memory://", controllers=False, service_cidr=str(network)) as cluster, \
            cluster.http_client() as client:
        assert _kubernetes_ip(client) == "10.96.0.1"
        # more Services than the default range holds (253 besides `kubernetes`)
        addresses = []
        for i in range(300):
            answer = client.post(SERVICES, json=_service(f"s{i}"))
            assert answer.status_code == 201, answer.text
            addresses.append(answer.json()["spec"]["clusterIP"])
    assert len(set(addresses)) == 300
    assert all(ipaddress.ip_address(ip) in network for ip in addresses)
    assert "10.96.0.1" not in addresses


def test_a_requested_address_outside_the_range_is_refused_naming_the_range():
    # the recorded kube-apiserver answer (range 10.0.0.0/24, address 10.99.0.5), for this range
    recorded = (REFERENCE / "invalid-service-clusterip-out-of-range.body.json").read_text()
    expected = json.loads(recorded.replace("10.0.0.0/24", "10.200.0.0/16"))
    with Cluster("memory://", controllers=False, service_cidr="10.200.0.0/16") as cluster, \
            cluster.http_client() as client:
        answer = client.post(SERVICES, json=_service("badclusterip", "10.99.0.5"))
        assert answer.status_code == 422 and answer.json() == expected
        # an address the range holds is given as asked
        answer = client.post(SERVICES, json=_service("inside", "10.200.3.4"))
        assert answer.status_code == 201 and answer.json()["spec"]["clusterIPs"] == ["10.200.3.4"]


def test_the_default_range_is_kube_apiservers():
    with Cluster("memory://", controllers=False) as cluster, cluster.http_client() as client:
        assert _kubernetes_ip(client) == "10.0.0.1"
        answer = client.post(SERVICES, json=_service("badclusterip", "10.99.0.5"))
    recorded = json.loads((REFERENCE / "invalid-service-clusterip-out-of-range.body.json").read_text())
    assert answer.status_code == 422 and answer.json() == recorded


def test_an_address_in_the_range_stands_for_its_network():
    with Cluster("memory://", controllers=False, service_cidr="172.20.7.9/16") as cluster, \
            cluster.http_client() as client:
        assert _kubernetes_ip(client) == "172.20.0.1"


def test_the_python_api_takes_the_range():
    with kubelite.Cluster(controllers=False, service_cidr="10.200.0.0/20") as kube:
        assert kube.get("service", "kubernetes")["spec"]["clusterIP"] == "10.200.0.1"
        created = kube.create(_service("web"))
    assert ipaddress.ip_address(created["spec"]["clusterIP"]) in ipaddress.ip_network("10.200.0.0/20")


REFUSED = [
    # kube-apiserver's own words (its options validation) for a range over 2^20 addresses
    ("10.92.0.0/8", "specified service_cidr is too large; for 32-bit addresses, the mask must be >= 12"),
    ("3000::/64", "specified service_cidr is too large; for 128-bit addresses, the mask must be >= 108"),
    # what this server does not do, or cannot hand out
    ("fd00::/108", "fd00::/108: only an IPv4 range is supported"),
    ("10.0.0.0/16,fd00::/108", "dual-stack ranges are not supported"),
    ("10.0.0.0/31", "10.0.0.0/31: too small"),
    ("10.0.0.300/24", "10.0.0.300/24: not a CIDR"),
    ("", "a CIDR such as 10.0.0.0/24 is needed"),
]


@pytest.mark.parametrize("text, message", REFUSED)
def test_a_refused_range_is_a_clear_error(text, message):
    with pytest.raises(ValueError) as info:
        Cluster("memory://", controllers=False, service_cidr=text)
    assert message in str(info.value)


def test_serve_takes_the_flag_and_kubectl_sees_the_addresses(tmp_path):
    with serving(tmp_path, "--controllers=-*", "--service-cluster-ip-range", "10.96.0.0/12") as server:
        def kubectl(*argv: str) -> str:
            done = subprocess.run([KUBECTL, "--kubeconfig", str(server.kubeconfig), *argv],
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            return done.stdout

        assert kubectl("get", "service", "kubernetes", "-o", "jsonpath={.spec.clusterIP}") == "10.96.0.1"
        kubectl("create", "service", "clusterip", "web", "--tcp=80:8080")
        address = kubectl("get", "service", "web", "-o", "jsonpath={.spec.clusterIP}")
    assert ipaddress.ip_address(address) in ipaddress.ip_network("10.96.0.0/12")


def test_serve_refuses_a_range_too_large_before_touching_its_data_dir(tmp_path):
    data_dir = tmp_path / "data"
    done = subprocess.run([sys.executable, "-m", "kubelite", "serve", "--data-dir", str(data_dir), "--port", "0",
                           "--service-cluster-ip-range", "10.0.0.0/8"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "kubelite serve: error: argument --service-cluster-ip-range: specified --service-cluster-ip-range "
        "is too large; for 32-bit addresses, the mask must be >= 12")
    assert "Traceback" not in done.stderr
    assert not data_dir.exists()
