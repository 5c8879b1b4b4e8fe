"""The tokens controller: a Secret of type kubernetes.io/service-account-token annotated with a
ServiceAccount's name gets a legacy (non-expiring) token signed with the server's key, the
cluster CA and the namespace; a Secret whose account is gone (or is another incarnation) is
deleted, as kube-controller-manager's tokens controller does."""
from __future__ import annotations

import base64
import copy

from kubelite.server.controllers.base import Controller

TOKEN_TYPE = "kubernetes.io/service-account-token"
NAME_ANNOTATION = "kubernetes.io/service-account.name"
UID_ANNOTATION = "kubernetes.io/service-account.uid"
LEGACY_ISSUER = "kubernetes/serviceaccount"


class ServiceAccountTokens(Controller):
    name = "serviceaccount-token"
    component = "tokens-controller"
    watches = ("secrets", "serviceaccounts")

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        meta = obj.get("metadata") or {}
        if rid == "secrets":
            if obj.get("type") == TOKEN_TYPE and event_type != "DELETED":
                self.queue.add(f"{meta.get('namespace')}/{meta.get('name')}")
            return
        for secret in self.cache.list("secrets", namespace=meta.get("namespace"), where=lambda s: (
                s.get("type") == TOKEN_TYPE and ((s.get("metadata") or {}).get("annotations") or {}).get(
                    NAME_ANNOTATION) == meta.get("name"))):
            self.queue.add(f"{meta.get('namespace')}/{secret['metadata']['name']}")

    def sync(self, key: str) -> None:
        namespace, _, name = key.partition("/")
        secret = self.cache.get("secrets", namespace, name)
        if secret is None or secret.get("type") != TOKEN_TYPE:
            return
        annotations = (secret.get("metadata") or {}).get("annotations") or {}
        account_name = annotations.get(NAME_ANNOTATION) or ""
        account = self.cache.get("serviceaccounts", namespace, account_name) or \
            self.client.get("serviceaccounts", namespace, account_name)
        uid = (account or {}).get("metadata", {}).get("uid")
        if account is None or (annotations.get(UID_ANNOTATION) and annotations[UID_ANNOTATION] != uid):
            self._delete(secret)
            return
        data = secret.get("data") or {}
        if data.get("token") and data.get("ca.crt") and data.get("namespace") and annotations.get(UID_ANNOTATION):
            return
        updated = copy.deepcopy(secret)
        updated["metadata"].setdefault("annotations", {})[UID_ANNOTATION] = uid
        filled = updated.setdefault("data", {}) or {}
        updated["data"] = filled
        if not filled.get("token"):
            filled["token"] = _b64(self._token(namespace, name, account_name, uid))
        filled.setdefault("ca.crt", _b64(self._ca()))
        filled.setdefault("namespace", _b64(namespace))
        self.client.update("secrets", updated)

    def _token(self, namespace: str, secret: str, account: str, uid: str) -> str:
        from kubelite.server.auth.signing import signer_for

        return signer_for(self.ctx.api).sign({
            "iss": LEGACY_ISSUER, "kubernetes.io/serviceaccount/namespace": namespace,
            "kubernetes.io/serviceaccount/secret.name": secret,
            "kubernetes.io/serviceaccount/service-account.name": account,
            "kubernetes.io/serviceaccount/service-account.uid": uid,
            "sub": f"system:serviceaccount:{namespace}:{account}"})

    def _ca(self) -> str:
        ca = self.ctx.options.get("ca")
        if not ca:
            published = self.cache.get("configmaps", "kube-system", "kube-root-ca.crt")
            ca = ((published or {}).get("data") or {}).get("ca.crt") or ""
        return ca

    def _delete(self, secret: dict) -> None:
        meta = secret["metadata"]
        self.client.delete("secrets", meta["namespace"], meta["name"], uid=meta.get("uid"))


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()
