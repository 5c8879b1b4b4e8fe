"""The webhook configurations stored now, as the admission plugins see them.

kube-apiserver's plugins read the configurations from an informer: sorted by name, each
webhook with the API's defaults. Here the store is read again only when its revision moved
(one range per kind), and an unchanged object is not decoded twice.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from kubelite.jsoncopy import clone

GROUP = "admissionregistration.k8s.io"
MUTATING = "mutatingwebhookconfigurations"
VALIDATING = "validatingwebhookconfigurations"
_PREFIX = f"/registry/{GROUP}/"


@dataclass(frozen=True)
class Hook:
    """One webhook of one configuration, defaulted."""

    configuration: str
    index: int
    spec: dict
    mutating: bool

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or "")

    @property
    def uid(self) -> str:
        """Identifies the webhook across a request's rounds (reinvocation)."""
        return f"{self.configuration}/{self.index}"

    @property
    def failure_ignored(self) -> bool:
        return self.spec.get("failurePolicy") == "Ignore"


def defaulted(webhook: dict, mutating: bool) -> dict:
    """A webhook with the API's defaults (those stored before defaulting existed lack them)."""
    from kubelite.server.admission.defaults import default_webhook

    out = clone(webhook)
    default_webhook(out, mutating)
    return out


class Configurations:
    """The hooks of the store's configurations, cached per store revision."""

    def __init__(self, store):
        self.store = store
        self._lock = threading.Lock()
        self._revision = -1
        self._decoded: dict[str, tuple[int, dict]] = {}
        self._hooks: dict[str, tuple[Hook, ...]] = {MUTATING: (), VALIDATING: ()}

    def hooks(self, resource: str) -> tuple[Hook, ...]:
        revision = self.store.current_revision()
        with self._lock:
            if revision != self._revision:
                self._hooks = {kind: self._load(kind) for kind in (MUTATING, VALIDATING)}
                self._revision = revision
            return self._hooks[resource]

    def _load(self, resource: str) -> tuple[Hook, ...]:
        mutating = resource == MUTATING
        configurations = []
        seen = {}
        for kv in self.store.range(f"{_PREFIX}{resource}/").kvs:
            cached = self._decoded.get(kv.key)
            obj = cached[1] if cached is not None and cached[0] == kv.mod_revision else json.loads(kv.value)
            seen[kv.key] = (kv.mod_revision, obj)
            configurations.append(obj)
        for key in [k for k in self._decoded if k.startswith(f"{_PREFIX}{resource}/")]:
            self._decoded.pop(key)
        self._decoded.update(seen)
        configurations.sort(key=lambda c: str((c.get("metadata") or {}).get("name") or ""))
        hooks = []
        for obj in configurations:
            name = str((obj.get("metadata") or {}).get("name") or "")
            for index, webhook in enumerate(obj.get("webhooks") or ()):
                if isinstance(webhook, dict):
                    hooks.append(Hook(name, index, defaulted(webhook, mutating), mutating))
        return tuple(hooks)
