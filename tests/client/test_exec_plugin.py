"""Exec credential plugins (users[].user.exec) against `kubelite serve`, with a tiny shell plugin
that hands out the server's token; the same kubeconfigs run through /usr/bin/kubectl give the
expected results, error lines and $KUBERNETES_EXEC_INFO."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "server"))

try:
    from test_serve_support import served  # noqa: E402,F401
except ImportError:  # the fixture's older home
    sys.path.insert(0, os.path.dirname(__file__))
    from conftest_served import served  # noqa: E402,F401

KUBECTL = "/usr/bin/kubectl"
V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"

PLUGIN = """\
#!/bin/sh
# Records what it was given, then answers as its first argument says.
dir=$(dirname "$0")
echo "$KUBERNETES_EXEC_INFO" > "$dir/info.$TOOL.json"
echo "$* $MYVAR" > "$dir/args.$TOOL"
echo run >> "$dir/runs.$TOOL"
case "$1" in
  fail) echo "plugin says no" >&2; exit 3;;
  garbage) echo "not json";;
  nostatus) echo '{"apiVersion":"%(v1)s","kind":"ExecCredential"}';;
  v1beta1) echo '{"apiVersion":"%(v1beta1)s","kind":"ExecCredential","status":{"token":"%(token)s"}}';;
  wrong) echo '{"apiVersion":"%(v1)s","kind":"ExecCredential","status":{"token":"wrong"}}';;
  expired) echo '{"apiVersion":"%(v1)s","kind":"ExecCredential","status":{"token":"%(token)s","expirationTimestamp":"2000-01-01T00:00:00Z"}}';;
  *) echo '{"apiVersion":"%(v1)s","kind":"ExecCredential","status":{"token":"%(token)s","expirationTimestamp":"2099-01-01T00:00:00Z"}}';;
esac
"""


def _kubeconfig(served, tmp_path, name: str, **exec_fields) -> str:
    doc = yaml.safe_load(served.kubeconfig.read_text())
    doc["clusters"][0]["cluster"]["extensions"] = [
        {"name": "client.authentication.k8s.io/exec", "extension": {"audience": "kubelite", "tier": 2}}]
    exec_config = {"apiVersion": V1, "command": "./plugin.sh", "interactiveMode": "Never",
                   "env": [{"name": "MYVAR", "value": "from-config"}], "provideClusterInfo": True,
                   "installHint": "Install the plugin with: make plugin"}
    exec_config.update(exec_fields)
    doc["users"] = [{"name": "exec-user", "user": {"exec": {k: v for k, v in exec_config.items() if v is not None}}}]
    doc["contexts"][0]["context"]["user"] = "exec-user"
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc))
    return str(path)


@pytest.fixture
def plugin_dir(served, tmp_path):
    plugin = tmp_path / "plugin.sh"
    plugin.write_text(PLUGIN % {"v1": V1, "v1beta1": V1BETA1, "token": served.token})
    plugin.chmod(0o755)
    return tmp_path


def _run(tool: str, kubeconfig: str, home, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(home), KUBELITE_HOME=str(home / f"kl-{tool}"), TOOL=tool)
    if tool == "kubectl":
        argv = [KUBECTL, "--cache-dir", str(home / "kcache")]
    else:
        argv = [sys.executable, "-m", "kubelite"]
    return subprocess.run(argv + ["--kubeconfig", kubeconfig, *args], capture_output=True, text=True, env=env,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_token_from_plugin_is_used_and_cached_for_the_process(served, plugin_dir):
    config = _kubeconfig(served, plugin_dir, "config", args=["ok", "two words"])
    r = _run("kubelite", config, plugin_dir, "get", "ns", "default", "-o", "name")
    assert (r.returncode, r.stdout, r.stderr) == (0, "namespace/default\n", "")
    # discovery (/api, /apis) and the GET were three requests: one run of the plugin
    assert (plugin_dir / "runs.kubelite").read_text() == "run\n"
    assert (plugin_dir / "args.kubelite").read_text() == "ok two words from-config\n"
    info = json.loads((plugin_dir / "info.kubelite.json").read_text())
    assert info["spec"]["interactive"] is False
    assert info["spec"]["cluster"]["server"] == served.url
    assert info["spec"]["cluster"]["config"] == {"audience": "kubelite", "tier": 2}
    assert base64.b64decode(info["spec"]["cluster"]["certificate-authority-data"]).startswith(b"-----BEGIN")


def test_expired_credential_is_fetched_again(served, plugin_dir):
    config = _kubeconfig(served, plugin_dir, "config", args=["expired"])
    r = _run("kubelite", config, plugin_dir, "get", "ns", "default", "-o", "name")
    assert (r.returncode, r.stdout) == (0, "namespace/default\n")
    assert (plugin_dir / "runs.kubelite").read_text().count("run") >= 2


def test_token_flag_wins_over_the_plugin(served, plugin_dir):
    config = _kubeconfig(served, plugin_dir, "config", args=["fail"])
    r = _run("kubelite", config, plugin_dir, "get", "ns", "default", "-o", "name", "--token", served.token)
    assert (r.returncode, r.stdout) == (0, "namespace/default\n")
    assert not (plugin_dir / "runs.kubelite").exists()


def test_plugin_client_certificate_goes_into_tls(tmp_path):
    from kubelite.client import execplugin
    from kubelite.client.kubeconfig import Connection
    from kubelite.client.transport import _exec_credentials
    from kubelite.server.tls import ensure_tls

    tls = ensure_tls(tmp_path / "pki")
    cert, key = tls.server_cert.read_text(), tls.server_key.read_text()
    plugin = tmp_path / "cert.sh"
    plugin.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(
        {"apiVersion": V1, "kind": "ExecCredential",
         "status": {"clientCertificateData": cert, "clientKeyData": key}}) + "\nEOF\n")
    plugin.chmod(0o755)
    config = execplugin.validate({"apiVersion": V1, "command": str(plugin), "interactiveMode": "Never"}, "u")
    conn, auth = _exec_credentials(Connection(server="https://127.0.0.1:1", exec=config))
    assert (conn.cert_data, conn.key_data, auth) == (cert.encode(), key.encode(), None)


CASES = {
    "ok": dict(args=["ok"]),
    "v1beta1 without interactiveMode": dict(apiVersion=V1BETA1, args=["v1beta1"], interactiveMode=None),
    "v1 without interactiveMode": dict(interactiveMode=None),
    "unknown apiVersion": dict(apiVersion="client.authentication.k8s.io/v1alpha9"),
    "plugin fails": dict(args=["fail"]),
    "not an ExecCredential": dict(args=["garbage"]),
    "no status": dict(args=["nostatus"]),
    "other version returned": dict(args=["v1beta1"]),
    "token refused": dict(args=["wrong"]),
    "plugin missing": dict(command="kubelite-no-such-plugin"),
}


@pytest.mark.kubectl
@pytest.mark.skipif(not shutil.which(KUBECTL), reason="no kubectl")
def test_same_as_kubectl(served, plugin_dir):
    for case, fields in CASES.items():
        config = _kubeconfig(served, plugin_dir, "config-" + case.replace(" ", "-"), **fields)
        theirs = _run("kubectl", config, plugin_dir, "get", "ns", "default", "-o", "name")
        mine = _run("kubelite", config, plugin_dir, "get", "ns", "default", "-o", "name")
        assert (mine.returncode, mine.stdout) == (theirs.returncode, theirs.stdout), case
        # kubectl may ask a failing plugin twice (its stderr then shows twice): compare our lines
        # with kubectl's last ones
        assert theirs.stderr.endswith(mine.stderr) and mine.stderr.strip() or theirs.stderr == "", case
        if case == "ok":
            assert json.loads((plugin_dir / "info.kubelite.json").read_text()) == \
                json.loads((plugin_dir / "info.kubectl.json").read_text())
            assert (plugin_dir / "args.kubelite").read_text() == (plugin_dir / "args.kubectl").read_text()
