"""The serving certificate: a self-signed CA and a server certificate signed by it.

Both are generated once with the `cryptography` package and kept in the data directory,
so that a kubeconfig written earlier (which embeds the CA) keeps working after a restart.
"""
from __future__ import annotations

import datetime
import ipaddress
import os
import pathlib
from dataclasses import dataclass

CA_CERT = "ca.crt"
CA_KEY = "ca.key"
SERVER_CERT = "server.crt"
SERVER_KEY = "server.key"

# A CA that outlives any realistic local cluster; the serving cert is renewed from it when it expires.
_CA_DAYS = 3650
_SERVER_DAYS = 825
_SERVER_SANS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class TLSFiles:
    ca_cert: pathlib.Path
    server_cert: pathlib.Path
    server_key: pathlib.Path

    def ca_pem(self) -> bytes:
        return self.ca_cert.read_bytes()


def ensure_tls(directory: str | os.PathLike) -> TLSFiles:
    """Return the TLS files under `directory`, creating the CA and serving cert if missing or expired."""
    from kubelite.server.private import private_dir

    directory = private_dir(directory)
    files = TLSFiles(directory / CA_CERT, directory / SERVER_CERT, directory / SERVER_KEY)
    ca_key_path = directory / CA_KEY
    if not (files.ca_cert.exists() and ca_key_path.exists()):
        ca_key, ca_cert = _new_ca()
        _write_key(ca_key_path, ca_key)
        _write_cert(files.ca_cert, ca_cert)
        _remove(files.server_cert, files.server_key)
    if not (files.server_cert.exists() and files.server_key.exists()) or _expired(files.server_cert):
        ca_key = _load_key(ca_key_path)
        ca_cert = _load_cert(files.ca_cert)
        key, cert = _new_server_cert(ca_key, ca_cert)
        _write_key(files.server_key, key)
        _write_cert(files.server_cert, cert)
    return files


def new_ca_pem() -> str:
    """A fresh self-signed CA certificate (PEM), for a cluster that serves no TLS of its own: its
    `kube-root-ca.crt` ConfigMaps still publish a CA, as every cluster's do."""
    from cryptography.hazmat.primitives import serialization

    _, cert = _new_ca()
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _new_key():
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.generate_private_key(ec.SECP256R1())


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _new_ca():
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    key = _new_key()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubelite-ca")])
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=_CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                key_encipherment=False, data_encipherment=False, key_agreement=False,
                encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def _new_server_cert(ca_key, ca_cert):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = _new_key()
    now = _now()
    sans = []
    for entry in _SERVER_SANS:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(entry)))
        except ValueError:
            sans.append(x509.DNSName(entry))
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubelite-apiserver")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(min(now + datetime.timedelta(days=_SERVER_DAYS), ca_cert.not_valid_after_utc))
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    return key, cert


def _expired(path: pathlib.Path) -> bool:
    pem = path.read_bytes()
    after = not_after(pem)
    if after is None:  # not a certificate not_after reads: cryptography decides
        after = _load_cert(path).not_valid_after_utc
    return after <= _now() + datetime.timedelta(days=1)


def not_after(pem: bytes) -> datetime.datetime | None:
    """The end of the validity of the first certificate in `pem`, read from its DER form without
    the `cryptography` package (importing it was ~25 ms of every `kubelite serve` start, which
    only checks that its certificates are still valid); None when `pem` is not a certificate.

    Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber,
    signature, issuer, validity SEQUENCE { notBefore, notAfter }, ... }, ... } (RFC 5280 4.1)."""
    import base64
    import binascii

    begin, end = b"-----BEGIN CERTIFICATE-----", b"-----END CERTIFICATE-----"
    start = pem.find(begin)
    stop = pem.find(end, start + 1)
    if start < 0 or stop < 0:
        return None
    try:
        der = base64.b64decode(b"".join(pem[start + len(begin):stop].split()), validate=True)
        tag, body, _ = _der(der, 0)
        if tag != 0x30:
            return None
        tag, tbs, _ = _der(der, body[0])
        if tag != 0x30:
            return None
        at, fields = tbs[0], []
        while at < tbs[1] and len(fields) < 4:
            tag, value, at = _der(der, at)
            if not fields and tag == 0xA0:
                continue  # the version
            fields.append((tag, value))
        if len(fields) < 4 or fields[3][0] != 0x30:  # serialNumber, signature, issuer, validity
            return None
        validity = fields[3][1]
        _, _, at = _der(der, validity[0])  # notBefore
        tag, value, _ = _der(der, at)
        text = der[value[0]:value[1]].decode("ascii")
    except (ValueError, binascii.Error, IndexError):
        return None
    if not text.endswith("Z") or not text[:-1].isdigit():
        return None
    if tag == 0x17 and len(text) == 13:  # UTCTime YYMMDDHHMMSSZ, 1950-2049
        text = ("19" if text[:2] >= "50" else "20") + text
    elif tag != 0x18 or len(text) != 15:  # GeneralizedTime YYYYMMDDHHMMSSZ
        return None
    parts = (text[0:4], text[4:6], text[6:8], text[8:10], text[10:12], text[12:14])
    try:
        return datetime.datetime(*map(int, parts), tzinfo=datetime.timezone.utc)
    except ValueError:
        return None


def _der(der: bytes, at: int) -> tuple[int, tuple[int, int], int]:
    """The DER element at `at`: (tag, (start, end) of its contents, where the next one begins)."""
    tag, length = der[at], der[at + 1]
    at += 2
    if length & 0x80:
        count = length & 0x7F
        if not 0 < count <= 4:
            raise ValueError("DER length")
        length = int.from_bytes(der[at:at + count], "big")
        at += count
    if at + length > len(der):
        raise ValueError("DER length past the end")
    return tag, (at, at + length), at + length


def _load_cert(path: pathlib.Path):
    from cryptography import x509

    return x509.load_pem_x509_certificate(path.read_bytes())


def _load_key(path: pathlib.Path):
    from cryptography.hazmat.primitives import serialization

    return serialization.load_pem_private_key(path.read_bytes(), password=None)


def _write_cert(path: pathlib.Path, cert) -> None:
    from cryptography.hazmat.primitives import serialization

    _write_private(path, cert.public_bytes(serialization.Encoding.PEM))


def _write_key(path: pathlib.Path, key) -> None:
    from cryptography.hazmat.primitives import serialization

    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    _write_private(path, pem)


def _write_private(path: pathlib.Path, data: bytes) -> None:
    """Write atomically with mode 0600 so a crash never leaves half a key behind."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # processes starting together never share one
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _remove(*paths: pathlib.Path) -> None:
    for path in paths:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
