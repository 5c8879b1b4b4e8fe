"""Differential: `certificate approve|deny` through kubelite and /usr/bin/kubectl against the same
`kubelite serve` (each on its own twin CSR: the same output with the names swapped), and the
certificate the cluster's signer then issues authenticates as the request's subject."""
from __future__ import annotations

import base64
import json
import os
import pathlib
import ssl
import subprocess
import sys
import time

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.server.test_serve_support import kubectl_at, serving

pytestmark = pytest.mark.kubectl
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"


def _request(cn: str, orgs=()) -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.NameAttribute(NameOID.COMMON_NAME, cn)] + [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o)
                                                              for o in orgs]
    pem = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(names)).sign(key, hashes.SHA256()) \
        .public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return pem, key_pem


def _csr(name: str, pem: bytes, usages=("client auth",)) -> str:
    return json.dumps({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
                       "metadata": {"name": name},
                       "spec": {"request": base64.b64encode(pem).decode(),
                                "signerName": "kubernetes.io/kube-apiserver-client", "usages": list(usages)}})


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("certificates")
    with serving(base) as server:
        yield server, base


def _kubectl(served, *args, stdin=None):
    server, base = served
    return kubectl_at(server, base / "cache", *args, stdin=stdin)


def _kubelite(served, *args):
    server, _ = served
    env = dict(os.environ, KUBECONFIG=str(server.kubeconfig))
    return subprocess.run([sys.executable, "-m", "kubelite", *args], capture_output=True, text=True, env=env,
                          timeout=60)


def _twins(served, stem: str, usages=("client auth",)) -> tuple[str, str]:
    pem, _ = _request(stem)
    for suffix in ("k", "l"):
        made = _kubectl(served, "create", "-f", "-", stdin=_csr(f"{stem}-{suffix}", pem, usages))
        assert made.returncode == 0, made.stderr
    return f"{stem}-k", f"{stem}-l"


def _same(served, theirs_args, ours_args, theirs_name, ours_name):
    theirs, ours = _kubectl(served, *theirs_args), _kubelite(served, *ours_args)
    swap = lambda text: text.replace(theirs_name, ours_name).replace("kubectl", "kubelite")  # noqa: E731
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, swap(theirs.stdout),
                                                           swap(theirs.stderr))
    return theirs


@pytest.mark.parametrize("steps", [
    [["approve"], ["approve"], ["deny"]],  # approve twice, then deny: already Approved
    [["deny"], ["approve", "--force"]],  # already Denied, even with --force
    [["approve", "-o", "name"], ["approve", "--force", "-o", "name"]],
    [["deny", "-o", "jsonpath={.spec.signerName}"]],
], ids=["approve-twice-then-deny", "deny-then-force", "output-name", "output-jsonpath"])
def test_decisions_as_kubectl(served, steps):
    stem = "csr-" + "-".join(steps[0]).replace("=", "").replace("{", "").replace("}", "").replace(".", "")[:20]
    stem = "".join(c for c in stem.lower() if c.isalnum() or c == "-").strip("-")
    theirs_name, ours_name = _twins(served, stem)
    for step in steps:
        _same(served, ["certificate", step[0], theirs_name, *step[1:]],
              ["certificate", step[0], ours_name, *step[1:]], theirs_name, ours_name)


@pytest.mark.parametrize("args", [["approve"], ["deny", "missing-csr"], ["approve", "-f", "{file}"],
                                  ["approve", "-f", "{namespaced}"], ["deny", "-f", "{missing}"]],
                         ids=["no-names", "missing", "file-without-namespace", "wrong-kind-file", "missing-file-csr"])
def test_errors_as_kubectl(served, tmp_path, args):
    files = {"file": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-csr\n",
             "namespaced": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-root-ca.crt\n"
                           "  namespace: default\n",
             "missing": _csr("never-made", _request("x")[0])}
    for key, text in files.items():
        (tmp_path / f"{key}.yaml").write_text(text)
    args = [next((str(tmp_path / f"{k}.yaml") for k in files if a == "{" + k + "}"), a) for a in args]
    _same(served, ["certificate", *args], ["certificate", *args], "", "")


def test_group_help_as_kubectl(served):
    theirs, ours = _kubectl(served, "certificate"), _kubelite(served, "certificate")
    assert (ours.returncode, theirs.returncode) == (0, 0)
    assert "approve" in ours.stdout and "deny" in ours.stdout


def test_the_issued_certificate_authenticates(served, tmp_path):
    server, _ = served
    pem, key_pem = _request("alice", orgs=("dev",))
    made = _kubectl(served, "create", "-f", "-", stdin=_csr("alice", pem))
    assert made.returncode == 0, made.stderr
    approved = _kubelite(served, "certificate", "approve", "alice")
    assert approved.stdout == "certificatesigningrequest.certificates.k8s.io/alice approved\n"
    deadline = time.monotonic() + 30
    while True:  # the signer works in the server's background
        got = _kubectl(served, "get", "csr", "alice", "-o", "jsonpath={.status.certificate}")
        if got.stdout:
            break
        assert time.monotonic() < deadline, "no certificate issued"
        time.sleep(0.2)
    listed = _kubectl(served, "get", "csr", "alice")
    assert "Approved,Issued" in listed.stdout
    (tmp_path / "alice.crt").write_bytes(base64.b64decode(got.stdout))
    (tmp_path / "alice.key").write_bytes(key_pem)
    context = ssl.create_default_context(cafile=server.ca)
    context.load_cert_chain(str(tmp_path / "alice.crt"), str(tmp_path / "alice.key"))
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    with httpx.Client(base_url=server.url, verify=context) as client:
        answer = client.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json=review)
    assert answer.status_code == 201, answer.text
    user = answer.json()["status"]["userInfo"]
    assert user["username"] == "alice" and user["groups"] == ["dev", "system:authenticated"]
