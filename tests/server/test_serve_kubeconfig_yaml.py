"""The kubeconfig `kubelite serve --write-kubeconfig` writes without PyYAML (server/kubeconfig.py)
reads back as the dict it was built from, and is what PyYAML wrote for the usual values."""
from __future__ import annotations

import secrets

import pytest
import yaml

from kubelite.server.kubeconfig import build_kubeconfig, to_yaml


@pytest.mark.parametrize("token", ["tok", "-starts-with-a-dash", "_under", "123", "yes", "Null", "a b#c: d", "abc:",
                                   "é'\"\\", "0znuoYgT_J4XD6_2LE7BLgJHqQB0qfazRIGH6iOx1Ms"])
def test_kubeconfig_yaml_reads_back(token):
    for client_cert in (None, (b"cert", b"key")):
        config = build_kubeconfig("https://[::1]:6443", secrets.token_bytes(40), token, namespace="ns",
                                  client_cert=client_cert)
        assert yaml.safe_load(to_yaml(config)) == config


def test_kubeconfig_yaml_is_what_pyyaml_writes():
    config = build_kubeconfig("https://127.0.0.1:6443", b"-----BEGIN CERTIFICATE-----\n", "abcDEF123",
                              client_cert=(b"c", b"k"))
    assert to_yaml(config) == yaml.safe_dump(config, default_flow_style=False, sort_keys=False)
