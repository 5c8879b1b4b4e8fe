"""The checks of Go's tls.X509KeyPair that kubectl relies on, with its messages."""
from __future__ import annotations

import re

from .errors import ImperativeError

_PEM = re.compile(rb"-----BEGIN ([^\n-]*)-----\r?\n(.*?)-----END \1-----", re.S)


def _blocks(data: bytes) -> list[tuple[str, bytes]]:
    return [(m.group(1).decode("latin-1"), m.group(0)) for m in _PEM.finditer(data)]


def check_key_pair(cert_pem: bytes, key_pem: bytes) -> None:
    certs = [b for t, b in _blocks(cert_pem) if t == "CERTIFICATE"]
    if not certs:
        if not _blocks(cert_pem):
            raise ImperativeError("tls: failed to find any PEM data in certificate input")
        raise ImperativeError("tls: failed to find \"CERTIFICATE\" PEM block in certificate input after "
                              "skipping PEM blocks of the following types: "
                              + str([t for t, _ in _blocks(cert_pem)]).replace("'", "").replace(",", ""))
    keys = [b for t, b in _blocks(key_pem) if t == "PRIVATE KEY" or t.endswith(" PRIVATE KEY")]
    if not keys:
        if not _blocks(key_pem):
            raise ImperativeError("tls: failed to find any PEM data in key input")
        raise ImperativeError("tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input "
                              "after skipping PEM blocks of the following types: "
                              + str([t for t, _ in _blocks(key_pem)]).replace("'", "").replace(",", ""))
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
    except ImportError:  # pragma: no cover - cryptography is a dependency
        return
    try:
        cert = x509.load_pem_x509_certificate(certs[0])
    except ValueError as err:
        raise ImperativeError(f"x509: malformed certificate") from None
    try:
        private = serialization.load_pem_private_key(keys[0], password=None)
    except (ValueError, TypeError):
        raise ImperativeError("tls: failed to parse private key") from None
    fmt = serialization.PublicFormat.SubjectPublicKeyInfo
    enc = serialization.Encoding.DER
    if cert.public_key().public_bytes(enc, fmt) != private.public_key().public_bytes(enc, fmt):
        raise ImperativeError("tls: private key does not match public key")
