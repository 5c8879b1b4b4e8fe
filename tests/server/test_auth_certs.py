"""Client certificates on `kubelite serve`: the kubeconfig written with
--kubeconfig-auth=client-certificate authenticates as kind's admin does (CN kubernetes-admin,
O system:masters), certificates the server's CA signed map CN/O to user/groups for RBAC, and a
certificate from another CA is refused. Real kubectl and kubelite are both checked."""
from __future__ import annotations

import base64
import os
import pathlib
import subprocess
import sys

import pytest
import yaml

from test_serve_support import KUBECTL, Served

from kubelite.server.auth.certs import issue_client_certificate
from kubelite.server.tls import ensure_tls

needs_kubectl = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl not installed")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("certs")
    server = Served(base / "data", base / "kubeconfig", ("--kubeconfig-auth", "client-certificate")).start()
    try:
        yield server
    finally:
        server.stop()


def kubeconfig_for(served: Served, path: pathlib.Path, cert: bytes, key: bytes) -> pathlib.Path:
    config = yaml.safe_load(served.kubeconfig.read_text())
    config["users"][0]["user"] = {"client-certificate-data": base64.b64encode(cert).decode(),
                                  "client-key-data": base64.b64encode(key).decode()}
    path.write_text(yaml.safe_dump(config))
    return path


def run(argv0: list[str], kubeconfig: pathlib.Path, *args: str) -> tuple[int, str, str]:
    p = subprocess.run([*argv0, "--kubeconfig", str(kubeconfig), *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


CLIENTS = {"kubectl": [KUBECTL], "kubelite": [sys.executable, "-m", "kubelite"]}


def test_written_kubeconfig_uses_a_client_certificate(served):
    user = yaml.safe_load(served.kubeconfig.read_text())["users"][0]["user"]
    assert set(user) == {"client-certificate-data", "client-key-data"}


@needs_kubectl
@pytest.mark.parametrize("client", CLIENTS)
def test_admin_certificate_is_a_cluster_admin(served, client):
    code, out, err = run(CLIENTS[client], served.kubeconfig, "auth", "whoami")
    assert (code, err) == (0, "")
    assert out == "ATTRIBUTE   VALUE\nUsername    kubernetes-admin\nGroups      [system:masters system:authenticated]\n"
    assert run(CLIENTS[client], served.kubeconfig, "get", "namespaces", "-o", "name")[0] == 0


@needs_kubectl
@pytest.mark.parametrize("client", CLIENTS)
def test_certificate_names_user_and_groups_for_rbac(served, tmp_path, client):
    cert, key = issue_client_certificate(served.data_dir / "pki", "dana", ["devs", "qa"])
    config = kubeconfig_for(served, tmp_path / "dana", cert, key)
    code, out, _ = run(CLIENTS[client], config, "auth", "whoami")
    assert code == 0
    assert "Groups      [devs qa system:authenticated]" in out and "Username    dana" in out
    code, out, err = run(CLIENTS[client], config, "get", "secrets")
    assert code == 1
    assert err == ('Error from server (Forbidden): secrets is forbidden: User "dana" cannot list resource '
                   '"secrets" in API group "" in the namespace "default"\n')


@needs_kubectl
@pytest.mark.parametrize("client", CLIENTS)
def test_certificate_of_another_ca_is_refused(served, tmp_path, client):
    ensure_tls(tmp_path / "other")
    cert, key = issue_client_certificate(tmp_path / "other", "kubernetes-admin", ["system:masters"])
    config = kubeconfig_for(served, tmp_path / "mallory", cert, key)
    code, out, err = run(CLIENTS[client], config, "get", "namespaces", "--request-timeout=20s")
    assert code == 1 and out == "" and err
    assert "Traceback" not in err


def test_token_auth_file_and_anonymous_auth_off(tmp_path):
    import ssl
    import urllib.error
    import urllib.request

    tokens = tmp_path / "tokens.csv"
    tokens.write_text('tok-carol,carol,2001,"qa"\n')
    server = Served(tmp_path / "data", tmp_path / "kubeconfig",
                    ("--token-auth-file", str(tokens), "--anonymous-auth=false")).start()
    try:
        context = ssl.create_default_context(cafile=server.ca)

        def status(path: str, token: str | None = None) -> int:
            request = urllib.request.Request(server.url + path)
            if token:
                request.add_header("Authorization", f"Bearer {token}")
            try:
                with urllib.request.urlopen(request, context=context, timeout=20) as r:
                    return r.status
            except urllib.error.HTTPError as err:
                return err.code

        assert status("/api/v1/namespaces/default/configmaps") == 401  # no anonymous user
        assert status("/version") == 200  # still public
        assert status("/api", "tok-carol") == 200  # system:discovery, through system:authenticated
        assert status("/api/v1/namespaces/default/configmaps", "tok-carol") == 403
        assert status("/api/v1/namespaces/default/configmaps", server.token) == 200
    finally:
        server.stop()


def test_unreadable_token_file_is_a_one_line_error(tmp_path):
    p = subprocess.run([sys.executable, "-m", "kubelite", "serve", "--data-dir", str(tmp_path / "d"), "--port", "0",
                        "--token-auth-file", str(tmp_path / "missing.csv")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and "missing.csv" in p.stderr and "Traceback" not in p.stderr
