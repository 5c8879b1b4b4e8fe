"""Differential: real kubectl 1.32 and kubelite, both against one `kubelite serve`, on `auth whoami`,
`auth can-i` (yes/no, exit codes, warnings, --list), `--as`/`--as-group` and service-account
tokens. Where a real cluster's answer was recorded (tests/data/reference/apiserver/errors:
impersonate-forbidden-user.kubectl.txt), kubectl's output through kubelite serve must equal it.
"""
from __future__ import annotations

import pathlib
import re

import pytest
import yaml

ERRORS = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "errors"

pytestmark = pytest.mark.kubectl


def both(kubectl, remote, *args):
    """(kubectl's, kubelite's) (exit code, stdout, stderr) for the same command line."""
    theirs, ours = kubectl.run(*args), remote.run(*args)
    return (theirs.returncode, theirs.stdout, theirs.stderr), (ours.returncode, ours.stdout, ours.stderr)


def same(kubectl, remote, *args):
    theirs, ours = both(kubectl, remote, *args)
    assert ours == theirs, args
    return theirs


def recorded_kubectl(name: str) -> tuple[str, str, int]:
    text = (ERRORS / f"{name}.kubectl.txt").read_text()
    stdout = text.split("--- stdout ---\n", 1)[1].split("--- stderr ---\n", 1)[0]
    stderr = text.split("--- stderr ---\n", 1)[1].split("--- exit code:", 1)[0]
    code = int(re.search(r"--- exit code: (\d+)", text).group(1))
    return stdout, stderr, code


def test_whoami_admin(kubectl, remote):
    code, out, err = same(kubectl, remote, "auth", "whoami")
    assert code == 0
    assert out == "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [system:masters system:authenticated]\n"


def test_whoami_impersonated_and_as_json(kubectl, remote):
    code, out, _ = same(kubectl, remote, "auth", "whoami", "--as", "jane", "--as-group", "devs", "--as-group", "ops")
    assert "Groups      [devs ops system:authenticated]" in out
    same(kubectl, remote, "auth", "whoami", "--as", "system:serviceaccount:ci:bot", "-o", "json")


def test_forbidden_impersonated_list_matches_the_recorded_cluster(kubectl, remote):
    stdout, stderr, code = recorded_kubectl("impersonate-forbidden-user")
    theirs, ours = both(kubectl, remote, "-n", "rc-errors", "get", "configmaps", "--as=jane")
    assert theirs == (code, stdout, stderr)
    assert ours == theirs


@pytest.mark.parametrize("args", [
    ("create", "pods"),
    ("create", "pods", "--as", "nobody"),
    ("get", "pods", "--subresource=log", "--as", "nobody"),
    ("list", "deployments.apps", "-A", "--as", "nobody"),
    ("get", "/healthz", "--as", "nobody"),
    ("get", "/metrics", "--as", "nobody"),
    ("get", "nodes", "--as", "nobody"),
    ("frobnicate", "pods"),
    ("get", "widgets"),
    ("get", "widgets.example.com"),
    ("create", "pods", "-q", "--as", "nobody"),
    ("get", "pods/one", "--as", "nobody"),
])
def test_can_i_answers_as_kubectl(kubectl, remote, args):
    same(kubectl, remote, "auth", "can-i", *args)


def test_can_i_usage_errors(kubectl, remote):
    for args in (("get",), ("--list", "pods"), ("--list", "-q"), ("get", "/x", "--subresource=log")):
        theirs, ours = both(kubectl, remote, "auth", "can-i", *args)
        assert ours[0] == theirs[0] == 1, args
        assert ours[2].replace("kubelite", "kubectl") == theirs[2], args


def test_grants_seen_by_can_i_and_list(kubectl, remote):
    assert kubectl.run("create", "role", "pod-reader", "--verb=get,list", "--resource=pods",
                       "--resource-name=p1").returncode == 0
    assert kubectl.run("create", "rolebinding", "alice-pods", "--role=pod-reader", "--user=alice").returncode == 0
    assert kubectl.run("create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice").returncode == 0
    code, out, _ = same(kubectl, remote, "auth", "can-i", "get", "pods/p1", "--as", "alice")
    assert (code, out) == (0, "yes\n")
    same(kubectl, remote, "auth", "can-i", "delete", "pods/p1", "--as", "alice")
    code, out, _ = same(kubectl, remote, "auth", "can-i", "--list", "--as", "alice")
    assert "pods   " in out and "[p1]" in out and "[/healthz]" in out
    same(kubectl, remote, "auth", "can-i", "--list", "--no-headers", "--as", "alice", "-n", "kube-system")
    same(kubectl, remote, "auth", "can-i", "--list")


def test_service_account_token_end_to_end(kubectl, remote, served, tmp_path):
    assert kubectl.run("create", "serviceaccount", "builder").returncode == 0
    token = kubectl.run("create", "token", "builder").stdout.strip()
    assert token.count(".") == 2
    # The served kubeconfig's admin has a client certificate, which kube-apiserver authenticates
    # before any bearer token: the token goes with a kubeconfig whose user has no credentials.
    config = yaml.safe_load(served.kubeconfig.read_text())
    config["users"][0]["user"] = {}
    tokenless = tmp_path / "tokenless"
    tokenless.write_text(yaml.safe_dump(config))
    as_builder = f"--kubeconfig={tokenless}", "--token", token
    code, out, _ = same(kubectl, remote, *as_builder, "auth", "whoami")
    assert re.search(r"^Username +system:serviceaccount:default:builder$", out, re.M)
    code, out, err = same(kubectl, remote, *as_builder, "get", "secrets")
    assert code == 1
    assert err == ('Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:default:builder" '
                   'cannot list resource "secrets" in API group "" in the namespace "default"\n')
    assert kubectl.run("create", "rolebinding", "builder-edit", "--clusterrole=edit",
                       "--serviceaccount=default:builder").returncode == 0
    assert same(kubectl, remote, *as_builder, "auth", "can-i", "create", "secrets")[:2] == (0, "yes\n")
    code, out, err = same(kubectl, remote, f"--kubeconfig={tokenless}", "--token", token + "x", "get", "pods")
    assert code == 1 and "Unauthorized" in err
