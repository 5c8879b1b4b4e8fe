"""A Service's cluster IP is drawn at random from the free addresses of the range (the whole
range is listed only once it is nearly full); a full range is kube-apiserver's 500."""
from __future__ import annotations

import ipaddress
import random

import pytest

from kubelite.server import errors
from kubelite.server.admission import plugins

HOSTS = [str(ip) for ip in ipaddress.ip_network(plugins.DEFAULT_SERVICE_CIDR).hosts()]


def _svc() -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}


def test_the_last_free_address_is_found():
    used = set(HOSTS) - {"10.0.0.77"}
    assert plugins.allocate_cluster_ip(_svc(), used, rng=random.Random(1))["spec"]["clusterIP"] == "10.0.0.77"


def test_the_kubernetes_address_is_never_handed_out():
    used = set(HOSTS) - {"10.0.0.1", "10.0.0.9"}
    for seed in range(20):
        assert plugins.allocate_cluster_ip(_svc(), used, rng=random.Random(seed))["spec"]["clusterIP"] == "10.0.0.9"


def test_a_full_range_is_an_internal_error():
    with pytest.raises(errors.StatusError) as info:
        plugins.allocate_cluster_ip(_svc(), set(HOSTS) - {"10.0.0.1"})
    assert info.value.code == 500
    assert "failed to allocate a serviceIP: range is full" in info.value.message


def test_every_free_address_can_be_drawn():
    used = set(HOSTS[10:])  # ten free: .1 (kubernetes) to .10, .1 reserved
    drawn = {plugins.allocate_cluster_ip(_svc(), used, rng=random.Random(seed))["spec"]["clusterIP"]
             for seed in range(400)}
    assert drawn == set(HOSTS[1:10])


def test_an_ipv6_range_gives_ipv6_addresses():
    ip = plugins.allocate_cluster_ip(_svc(), set(), cidr="fd00::/120")["spec"]["clusterIP"]
    assert ipaddress.ip_address(ip) in ipaddress.ip_network("fd00::/120") and ip != "fd00::1"
