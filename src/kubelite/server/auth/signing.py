"""The service-account signing key: ES256 JWTs that the server issues and verifies.

kube-apiserver signs with --service-account-signing-key-file; kubelite keeps one EC P-256 key
per data directory (or per process for in-memory clusters). The key id is the base64url SHA-256
of the public key's DER form, as kube-apiserver computes it.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import pathlib
import threading

ALGORITHM = "ES256"
KEY_FILE = "sa.key"
_lock = threading.Lock()
_load_lock = threading.Lock()  # a key file read once, whichever thread first needs it


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# cryptography is imported where used: a command on the embedded cluster that authenticates
# nobody does not load it.


def _publish_key(path: pathlib.Path, key) -> bool:
    """Write the key to `path` unless a file is there already (False then). Servers started
    together on one data directory must all end up signing with the same key: the file is
    written aside and linked into place, which only one of them can do."""
    from kubelite.server.tls import _write_key

    aside = path.with_name(f"{path.name}.{os.getpid()}.new")
    _write_key(aside, key)
    try:
        os.link(aside, path)
        return True
    except FileExistsError:
        return False
    finally:
        aside.unlink(missing_ok=True)


class Signer:
    def __init__(self, key=None, *, path: pathlib.Path | None = None):
        """A signer with `key`, or with the key file at `path`, read (made, if missing, as
        load_or_create does) when first used."""
        self._path = path
        self._loaded = None
        if key is not None:
            self._use(key)

    def _use(self, key) -> None:
        from cryptography.hazmat.primitives import serialization

        der = key.public_key().public_bytes(serialization.Encoding.DER,
                                            serialization.PublicFormat.SubjectPublicKeyInfo)
        self._key_id = b64url(hashlib.sha256(der).digest())
        self._loaded = key

    @property
    def _key(self):
        if self._loaded is None:
            with _load_lock:
                if self._loaded is None:
                    self._use(Signer.load_or_create(self._path)._loaded)
        return self._loaded

    @property
    def key_id(self) -> str:
        self._key
        return self._key_id

    @classmethod
    def at(cls, path: str | os.PathLike) -> "Signer":
        """The signer of the key file at `path`, loaded at the first token signed or verified: a
        server's start does not import `cryptography` for it (~25 ms before /readyz)."""
        return cls(path=pathlib.Path(path))

    @classmethod
    def generate(cls) -> "Signer":
        from cryptography.hazmat.primitives.asymmetric import ec

        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def load_or_create(cls, path: str | os.PathLike) -> "Signer":
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        path = pathlib.Path(path)
        try:
            pem = path.read_bytes()
        except FileNotFoundError:
            pem = None
        if pem is not None:
            # A key is linked into place whole (_publish_key): what is there is the key, or it is
            # damaged, and a new one would not be seen by servers that read the old one.
            try:
                key = serialization.load_pem_private_key(pem, None)
            except (ValueError, TypeError):
                key = None
            if not isinstance(key, ec.EllipticCurvePrivateKey):
                raise ValueError(f"{path}: not an EC private key in PEM (remove it to have a new one made; "
                                 "tokens it signed stop being valid)")
            return cls(key)
        signer = cls.generate()
        path.parent.mkdir(parents=True, exist_ok=True)
        if not _publish_key(path, signer._key):  # another server on this data dir made it first
            return cls.load_or_create(path)
        return signer

    def sign(self, claims: dict) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        header = {"alg": ALGORITHM, "kid": self.key_id}
        signing_input = (b64url(_compact(header)) + "." + b64url(_compact(claims))).encode()
        r, s = decode_dss_signature(self._key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return signing_input.decode() + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    def verify(self, token: str) -> dict | None:
        """The claims of a token this key signed, or None (malformed or another key's)."""
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

        parts = token.split(".")
        if len(parts) != 3:
            return None
        try:
            header = json.loads(unb64url(parts[0]))
            signature = unb64url(parts[2])
            if not isinstance(header, dict) or header.get("alg") != ALGORITHM or len(signature) != 64:
                return None
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            self._key.public_key().verify(der, f"{parts[0]}.{parts[1]}".encode(), ec.ECDSA(hashes.SHA256()))
            claims = json.loads(unb64url(parts[1]))
        except (ValueError, InvalidSignature, UnicodeDecodeError):
            return None
        return claims if isinstance(claims, dict) else None


def _compact(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def signer_for(api) -> Signer:
    """The API server's signer, created on first use when no data directory provided one."""
    signer = getattr(api, "sa_signer", None)
    if signer is None:
        with _lock:
            signer = getattr(api, "sa_signer", None)
            if signer is None:
                signer = api.sa_signer = Signer.generate()
    return signer
