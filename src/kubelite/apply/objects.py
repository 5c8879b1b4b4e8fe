"""Settling each configuration object before planning: its resource, its namespace, its order.

kubectl's resource builder fills a namespaced object's empty namespace with the command's
namespace (-n or the kubeconfig context's), refuses an object whose namespace differs from an
explicit -n, and leaves cluster-scoped objects alone.
"""
from __future__ import annotations

import copy
from kubelite.record import Record

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

NAMESPACE_KINDS = {("v1", "Namespace")}
CRD_KIND = "CustomResourceDefinition"


class ObjectError(ValueError):
    """One configuration object cannot be applied; the message is kubectl's."""


class Item(Record):
    """One object to apply: the configuration, where it came from, its resource (if known)."""

    obj: dict
    source: str
    resource: Any = None
    error: Exception | None = None

    @property
    def name(self) -> str:
        return str((self.obj.get("metadata") or {}).get("name") or "")

    @property
    def namespace(self) -> str:
        if self.resource is not None and not self.resource.namespaced:
            return ""
        return str((self.obj.get("metadata") or {}).get("namespace") or "")

    def object_name(self) -> str:
        """kubectl's info.ObjectName(): the plural without its group, `deployments/nginx`."""
        if self.resource is None:
            return self.name
        return f"{self.resource.resource}/{self.name}"


def settle_namespace(obj: dict, namespaced: bool, namespace: str, enforce: bool) -> dict:
    """The object with its namespace as kubectl sends it (a copy when it changes)."""
    if not namespaced:
        return obj
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    current = metadata.get("namespace") or ""
    if enforce and current and current != namespace:
        raise ObjectError(
            f'the namespace from the provided object "{current}" does not match the namespace "{namespace}". '
            f"You must pass '--namespace={current}' to perform this operation.")
    if current:
        return obj
    settled = copy.copy(obj)
    settled["metadata"] = {**metadata, "namespace": namespace}
    return settled


def is_crd(obj: dict) -> bool:
    return obj.get("kind") == CRD_KIND and str(obj.get("apiVersion", "")).startswith("apiextensions.k8s.io/")


def is_namespace(obj: dict) -> bool:
    return (obj.get("apiVersion"), obj.get("kind")) in NAMESPACE_KINDS


def dependency_rank(obj: dict) -> int:
    """Namespaces first, then CRDs, then everything else (stable within a rank)."""
    if is_namespace(obj):
        return 0
    if is_crd(obj):
        return 1
    return 2


def in_dependency_order(objs: list) -> list:
    return sorted(objs, key=lambda item: dependency_rank(item.obj if isinstance(item, Item) else item))
