"""The CRD registry follows the store: a definition written by any server sharing the store is
served here too, and stops being served when it is deleted."""
from __future__ import annotations

from kubelite.server.controllers.base import Controller


class CRDRegistryController(Controller):
    name = "crd-registry"
    watches = ("apiextensions.k8s.io/customresourcedefinitions",)
    leader_only = False  # every server serves what the store defines

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        # Local state only, so it happens at once rather than through the queue.
        registry = self.ctx.api.registry
        name = (obj.get("metadata") or {}).get("name")
        if event_type == "DELETED":
            registry.unregister_crd(name)
        else:
            self.ctx.api._register_crd(obj)

    def sync(self, key: str) -> None:
        pass
