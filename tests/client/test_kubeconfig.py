"""kubeconfig as kubectl reads it: merging $KUBECONFIG files, contexts, namespaces, the error
lines, and credentials (checked against /usr/bin/kubectl's `config view` where it can judge)."""
from __future__ import annotations

import base64
import os
import shutil
import ssl
import subprocess
import sys

import pytest

from kubelite.client import kubeconfig
from kubelite.client.kubeconfig import ConfigError, Overrides

FIRST = """\
apiVersion: v1
kind: Config
clusters:
- name: shared
  cluster: {server: "https://first.example:6443", insecure-skip-tls-verify: true}
- name: only-first
  cluster: {server: "https://only-first:1"}
users:
- name: admin
  user: {token: first-token}
contexts:
- name: dev
  context: {cluster: shared, user: admin, namespace: dev-ns}
- name: plain
  context: {cluster: only-first, user: admin}
"""
SECOND = """\
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: shared
  cluster: {server: "https://second.example:6443"}
- name: only-second
  cluster: {server: "https://only-second:2", tls-server-name: api.internal}
users:
- name: admin
  user: {token: second-token}
- name: filer
  user: {tokenFile: token.txt}
contexts:
- name: dev
  context: {cluster: only-second, user: admin}
- name: prod
  context: {cluster: only-second, user: filer, namespace: prod-ns}
"""


@pytest.fixture
def files(tmp_path, monkeypatch):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(FIRST)
    b.write_text(SECOND)
    (tmp_path / "token.txt").write_text("from-file\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(a), str(tmp_path / "missing.yaml"), str(b)]))
    return a, b


def test_first_file_wins_per_name_and_current_context(files):
    config = kubeconfig.load()
    conn = kubeconfig.resolve(config, Overrides())
    # current-context comes from the second file (the first sets none), but the `dev` context,
    # the `shared` cluster and the `admin` user come from the first file that names them.
    assert conn.context == "dev"
    assert conn.server == "https://first.example:6443" and conn.insecure
    assert conn.token == "first-token"
    assert conn.namespace == "dev-ns" and not conn.namespace_explicit


def test_context_cluster_user_and_namespace_flags(files):
    config = kubeconfig.load()
    conn = kubeconfig.resolve(config, Overrides(context="prod"))
    assert (conn.server, conn.namespace, conn.token, conn.tls_server_name) == (
        "https://only-second:2", "prod-ns", "from-file", "api.internal")
    conn = kubeconfig.resolve(config, Overrides(context="prod", cluster="only-first", user="admin", namespace="x"))
    assert (conn.server, conn.token, conn.namespace, conn.namespace_explicit) == (
        "https://only-first:1", "first-token", "x", True)
    assert kubeconfig.resolve(config, Overrides(context="plain")).namespace == "default"


@pytest.mark.parametrize("overrides, message", [
    (Overrides(context="nope"), "Error in configuration: context was not found for specified context: nope"),
    (Overrides(cluster="nope"), 'error: no server found for cluster "nope"'),
    (Overrides(user="nope"), 'error: auth info "nope" does not exist'),
])
def test_selection_errors_are_kubectls(files, overrides, message):
    with pytest.raises(ConfigError) as err:
        kubeconfig.resolve(kubeconfig.load(), overrides)
    assert str(err.value) == message


def test_explicit_file_must_exist(tmp_path):
    with pytest.raises(ConfigError) as err:
        kubeconfig.load(str(tmp_path / "nofile"))
    assert str(err.value) == f"error: stat {tmp_path / 'nofile'}: no such file or directory"


def test_no_kubeconfig_anywhere_means_embedded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    assert kubeconfig.load() is None
    conn = kubeconfig.resolve(None, Overrides(namespace="x"))
    assert conn.embedded and conn.namespace == "x"


def test_home_kube_config_is_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube" / "config").write_text(SECOND)
    conn = kubeconfig.resolve(kubeconfig.load(), Overrides())
    assert conn.server == "https://only-second:2" and conn.token == "second-token"


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not installed")
@pytest.mark.parametrize("args", [["config", "view"], ["config", "view", "--raw"], ["config", "get-contexts"],
                                  ["config", "current-context"], ["config", "view", "--minify"]])
def test_merged_view_matches_kubectl(files, args):
    env = dict(os.environ)
    mine = subprocess.run([sys.executable, "-m", "kubelite", *args], capture_output=True, text=True, env=env)
    theirs = subprocess.run(["kubectl", *args], capture_output=True, text=True, env=env)
    assert (mine.returncode, mine.stdout, mine.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not installed")
def test_set_context_and_use_context_write_like_kubectl(files, tmp_path):
    env = dict(os.environ)
    a, b = files
    steps = [["config", "set-context", "--current", "--namespace=changed"], ["config", "use-context", "prod"],
             ["config", "set-context", "newctx", "--cluster=only-first", "--user=admin"],
             ["config", "use-context", "nope"]]
    outputs = {}
    for tool in ("kubectl", "kubelite"):
        a.write_text(FIRST)
        b.write_text(SECOND)
        argv0 = ["kubectl"] if tool == "kubectl" else [sys.executable, "-m", "kubelite"]
        lines = []
        for step in steps:
            r = subprocess.run(argv0 + step, capture_output=True, text=True, env=env)
            lines.append((r.returncode, r.stdout, r.stderr))
        view = subprocess.run(["kubectl", "config", "view"], capture_output=True, text=True, env=env).stdout
        outputs[tool] = (lines, view)
    assert outputs["kubelite"] == outputs["kubectl"]


def _self_signed_pair(tmp_path):
    from kubelite.server.tls import ensure_tls

    tls = ensure_tls(tmp_path / "pki")
    return tls.server_cert.read_bytes(), tls.server_key.read_bytes(), tls.ca_pem()


def test_client_certificate_data_and_files_load_into_tls(tmp_path, monkeypatch):
    from kubelite.client.transport import ssl_context

    cert, key, ca = _self_signed_pair(tmp_path)
    (tmp_path / "c.crt").write_bytes(cert)
    (tmp_path / "c.key").write_bytes(key)
    (tmp_path / "ca.crt").write_bytes(ca)
    b64 = lambda data: base64.b64encode(data).decode()  # noqa: E731
    config_text = f"""\
apiVersion: v1
kind: Config
current-context: inline
clusters:
- name: c
  cluster: {{server: "https://127.0.0.1:1", certificate-authority-data: {b64(ca)}}}
- name: f
  cluster: {{server: "https://127.0.0.1:1", certificate-authority: ca.crt}}
users:
- name: inline
  user: {{client-certificate-data: {b64(cert)}, client-key-data: {b64(key)}}}
- name: files
  user: {{client-certificate: c.crt, client-key: c.key}}
- name: half
  user: {{client-certificate: c.crt}}
contexts:
- name: inline
  context: {{cluster: c, user: inline}}
- name: files
  context: {{cluster: f, user: files}}
- name: half
  context: {{cluster: c, user: half}}
"""
    path = tmp_path / "config"
    path.write_text(config_text)
    config = kubeconfig.load(str(path))
    for name in ("inline", "files"):
        conn = kubeconfig.resolve(config, Overrides(context=name))
        assert conn.cert_data == cert and conn.key_data == key and conn.ca_data == ca
        context = ssl_context(conn)
        assert isinstance(context, ssl.SSLContext) and context.verify_mode == ssl.CERT_REQUIRED
        assert any(c.get("serialNumber") for c in context.get_ca_certs())
    with pytest.raises(ConfigError) as err:
        kubeconfig.resolve(config, Overrides(context="half"))
    assert "client-key-data or client-key must be specified for half" in str(err.value)


def test_relative_file_references_follow_the_kubeconfig(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "tok").write_text("t0k\n")
    (sub / "config").write_text("clusters:\n- name: c\n  cluster: {server: 'http://x:1'}\nusers:\n- name: u\n"
                                "  user: {tokenFile: tok}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                                "current-context: x\n")
    conn = kubeconfig.resolve(kubeconfig.load(str(sub / "config")), Overrides())
    assert conn.token == "t0k"
