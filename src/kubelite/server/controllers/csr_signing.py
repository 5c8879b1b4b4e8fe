"""kube-controller-manager's csrsigning controller for the signers a cluster's own CA serves:
`kubernetes.io/kube-apiserver-client` and `kubernetes.io/kube-apiserver-client-kubelet`
(pkg/controller/certificates/signer).

An approved CertificateSigningRequest of one of them, not Failed and without a certificate yet,
is checked against the signer's rules; a request that breaks them gets a Failed condition
(reason SignerValidationFailure, the rule's message), any other is signed by the cluster CA and
its PEM certificate written to status.certificate through /status. The certificate carries the
request's subject (CommonName: the user, Organizations: the groups, as the API server
authenticates client certificates) and alternative names, the usages asked for, and lives
spec.expirationSeconds (at least 10 minutes, at most the default one year) from five minutes
before signing, never past the CA.

The CA is the one `kubelite serve` serves with (its pki/ca.crt and ca.key, set on the API server
as `csr_signing_ca`); without one, as kube-controller-manager without --cluster-signing-* files,
nothing is signed. Approving is left to people (kubelite runs no csrapproving controller).
"""
from __future__ import annotations

import base64
import datetime
import pathlib

from kubelite.record import FrozenRecord
from kubelite.server.controllers.base import Controller

CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"
KUBELET_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet"
RID = "certificates.k8s.io/certificatesigningrequests"
DEFAULT_TTL = 365 * 24 * 3600  # --cluster-signing-duration
MIN_TTL = 600
BACKDATE = 300
_KUBELET_USAGES = ({"digital signature", "key encipherment", "client auth"}, {"digital signature", "client auth"})


class SignerRejection(Exception):
    """Why a request breaks its signer's rules (the Failed condition's message)."""


class SigningCA(FrozenRecord):
    """The CA certificate and key (PEM) the signer issues with."""
    cert_pem: bytes
    key_pem: bytes

    @classmethod
    def from_pki(cls, pki: pathlib.Path) -> "SigningCA":
        from kubelite.server.tls import CA_CERT, CA_KEY

        return cls((pki / CA_CERT).read_bytes(), (pki / CA_KEY).read_bytes())


class CSRSigningController(Controller):
    name = "csrsigning"
    component = "csrsigning-controller"
    watches = (RID,)

    def sync(self, key: str) -> None:
        csr = self.cache.get(RID, "", key)
        ca = getattr(self.ctx.api, "csr_signing_ca", None)
        if csr is None or ca is None or not _wants_certificate(csr):
            return
        spec = csr.get("spec") or {}
        status = dict(csr.get("status") or {})
        try:
            request = _parse_request(spec.get("request"))
            _check(spec.get("signerName"), request, list(spec.get("usages") or []))
        except SignerRejection as err:
            status["conditions"] = list(status.get("conditions") or []) + [{
                "type": "Failed", "status": "True", "reason": "SignerValidationFailure", "message": str(err),
                "lastUpdateTime": self.clock.rfc3339()}]
        else:
            pem = sign(ca, request, list(spec.get("usages") or []), spec.get("expirationSeconds"), self.clock.now())
            status["certificate"] = base64.b64encode(pem).decode()
        self.client.update_status(RID, {**csr, "status": status})


def _wants_certificate(csr: dict) -> bool:
    spec, status = csr.get("spec") or {}, csr.get("status") or {}
    if spec.get("signerName") not in (CLIENT_SIGNER, KUBELET_CLIENT_SIGNER) or status.get("certificate"):
        return False
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or [] if isinstance(c, dict)}
    return conditions.get("Approved") == "True" and conditions.get("Failed") != "True"


def _parse_request(text):
    from cryptography import x509

    try:
        return x509.load_pem_x509_csr(base64.b64decode(text or ""))
    except ValueError as err:
        raise SignerRejection(f"unable to parse csr: {err}") from None


def _check(signer: str, request, usages: list[str]) -> None:
    """The signer's rules (signer.go isKubeAPIServerClientCSR / isKubeletClient)."""
    if signer == CLIENT_SIGNER:
        for usage in usages:
            if usage not in ("digital signature", "key encipherment", "client auth"):
                raise SignerRejection(f"invalid usage for client certificate: {usage}")
        if "client auth" not in usages:
            raise SignerRejection("missing required usage for client certificate: client auth")
        return
    _check_kubelet_client(request, usages)


def _check_kubelet_client(request, usages: list[str]) -> None:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    organizations = [a.value for a in request.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    if organizations != ["system:nodes"]:
        raise SignerRejection("subject organization is not system:nodes")
    try:
        names = request.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        names = None
    for kind, what in ((x509.DNSName, "DNS"), (x509.RFC822Name, "Email"), (x509.IPAddress, "IP"),
                       (x509.UniformResourceIdentifier, "URI")):
        if names is not None and names.get_values_for_type(kind):
            raise SignerRejection(f"{what} subjectAltNames are not allowed")
    common = request.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not common or not str(common[0].value).startswith("system:node:"):
        raise SignerRejection("subject common name does not begin with system:node:")
    if set(usages) not in _KUBELET_USAGES:
        raise SignerRejection("usages did not match [client auth digital signature key encipherment]")


def sign(ca: SigningCA, request, usages: list[str], expiration_seconds, now: datetime.datetime) -> bytes:
    """The PEM certificate the CA issues for `request`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization

    ca_cert = x509.load_pem_x509_certificate(ca.cert_pem)
    ca_key = serialization.load_pem_private_key(ca.key_pem, password=None)
    not_before = now - datetime.timedelta(seconds=BACKDATE)
    not_after = min(not_before + datetime.timedelta(seconds=_ttl(expiration_seconds)), ca_cert.not_valid_after_utc)
    builder = (x509.CertificateBuilder()
               .subject_name(request.subject)
               .issuer_name(ca_cert.subject)
               .public_key(request.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before)
               .not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True))
    key_usage, extended = _usages(usages)
    if key_usage is not None:
        builder = builder.add_extension(key_usage, critical=True)
    if extended is not None:
        builder = builder.add_extension(extended, critical=False)
    try:
        names = request.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        builder = builder.add_extension(names, critical=False)
    except x509.ExtensionNotFound:
        pass
    return builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def _ttl(expiration_seconds) -> int:
    if not isinstance(expiration_seconds, int) or isinstance(expiration_seconds, bool):
        return DEFAULT_TTL
    return max(MIN_TTL, min(DEFAULT_TTL, expiration_seconds))


def _usages(usages: list[str]):
    """The KeyUsage and ExtendedKeyUsage extensions of the usages asked for (None: none asked)."""
    from cryptography import x509
    from cryptography.x509.oid import ExtendedKeyUsageOID

    flags = {"digital signature": "digital_signature", "key encipherment": "key_encipherment",
             "content commitment": "content_commitment", "data encipherment": "data_encipherment",
             "key agreement": "key_agreement", "cert sign": "key_cert_sign", "crl sign": "crl_sign",
             "encipher only": "encipher_only", "decipher only": "decipher_only"}
    extended = {"client auth": ExtendedKeyUsageOID.CLIENT_AUTH, "server auth": ExtendedKeyUsageOID.SERVER_AUTH,
                "code signing": ExtendedKeyUsageOID.CODE_SIGNING, "email protection": ExtendedKeyUsageOID.EMAIL_PROTECTION,
                "timestamping": ExtendedKeyUsageOID.TIME_STAMPING, "ocsp signing": ExtendedKeyUsageOID.OCSP_SIGNING,
                "any": ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE}
    chosen = {flag: False for flag in flags.values()}
    for usage in usages:
        if usage in flags:
            chosen[flags[usage]] = True
    key_usage = x509.KeyUsage(**chosen) if any(chosen.values()) else None
    purposes = [extended[u] for u in usages if u in extended]
    return key_usage, (x509.ExtendedKeyUsage(purposes) if purposes else None)
