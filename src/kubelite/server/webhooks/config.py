"""The webhook configurations stored now, as the admission plugins see them.

kube-apiserver's plugins read the configurations from an informer: sorted by name, each
webhook with the API's defaults. Here the store is read again only when something in the group
was written (the store's prefix_version of it; one range over the group, shared with the
policies: GroupRead), and the hooks rebuilt only when a configuration changed.
"""
from __future__ import annotations

import json
import threading

from kubelite.jsoncopy import clone
from kubelite.record import FrozenRecord

GROUP = "admissionregistration.k8s.io"
MUTATING = "mutatingwebhookconfigurations"
VALIDATING = "validatingwebhookconfigurations"
_PREFIX = f"/registry/{GROUP}/"


class Hook(FrozenRecord):
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


class GroupRead:
    """What the store holds under the group (webhook configurations, policies and their
    bindings): one range when something in the group was written, shared by the webhook
    configurations and the policies (a write looks at both). Whether something was is the
    store's prefix_version of the group: one indexed look on SQLite, where a write elsewhere
    (every other write of the cluster) leaves it as it was."""

    def __init__(self, store):
        self.store = store
        self._lock = threading.Lock()
        self._version: object = None
        self._kvs: list = []

    def version(self) -> object:
        """The store's prefix_version of the group now."""
        return self.store.prefix_version(_PREFIX)

    def read(self, version: object = None) -> tuple[object, list]:
        """(the version it was read at, the group's KVs); `version`: version() as the caller has
        just read it (one look for a write's several questions)."""
        if version is None:
            version = self.version()
        with self._lock:
            if version != self._version:
                self._kvs = self.store.range(_PREFIX).kvs
                self._version = version
            return version, self._kvs


class Configurations:
    """The hooks of the store's configurations: read again (`group`) when something in the
    group was written, and the hooks rebuilt only when a configuration changed."""

    def __init__(self, store, group: GroupRead | None = None):
        self.store = store
        self.group = group or GroupRead(store)
        self._lock = threading.Lock()
        self._version: object = None
        self._versions: tuple[tuple[str, int], ...] = ()
        self._hooks: dict[str, tuple[Hook, ...]] = {MUTATING: (), VALIDATING: ()}

    def hooks(self, resource: str, version: object = None) -> tuple[Hook, ...]:
        """`version`: the group's version() as the caller has just read it."""
        version, kvs = self.group.read(version)
        with self._lock:
            if version != self._version:
                self._refresh(kvs)
                self._version = version
            return self._hooks[resource]

    def none_as_last_read(self) -> bool:
        """Whether the last read found no webhook at all (False before any read), without
        looking at the store again: a hint, as old as the last write's look."""
        return self._version is not None and not (self._hooks[MUTATING] or self._hooks[VALIDATING])

    def _refresh(self, kvs: list) -> None:
        kvs = [kv for kv in kvs if kv.key.startswith((f"{_PREFIX}{MUTATING}/", f"{_PREFIX}{VALIDATING}/"))]
        versions = tuple((kv.key, kv.mod_revision) for kv in kvs)
        if versions == self._versions:
            return
        configurations: dict[str, list[dict]] = {MUTATING: [], VALIDATING: []}
        for kv in kvs:
            configurations[kv.key[len(_PREFIX):].split("/", 1)[0]].append(json.loads(kv.value))
        self._hooks = {resource: _hooks_of(objs, resource == MUTATING) for resource, objs in configurations.items()}
        self._versions = versions


def _hooks_of(configurations: list[dict], mutating: bool) -> tuple[Hook, ...]:
    """Configurations in name order, each one's webhooks in theirs (kube-apiserver's order)."""
    hooks = []
    for obj in sorted(configurations, key=lambda c: str((c.get("metadata") or {}).get("name") or "")):
        name = str((obj.get("metadata") or {}).get("name") or "")
        for index, webhook in enumerate(obj.get("webhooks") or ()):
            if isinstance(webhook, dict):
                hooks.append(Hook(name, index, defaulted(webhook, mutating), mutating))
    return tuple(hooks)
