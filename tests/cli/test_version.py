"""`kubelite version`: kubectl's layout (text, -o json, -o yaml), the server's /version, --client
working with no server."""
from __future__ import annotations

import json

import yaml


def test_client_only_needs_no_server(embedded):
    r = embedded.run("version", "--client")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Client Version: v1.32") and lines[1] == "Kustomize Version: v5.5.0"
    assert len(lines) == 2


def test_server_version_embedded(embedded):
    r = embedded.run("version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2] == "Server Version: v1.32.13"
    doc = json.loads(embedded.run("version", "-o", "json").stdout)
    assert list(doc) == ["clientVersion", "kustomizeVersion", "serverVersion"]
    assert list(doc["clientVersion"]) == ["major", "minor", "gitVersion", "gitCommit", "gitTreeState", "buildDate",
                                          "goVersion", "compiler", "platform"]
    assert doc["serverVersion"]["gitVersion"] == "v1.32.13"
    doc = yaml.safe_load(embedded.run("version", "--client", "-o", "yaml").stdout)
    assert set(doc) == {"clientVersion", "kustomizeVersion"}


def test_server_version_matches_kubectl(kubectl, remote):
    want = json.loads(kubectl.run("version", "-o", "json").stdout)["serverVersion"]
    got = json.loads(remote.run("version", "-o", "json").stdout)["serverVersion"]
    assert got == want
    r = remote.run("version", "-o", "xml")
    assert (r.returncode, r.stderr) == (1, "error: --output must be 'yaml' or 'json'\n")
