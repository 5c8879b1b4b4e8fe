"""Authentication: who sent a request, from its bearer token (or nobody: system:anonymous).

Authenticators tried in kube-apiserver's order: the static token file (which holds kubelite's
admin token too), then service-account JWTs (TokenRequest's bound tokens and legacy Secret
tokens) signed with the server's key. A token none of them accepts is a 401; no credentials at
all make the request anonymous and authorization decides.
"""
from __future__ import annotations

import io
import os

from kubelite.server import errors
from kubelite.server.auth import user as users
from kubelite.server.auth.tokenfile import is_public

ISSUER = "https://kubernetes.default.svc.cluster.local"
LEGACY_ISSUER = "kubernetes/serviceaccount"
API_AUDIENCES = (ISSUER,)


class TokenFileError(ValueError):
    pass


def read_token_file(path: str | os.PathLike) -> dict[str, users.UserInfo]:
    """kube-apiserver's --token-auth-file: token,user,uid[,"group1,group2"] per line."""
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as err:
        raise TokenFileError(f"cannot read token file {path}: {err.strerror or err}") from None
    import csv  # here: only serve --token-auth-file reads one, not every embedded command

    tokens: dict[str, users.UserInfo] = {}
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or (len(row) == 1 and not row[0].strip()) or row[0].lstrip().startswith("#"):
            continue
        if len(row) < 3:
            raise TokenFileError(f"token file {path}, line {number}: expected token,user,uid[,groups]")
        token, name, uid = (cell.strip() for cell in row[:3])
        if not token or not name:
            raise TokenFileError(f"token file {path}, line {number}: the token and user name must not be empty")
        groups = [g.strip() for g in row[3].split(",") if g.strip()] if len(row) > 3 else []
        tokens[token] = users.authenticated(name, groups, uid)
    return tokens


_compare_digest = None


def _load_compare_digest():
    """hmac's compare_digest, imported (with OpenSSL's hashes) by the first request that presents
    a token, not by the in-process door, and then kept."""
    global _compare_digest
    import hmac

    _compare_digest = hmac.compare_digest
    return _compare_digest


class Authenticator:
    """`token` None: the in-process door (the caller is this process, a cluster admin)."""

    def __init__(self, api, token: str | None = None, static_tokens: dict | None = None,
                 anonymous: bool = True):
        self.api = api
        self.enabled = token is not None or bool(static_tokens)
        self._static = {t.encode(): u for t, u in (static_tokens or {}).items()}
        if token:
            self._static[token.encode()] = users.ADMIN
        self.anonymous = anonymous

    def add_tokens(self, tokens: dict[str, users.UserInfo]) -> None:
        """More static tokens (kube-apiserver's --token-auth-file)."""
        self._static.update({t.encode(): u for t, u in tokens.items()})
        self.enabled = True

    def authenticate(self, path: str, authorization: str | None, client_cert: bytes | None = None) -> users.UserInfo:
        """The request's user; raises 401 for credentials that prove nothing."""
        if not self.enabled:
            return users.ADMIN
        if client_cert:  # kube-apiserver tries the x509 authenticator first
            from kubelite.server.auth.certs import user_from_certificate

            found = user_from_certificate(client_cert)
            if found is not None:
                return found
        if not authorization:
            if self.anonymous or is_public(path):
                return users.ANONYMOUS
            raise errors.unauthorized()
        scheme, _, credential = authorization.partition(" ")
        credential = credential.strip()
        if scheme.lower() != "bearer" or not credential:
            raise errors.unauthorized()
        found = self.token_user(credential)
        if found is None:
            raise errors.unauthorized()
        return found

    def token_user(self, token: str, audiences=API_AUDIENCES) -> users.UserInfo | None:
        encoded = token.encode()
        same = _compare_digest or _load_compare_digest()
        for known, who in self._static.items():
            if same(encoded, known):
                return who
        return self.service_account_user(token, audiences)

    def service_account_user(self, token: str, audiences=API_AUDIENCES) -> users.UserInfo | None:
        from kubelite.server.auth.signing import signer_for  # (hashlib) only for a service account's token

        claims = signer_for(self.api).verify(token)
        if claims is None:
            return None
        if claims.get("iss") == LEGACY_ISSUER:
            return self._legacy_user(token, claims)
        return self._bound_user(claims, audiences)

    def _bound_user(self, claims: dict, audiences) -> users.UserInfo | None:
        now = self.api.clock.time()
        aud = claims.get("aud")
        aud = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
        if claims.get("iss") != ISSUER or not set(aud) & set(audiences):
            return None
        if not isinstance(claims.get("exp"), int) or claims["exp"] < now:
            return None
        if isinstance(claims.get("nbf"), int) and claims["nbf"] > now + 60:
            return None
        private = claims.get("kubernetes.io")
        if not isinstance(private, dict) or not isinstance(private.get("serviceaccount"), dict):
            return None
        namespace = private.get("namespace")
        account = private["serviceaccount"]
        if not self._still_exists("serviceaccounts", namespace, account.get("name"), account.get("uid")):
            return None
        extra = {}
        for kind in ("pod", "secret", "node"):
            bound = private.get(kind)
            if isinstance(bound, dict):
                resource = kind + "s"
                if not self._still_exists(resource, "" if kind == "node" else namespace,
                                          bound.get("name"), bound.get("uid")):
                    return None
                extra[f"authentication.kubernetes.io/{kind}-name"] = (str(bound.get("name")),)
                extra[f"authentication.kubernetes.io/{kind}-uid"] = (str(bound.get("uid") or ""),)
        if claims.get("jti"):
            extra["authentication.kubernetes.io/credential-id"] = (f"JTI={claims['jti']}",)
        return users.service_account_user(namespace, account.get("name"), account.get("uid") or "", extra)

    def _legacy_user(self, token: str, claims: dict) -> users.UserInfo | None:
        namespace = claims.get("kubernetes.io/serviceaccount/namespace")
        secret_name = claims.get("kubernetes.io/serviceaccount/secret.name")
        name = claims.get("kubernetes.io/serviceaccount/service-account.name")
        uid = claims.get("kubernetes.io/serviceaccount/service-account.uid")
        secret = self._get("secrets", namespace, secret_name)
        if secret is None or not self._still_exists("serviceaccounts", namespace, name, uid):
            return None
        stored = (secret.get("data") or {}).get("token", "")
        import base64  # here: the in-process door authenticates nobody (struct with it, ~0.7 ms a command)

        try:
            stored = base64.b64decode(stored).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        import hmac

        if not hmac.compare_digest(stored.encode(), token.encode()):
            return None
        return users.service_account_user(namespace, name, uid or "")

    def _get(self, resource: str, namespace, name) -> dict | None:
        if not isinstance(name, str) or not name:
            return None
        r = self.api.registry.lookup("", "v1", resource)
        try:
            return self.api.get(r, (namespace or "") if r.namespaced else "", name)
        except errors.StatusError:
            return None

    def _still_exists(self, resource: str, namespace, name, uid) -> bool:
        obj = self._get(resource, namespace, name)
        if obj is None:
            return False
        return not uid or obj["metadata"].get("uid") == uid
