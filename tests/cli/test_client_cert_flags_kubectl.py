"""The global TLS flags (--client-certificate, --client-key, --certificate-authority) and client-go's
configuration errors, kubectl and kubelite side by side: against `kubelite serve` (whose kubeconfig
carries a client certificate) and offline for files that cannot be read."""
from __future__ import annotations

import base64
import shutil

import pytest
import yaml

from cli_support import CLI, KUBECTL, kubelite_argv
from test_serve_support import Served

pytestmark = pytest.mark.kubectl

KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {{server: "https://127.0.0.1:1"{ca}}}
users:
- name: u
  user: {{client-certificate: {cert}, client-key: {key}}}
contexts:
- name: x
  context: {{cluster: c, user: u}}
current-context: x
"""


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    base = tmp_path_factory.mktemp("certflags")
    server = Served(base / "data", base / "kubeconfig",
                    ("--kubeconfig-auth=client-certificate", "--controllers=-*")).start()
    try:
        user = yaml.safe_load(server.kubeconfig.read_text())["users"][0]["user"]
        (base / "c.crt").write_bytes(base64.b64decode(user["client-certificate-data"]))
        (base / "c.key").write_bytes(base64.b64decode(user["client-key-data"]))
        sides = [CLI(base, argv) for argv in ([KUBECTL, "--cache-dir", str(base / "cache")], kubelite_argv())]
        yield base, server, sides
    finally:
        server.stop()


def _same(sides, *argv):
    kubectl, kubelite = (side.run(*argv) for side in sides)
    assert (kubelite.returncode, kubelite.stdout, kubelite.stderr) == \
        (kubectl.returncode, kubectl.stdout, kubectl.stderr), argv
    return kubectl


def test_client_certificate_flags_authenticate(tools):
    base, server, sides = tools
    flags = ("--kubeconfig=/dev/null", "-s", server.url, f"--certificate-authority={server.ca}",
             f"--client-certificate={base / 'c.crt'}", f"--client-key={base / 'c.key'}")
    done = _same(sides, *flags, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
    assert done.returncode == 0 and done.stdout == "kubernetes-admin"
    _same(sides, *flags, "get", "ns", "default", "-o", "name")


@pytest.mark.parametrize("flags", [
    ("--client-certificate=/nope.crt", "--client-key=/nope.key"),  # both unreadable: client-go's aggregate
    ("--client-certificate=/nope.crt", "--client-key=/etc/hostname"),
    ("--client-certificate=/etc/hostname",),  # a certificate without its key
    ("--certificate-authority=/nope.ca",),
])
def test_unreadable_flag_files(tools, flags):
    _base, server, sides = tools
    done = _same(sides, "--kubeconfig=/dev/null", "-s", server.url, *flags, "get", "ns")
    assert done.returncode == 1 and done.stderr


@pytest.mark.parametrize("ca,cert,key", [
    ("", "/nope.crt", "/nope.key"),
    ("", "/nope.crt", "/etc/hostname"),
    (", certificate-authority: /nope.ca", "/etc/hostname", "/etc/hostname"),
])
def test_unreadable_kubeconfig_files(tools, ca, cert, key):
    base, _server, sides = tools
    path = base / f"kc-{abs(hash((ca, cert, key)))}"
    path.write_text(KUBECONFIG.format(ca=ca, cert=cert, key=key))
    done = _same(sides, f"--kubeconfig={path}", "get", "ns")
    assert done.returncode == 1 and "unable to read" in done.stderr


def test_missing_context(tools):
    base, _server, sides = tools
    path = base / "kc-context"
    path.write_text(KUBECONFIG.format(ca="", cert="/etc/hostname", key="/etc/hostname"))
    done = _same(sides, f"--kubeconfig={path}", "--context=nope", "get", "ns")
    assert done.stderr.startswith("Error in configuration")
