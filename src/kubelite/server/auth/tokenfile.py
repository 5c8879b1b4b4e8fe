"""Bearer-token authentication.

One token, generated once and kept in the data directory. Requests without credentials may
read only the health and version endpoints; a request presenting a *wrong* token is refused
everywhere, /version included, as kube-apiserver does.
"""
from __future__ import annotations

import os
import pathlib

TOKEN_FILE = "token"

# Paths readable without credentials (kube-apiserver grants these to system:anonymous too).
PUBLIC_PATHS = frozenset({"/version", "/healthz", "/readyz", "/livez"})


def ensure_token(directory: str | os.PathLike) -> str:
    """Return the token stored in `directory`, creating it on first use."""
    path = pathlib.Path(directory) / TOKEN_FILE
    try:
        token = path.read_text().strip()
        if token:
            return token
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    import secrets

    token = secrets.token_urlsafe(32)
    tmp = path.with_name(TOKEN_FILE + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    os.replace(tmp, path)
    return token


def is_public(path: str) -> bool:
    base = path.rstrip("/") or "/"
    if base in PUBLIC_PATHS:
        return True
    # /healthz/ping, /readyz/etcd ...: the individual checks are as public as the aggregate.
    return any(base.startswith(p + "/") for p in ("/healthz", "/readyz", "/livez"))


class TokenAuthenticator:
    """Decides whether a request may proceed, from its Authorization header."""

    def __init__(self, token: str | None):
        # None disables authentication (the in-process door: the caller is the process itself).
        self._token = token.encode() if token else None

    def allows(self, path: str, authorization: str | None) -> bool:
        if self._token is None:
            return True
        if authorization:
            scheme, _, credential = authorization.partition(" ")
            if scheme.lower() != "bearer":
                return False
            import hmac

            return hmac.compare_digest(credential.strip().encode(), self._token)
        return is_public(path)
