"""What every active namespace gets from kube-controller-manager: the `default` ServiceAccount
(the serviceaccount controller) and the `kube-root-ca.crt` ConfigMap with the cluster's CA (the
root-ca-cert-publisher). Both come back when deleted; the ConfigMap is restored when changed.

The CA is the one the server really serves with (`Cluster(ca=...)`, which `kubelite serve` sets
from its data directory's pki/ca.crt). A cluster serving no TLS keeps the CA already published in
kube-system, or makes one of its own the first time.
"""
from __future__ import annotations

from kubelite.server.controllers.base import Controller

DEFAULT_SA = "default"
ROOT_CA = "kube-root-ca.crt"
ROOT_CA_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
    "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
    "distributions of Kubernetes clusters.")
_DESCRIPTION_KEY = "kubernetes.io/description"


class _PerNamespace(Controller):
    """Keeps one object named `object_name` of `object_rid` in every active namespace."""

    object_rid = ""
    object_name = ""

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        meta = obj.get("metadata") or {}
        if rid == "namespaces":
            if event_type != "DELETED":
                self.queue.add(meta.get("name"))
        elif meta.get("name") == self.object_name and meta.get("namespace"):
            self.queue.add(meta["namespace"])

    def active(self, namespace: str) -> bool:
        ns = self.cache.get("namespaces", "", namespace)
        return ns is not None and not (ns.get("metadata") or {}).get("deletionTimestamp")

    def current(self, namespace: str) -> dict | None:
        found = self.cache.get(self.object_rid, namespace, self.object_name)
        # The cache may lag behind our own create: ask the API before creating again.
        return found if found is not None else self.client.get(self.object_rid, namespace, self.object_name)

    def create_ignoring_conflict(self, rid: str, obj: dict) -> None:
        from kubelite.server.errors import StatusError

        try:
            self.client.create(rid, obj)
        except StatusError as err:
            # Already there (another server got first) or the namespace began terminating.
            if err.code not in (403, 409):
                raise


class ServiceAccountController(_PerNamespace):
    name = "serviceaccount"
    component = "serviceaccount-controller"
    watches = ("namespaces", "serviceaccounts")
    object_rid = "serviceaccounts"
    object_name = DEFAULT_SA

    def sync(self, namespace: str) -> None:
        if not self.active(namespace) or self.current(namespace) is not None:
            return
        self.create_ignoring_conflict(self.object_rid, {
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": DEFAULT_SA, "namespace": namespace}})


class RootCAPublisher(_PerNamespace):
    name = "root-ca-cert-publisher"
    component = "root-ca-cert-publisher"
    watches = ("namespaces", "configmaps")
    object_rid = "configmaps"
    object_name = ROOT_CA

    def __init__(self, ctx):
        super().__init__(ctx)
        self._ca: str | None = ctx.options.get("ca")

    def sync(self, namespace: str) -> None:
        if not self.active(namespace):
            return
        ca = self.ca()
        cm = self.current(namespace)
        if cm is None:
            self.create_ignoring_conflict(self.object_rid, {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": ROOT_CA, "namespace": namespace,
                             "annotations": {_DESCRIPTION_KEY: ROOT_CA_DESCRIPTION}},
                "data": {"ca.crt": ca}})
            return
        annotations = (cm.get("metadata") or {}).get("annotations") or {}
        if cm.get("data") == {"ca.crt": ca} and annotations.get(_DESCRIPTION_KEY) == ROOT_CA_DESCRIPTION:
            return
        restored = dict(cm)
        restored["metadata"] = {**cm["metadata"], "annotations": {**annotations, _DESCRIPTION_KEY: ROOT_CA_DESCRIPTION}}
        restored["data"] = {"ca.crt": ca}
        restored.pop("binaryData", None)
        self.client.update(self.object_rid, restored)

    def ca(self) -> str:
        if self._ca is None:
            published = self.cache.get("configmaps", "kube-system", ROOT_CA)
            self._ca = ((published or {}).get("data") or {}).get("ca.crt")
        if not self._ca:
            from kubelite.server.tls import new_ca_pem

            self._ca = new_ca_pem()
        return self._ca
