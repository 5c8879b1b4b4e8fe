"""Client certificates: issued by the serving CA, and mapped to users as kube-apiserver does
(the subject's CommonName is the user name, each Organization a group).

The TLS layer (server/serve.py) verifies a presented certificate against the CA; the chain is
already trusted when `user_from_certificate` reads it.
"""
from __future__ import annotations

import datetime
import functools
import pathlib

from kubelite.server.auth import user as users

CLIENT_DAYS = 365
ADMIN_CERT = "admin.crt"
ADMIN_KEY = "admin.key"


@functools.lru_cache(maxsize=256)
def user_from_certificate(der: bytes) -> users.UserInfo | None:
    # Kept per certificate: a client sends the same one on every connection, and parsing it
    # was a twentieth of a small write's time on the server. The user read from given bytes
    # never changes; whether the certificate is still valid is the TLS handshake's check.
    from kubelite.server.auth.dersubject import subject_names

    names = subject_names(der) or _subject_names_by_cryptography(der)
    if names is None:
        return None
    common_names, organizations = names
    if not common_names or not common_names[0]:
        return None  # kube-apiserver: a certificate without a CommonName authenticates nobody
    return users.authenticated(common_names[0], organizations)


def _subject_names_by_cryptography(der: bytes) -> tuple[list[str], list[str]] | None:
    """What dersubject leaves: encodings it does not read, and bytes that are no certificate."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    try:
        cert = x509.load_der_x509_certificate(der)
    except ValueError:
        return None
    return ([str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)],
            [str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)])


def issue_client_certificate(pki: pathlib.Path, name: str, groups=()) -> tuple[bytes, bytes]:
    """(certificate PEM, key PEM) for `name` in `groups`, signed by the CA in `pki`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    from kubelite.server.tls import CA_CERT, CA_KEY

    ca_cert = x509.load_pem_x509_certificate((pki / CA_CERT).read_bytes())
    ca_key = serialization.load_pem_private_key((pki / CA_KEY).read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups]
    subject.append(x509.NameAttribute(NameOID.COMMON_NAME, name))
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name(subject))
            .issuer_name(ca_cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(min(now + datetime.timedelta(days=CLIENT_DAYS), ca_cert.not_valid_after_utc))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, content_commitment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def admin_certificate(pki: pathlib.Path) -> tuple[bytes, bytes]:
    """The admin's client certificate (kind's kubernetes-admin in system:masters), kept in `pki`."""
    from kubelite.server.tls import _write_private

    cert_path, key_path = pki / ADMIN_CERT, pki / ADMIN_KEY
    if cert_path.exists() and key_path.exists() and not _expired(cert_path):
        return cert_path.read_bytes(), key_path.read_bytes()
    cert, key = issue_client_certificate(pki, users.ADMIN_NAME, [users.MASTERS])
    _write_private(key_path, key)
    _write_private(cert_path, cert)
    return cert, key


def _expired(path: pathlib.Path) -> bool:
    from kubelite.server.tls import _expired as expired

    return expired(path)
