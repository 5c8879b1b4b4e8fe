"""Namespace lifecycle: a deleted namespace (phase Terminating) is emptied, then finalized.

As kube-controller-manager's namespace controller: every object in the namespace is deleted
(in the background; objects held by finalizers stay until those are removed, and the namespace
waits for them), the five deletion conditions are written with the reasons and messages of
v1.32, and when nothing is left the `kubernetes` finalizer is removed through the namespace's
`finalize` subresource, which lets the namespace go.

Timing is v1.32's: a namespace is looked at 5 s after it is marked for deletion (and after each
change to it, such as the controller's own condition write), and while finalizers hold content
it is looked at again 8 s later (half the 15 s estimate, plus one) rather than on every change of
that content. Graceful deletions still under way (a Pod waiting for its kubelet) are waited for,
event by event, before the conditions are written, so the conditions name what really holds the
namespace: finalizers.
"""
from __future__ import annotations

from collections import Counter

from kubelite.server.controllers.base import Controller

FINALIZER = "kubernetes"
# Seconds before a namespace marked for deletion is processed (lets HA servers see the deletion).
DELETION_GRACE = 5.0
# Seconds before looking again while finalizers hold content: the 15 s estimate halved, plus one.
FINALIZER_RECHECK = 15 // 2 + 1


def condition_list(remaining: dict[str, int], finalizers: Counter) -> list[dict]:
    """The five conditions (without times) for what is left: resource -> count, finalizer -> count."""
    conditions = [
        ("NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"),
        ("NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions",
         "All legacy kube types successfully parsed"),
        ("NamespaceDeletionContentFailure", "False", "ContentDeleted",
         "All content successfully deleted, may be waiting on finalization"),
    ]
    if remaining:
        left = ", ".join(sorted(f"{gr} has {n} resource instances" for gr, n in remaining.items()))
        conditions.append(("NamespaceContentRemaining", "True", "SomeResourcesRemain",
                           f"Some resources are remaining: {left}"))
    else:
        conditions.append(("NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"))
    if finalizers:
        held = ", ".join(sorted(f"{f} in {n} resource instances" for f, n in finalizers.items()))
        conditions.append(("NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
                           f"Some content in the namespace has finalizers remaining: {held}"))
    else:
        conditions.append(("NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers",
                           "All content-preserving finalizers finished"))
    return [{"type": t, "status": s, "reason": r, "message": m} for t, s, r, m in conditions]


def merge_conditions(old: list[dict], new: list[dict], now: str) -> list[dict]:
    """`new` with each condition's lastTransitionTime kept while its status does not change."""
    before = {c.get("type"): c for c in old or [] if isinstance(c, dict)}
    out = []
    for cond in new:
        prior = before.get(cond["type"])
        when = prior.get("lastTransitionTime") if prior and prior.get("status") == cond["status"] else now
        out.append({"type": cond["type"], "status": cond["status"], "lastTransitionTime": when,
                    "reason": cond["reason"], "message": cond["message"]})
    return out


class NamespaceController(Controller):
    name = "namespace"
    component = "namespace-controller"
    # Every resource: a change to an object in a terminating namespace may unblock it.
    watches = ("namespaces", "*")

    def __init__(self, ctx):
        super().__init__(ctx)
        # Namespaces waiting for graceful deletions of their content: each event of it counts.
        self._draining: set[str] = set()

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        meta = obj.get("metadata") or {}
        if rid == "namespaces":
            if event_type != "DELETED" and meta.get("deletionTimestamp"):
                self.queue.add_after(meta.get("name"), self._delay(event_type, obj))
            else:
                self._draining.discard(meta.get("name"))
        elif meta.get("namespace") in self._draining:
            self.queue.add(meta["namespace"])

    def _delay(self, event_type: str, ns: dict) -> float:
        """5 s after a change. A namespace first seen already terminating (a new process on an old
        store, as each embedded command is) is due 5 s after its deletion, perhaps now; or, once
        conditions show it was processed, at the next recheck."""
        from kubelite.server.clock import parse_time

        when = parse_time(ns["metadata"].get("deletionTimestamp"))
        if event_type != "ADDED" or when is None:
            return DELETION_GRACE
        if (ns.get("status") or {}).get("conditions"):
            return FINALIZER_RECHECK
        return DELETION_GRACE - (self.clock.time() - when)

    def sync(self, name: str) -> None:
        ns = self.client.get("namespaces", "", name)
        if ns is None or not ns["metadata"].get("deletionTimestamp"):
            return
        if FINALIZER not in ((ns.get("spec") or {}).get("finalizers") or []):
            return
        resources = self._content_resources()
        for r in resources:
            for item in self._list(r, name):
                if not item["metadata"].get("deletionTimestamp"):
                    self.client.delete(self._rid(r), name, item["metadata"]["name"], propagation="Background")
        remaining: dict[str, int] = {}
        finalizers: Counter = Counter()
        self._draining.discard(name)
        for r in resources:
            items = self._list(r, name)
            for item in items:
                held = item["metadata"].get("finalizers") or []
                if not held:
                    self._draining.add(name)  # a graceful deletion is under way: its events bring us back
                    return
                finalizers.update(held)
            if items:
                remaining[f"{r.resource}.{r.group}"] = len(items)
        ns = self._write_conditions(ns, condition_list(remaining, finalizers))
        if remaining:
            self.queue.add_after(name, FINALIZER_RECHECK)
            return
        self._finalize(ns)

    def _write_conditions(self, ns: dict, conditions: list[dict]) -> dict:
        status = ns.get("status") or {}
        merged = merge_conditions(status.get("conditions") or [], conditions, self.clock.rfc3339())
        if merged == status.get("conditions"):
            return ns
        updated = dict(ns)
        updated["status"] = {**status, "phase": "Terminating", "conditions": merged}
        return self.client.update_status("namespaces", updated)

    def _finalize(self, ns: dict) -> None:
        spec = dict(ns.get("spec") or {})
        spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != FINALIZER]
        self.client.update("namespaces", {**ns, "spec": spec}, subresource="finalize")

    def _content_resources(self):
        seen, out = set(), []
        for r in self.ctx.api.registry.preferred():
            if not r.namespaced or "/" in r.resource or (r.group, r.resource) in seen:
                continue
            if "list" not in r.verbs or "delete" not in r.verbs:
                continue
            seen.add((r.group, r.resource))
            out.append(r)
        return out

    def _list(self, r, namespace: str) -> list[dict]:
        from kubelite.server.core import ListOptions

        return self.ctx.api.list(r, namespace, ListOptions())["items"]

    @staticmethod
    def _rid(r) -> str:
        return f"{r.group}/{r.resource}" if r.group else r.resource


class SystemNamespaces(Controller):
    """kube-apiserver's system-namespaces loop: `default`, `kube-system`, `kube-public` and
    `kube-node-lease` exist. Only the first three refuse deletion; a deleted `kube-node-lease`
    is made again on the loop's next round (it runs every minute)."""

    name = "system-namespaces"
    manager = "kube-apiserver"
    watches = ("namespaces",)
    NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
    PERIOD = 60.0

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        name = (obj.get("metadata") or {}).get("name")
        if event_type == "DELETED" and name in self.NAMESPACES:
            self.queue.add_after(name, self.PERIOD)

    def sync(self, name: str) -> None:
        if self.client.get("namespaces", "", name) is None:
            self.client.create("namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
