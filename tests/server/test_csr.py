"""CertificateSigningRequests: the registry strategies of kube-apiserver (requester recorded on
create; /approval, /status and the object each change only their part; condition timestamps;
approval validation) and kube-controller-manager's csrsigning controller for the signers of the
cluster CA (pkg/controller/certificates/signer: the signer's rules, SignerValidationFailure,
certificate lifetime)."""
from __future__ import annotations

import base64
import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.controllers.csr_signing import CSRSigningController, SigningCA
from kubelite.server.tls import ensure_tls

CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
START = datetime.datetime(2026, 3, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)


def request_pem(cn: str, orgs=(), dns=()) -> bytes:
    from cryptography.hazmat.primitives import serialization

    names = [x509.NameAttribute(NameOID.COMMON_NAME, cn)] + [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o)
                                                              for o in orgs]
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(names))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    return builder.sign(ec.generate_private_key(ec.SECP256R1()), hashes.SHA256()).public_bytes(
        serialization.Encoding.PEM)


def csr(name: str, pem: bytes, usages=("client auth",), signer="kubernetes.io/kube-apiserver-client",
        **spec) -> dict:
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": {"request": base64.b64encode(pem).decode(), "signerName": signer, "usages": list(usages), **spec}}


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    pki = tmp_path_factory.mktemp("pki")
    ensure_tls(pki)
    return SigningCA.from_pki(pki)


@pytest.fixture
def cluster(ca):
    with Cluster("memory://", clock=FakeClock(START.timestamp()), controllers=[CSRSigningController]) as c:
        c.api.csr_signing_ca = ca
        yield c


@pytest.fixture
def api(cluster):
    with cluster.http_client() as client:
        yield client


def approve(api, name: str, kind="Approved"):
    live = api.get(f"{CSRS}/{name}").json()
    live["status"]["conditions"] = live["status"].get("conditions", []) + [
        {"type": kind, "status": "True", "reason": "Test", "message": "by the test"}]
    return api.put(f"{CSRS}/{name}/approval", json=live)


def test_create_records_the_requester_and_starts_without_status(api):
    body = csr("alice", request_pem("alice"), username="someone-else", groups=["system:masters"])
    body["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    created = api.post(CSRS, json=body).json()
    assert created["spec"]["username"] == "kubernetes-admin"
    assert created["spec"]["groups"] == ["system:masters", "system:authenticated"]
    assert created["status"] == {}
    # field management sees the object as sent, before the strategy fills the requester in
    fields = created["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]
    assert set(fields) == {"f:request", "f:signerName", "f:usages", "f:username", "f:groups"}
    plain = api.post(CSRS, json=csr("alice2", request_pem("alice"))).json()
    assert plain["spec"]["username"] == "kubernetes-admin"
    assert set(plain["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]) == {
        "f:request", "f:signerName", "f:usages"}


def test_approval_changes_only_the_conditions(cluster, api):
    api.post(CSRS, json=csr("bob", request_pem("bob")))
    live = api.get(f"{CSRS}/bob").json()
    live["spec"]["usages"] = ["server auth"]
    live["metadata"]["labels"] = {"x": "y"}
    live["status"]["conditions"] = [{"type": "Approved", "status": "True", "reason": "R", "message": "M"}]
    answer = api.put(f"{CSRS}/bob/approval", json=live)
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert got["spec"]["usages"] == ["client auth"] and "labels" not in got["metadata"]
    now = cluster.clock.rfc3339()
    assert got["status"]["conditions"] == [{"type": "Approved", "status": "True", "reason": "R", "message": "M",
                                            "lastUpdateTime": now, "lastTransitionTime": now}]
    entry = got["metadata"]["managedFields"][-1]
    assert entry["subresource"] == "approval"
    assert entry["fieldsV1"] == {"f:status": {"f:conditions": {".": {}, 'k:{"type":"Approved"}': {
        ".": {}, "f:lastTransitionTime": {}, "f:lastUpdateTime": {}, "f:message": {}, "f:reason": {},
        "f:status": {}, "f:type": {}}}}}


def test_approved_and_denied_exclude_each_other(api):
    api.post(CSRS, json=csr("carol", request_pem("carol")))
    approve(api, "carol")
    answer = approve(api, "carol", kind="Denied")
    assert answer.status_code == 422
    assert "Approved and Denied conditions are mutually exclusive" in answer.json()["message"]


def test_an_approval_cannot_be_taken_back(api):
    api.post(CSRS, json=csr("dave", request_pem("dave")))
    approve(api, "dave")
    live = api.get(f"{CSRS}/dave").json()
    live["status"]["conditions"] = []
    answer = api.put(f"{CSRS}/dave/approval", json=live)
    assert answer.status_code == 422
    assert 'updates may not remove a condition of type "Approved"' in answer.json()["message"]


def test_status_cannot_approve_and_the_object_cannot_change_its_spec(api):
    api.post(CSRS, json=csr("erin", request_pem("erin")))
    live = api.get(f"{CSRS}/erin").json()
    live["status"] = {"conditions": [{"type": "Approved", "status": "True", "reason": "R", "message": "M"}]}
    assert "conditions" not in api.put(f"{CSRS}/erin/status", json=live).json()["status"]
    live = api.get(f"{CSRS}/erin").json()
    live["spec"]["usages"] = ["server auth"]
    assert api.put(f"{CSRS}/erin", json=live).json()["spec"]["usages"] == ["client auth"]


def _certificate(api, name: str) -> x509.Certificate:
    text = api.get(f"{CSRS}/{name}").json()["status"]["certificate"]
    return x509.load_pem_x509_certificate(base64.b64decode(text))


def test_an_approved_client_request_is_signed_by_the_cluster_ca(cluster, api, ca):
    api.post(CSRS, json=csr("frank", request_pem("frank", orgs=("dev", "ops")), expirationSeconds=3600))
    cluster.settle()
    assert "certificate" not in api.get(f"{CSRS}/frank").json()["status"]  # not approved yet
    approve(api, "frank")
    cluster.settle()
    cert = _certificate(api, "frank")
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "frank"
    assert [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)] == ["dev", "ops"]
    assert cert.issuer == x509.load_pem_x509_certificate(ca.cert_pem).subject
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [ExtendedKeyUsageOID.CLIENT_AUTH]
    assert cert.not_valid_before_utc == START - datetime.timedelta(minutes=5)
    assert cert.not_valid_after_utc == cert.not_valid_before_utc + datetime.timedelta(hours=1)
    conditions = api.get(f"{CSRS}/frank").json()["status"]["conditions"]
    assert [c["type"] for c in conditions] == ["Approved"]


@pytest.mark.parametrize("seconds, lifetime", [(None, 365 * 24 * 3600), (60, 600), (10 ** 9, 365 * 24 * 3600)])
def test_lifetime_is_bounded(cluster, api, seconds, lifetime):
    extra = {} if seconds is None else {"expirationSeconds": seconds}
    api.post(CSRS, json=csr("grace", request_pem("grace"), **extra))
    approve(api, "grace")
    cluster.settle()
    cert = _certificate(api, "grace")
    assert (cert.not_valid_after_utc - cert.not_valid_before_utc).total_seconds() == lifetime


@pytest.mark.parametrize("pem, usages, signer, message", [
    (request_pem("heidi"), ("client auth", "server auth"), "kubernetes.io/kube-apiserver-client",
     "invalid usage for client certificate: server auth"),
    (request_pem("heidi"), ("digital signature",), "kubernetes.io/kube-apiserver-client",
     "missing required usage for client certificate: client auth"),
    (request_pem("system:node:n1", orgs=("dev",)), ("digital signature", "client auth"),
     "kubernetes.io/kube-apiserver-client-kubelet", "subject organization is not system:nodes"),
    (request_pem("system:node:n1", orgs=("system:nodes",), dns=("n1",)), ("digital signature", "client auth"),
     "kubernetes.io/kube-apiserver-client-kubelet", "DNS subjectAltNames are not allowed"),
    (request_pem("n1", orgs=("system:nodes",)), ("digital signature", "client auth"),
     "kubernetes.io/kube-apiserver-client-kubelet", "subject common name does not begin with system:node:"),
    (request_pem("system:node:n1", orgs=("system:nodes",)), ("client auth",),
     "kubernetes.io/kube-apiserver-client-kubelet", "usages did not match [client auth digital signature key encipherment]"),
])
def test_a_request_breaking_its_signers_rules_fails(cluster, api, pem, usages, signer, message):
    api.post(CSRS, json=csr("ivan", pem, usages=usages, signer=signer))
    approve(api, "ivan")
    cluster.settle()
    status = api.get(f"{CSRS}/ivan").json()["status"]
    assert "certificate" not in status
    failed = status["conditions"][-1]
    assert (failed["type"], failed["status"], failed["reason"], failed["message"]) == (
        "Failed", "True", "SignerValidationFailure", message)


def test_a_kubelet_client_request_is_signed(cluster, api):
    pem = request_pem("system:node:n1", orgs=("system:nodes",))
    api.post(CSRS, json=csr("node-n1", pem, usages=("digital signature", "key encipherment", "client auth"),
                            signer="kubernetes.io/kube-apiserver-client-kubelet"))
    approve(api, "node-n1")
    cluster.settle()
    assert _certificate(api, "node-n1").subject.rfc4514_string() == "O=system:nodes,CN=system:node:n1"


def test_other_signers_and_denied_requests_are_left_alone(cluster, api):
    api.post(CSRS, json=csr("judy", request_pem("judy"), signer="example.com/mine"))
    approve(api, "judy")
    api.post(CSRS, json=csr("kim", request_pem("kim")))
    approve(api, "kim", kind="Denied")
    cluster.settle()
    assert "certificate" not in api.get(f"{CSRS}/judy").json()["status"]
    assert "certificate" not in api.get(f"{CSRS}/kim").json()["status"]


def test_without_a_ca_nothing_is_signed(cluster, api):
    cluster.api.csr_signing_ca = None
    api.post(CSRS, json=csr("leo", request_pem("leo")))
    approve(api, "leo")
    cluster.settle()
    assert "certificate" not in api.get(f"{CSRS}/leo").json()["status"]
