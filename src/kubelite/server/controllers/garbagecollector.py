"""The garbage collector: dependents follow their owners (metadata.ownerReferences).

What kube-controller-manager's garbage collector does, over every resource:
- a dependent whose owners are all gone (missing, or another object now carries the name:
  the uid differs) is deleted;
- an owner deleted in the foreground (`foregroundDeletion` finalizer) first has its dependents
  deleted — in the foreground too when they have dependents of their own, so the cascade waits
  all the way down — and loses the finalizer once no dependent that blocks it
  (`blockOwnerDeletion: true`) is left; in a cycle of such owners, a dependent whose own
  dependent already waits so loses its blocking first (upstream's cycle breaking);
- an owner deleted with the `orphan` finalizer has its reference removed from every dependent
  (the field disappears with the last one), then loses the finalizer.

Queue keys are "<resource id>|<object key>" (the GC reconciles objects of every resource).
"""
from __future__ import annotations

from kubelite.server.controllers.base import MERGE, Controller, object_key, split_key


ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"


def _uid(obj: dict) -> str | None:
    return (obj.get("metadata") or {}).get("uid")


def _refs(obj: dict) -> list[dict]:
    return [r for r in (obj.get("metadata") or {}).get("ownerReferences") or [] if isinstance(r, dict)]


def _blocking(obj: dict) -> set[str]:
    """Uids of the owners whose deletion `obj` blocks."""
    return {r.get("uid") for r in _refs(obj) if r.get("blockOwnerDeletion")}


def _deleting_with(obj: dict, finalizer: str) -> bool:
    meta = obj.get("metadata") or {}
    return bool(meta.get("deletionTimestamp")) and finalizer in (meta.get("finalizers") or [])


class GarbageCollector(Controller):
    name = "garbagecollector"
    component = "garbage-collector-controller"
    watches = ("*",)

    def __init__(self, ctx):
        super().__init__(ctx)
        # The ownership graph as the watch shows it: owner uid -> dependents (queue keys), and
        # each object's uid and the owner uids it names (to undo them when it changes).
        self._dependents: dict[str, set[str]] = {}
        self._by_uid: dict[str, str] = {}
        self._owners_of: dict[str, tuple[str, set[str]]] = {}

    # -- the graph ---------------------------------------------------------------------------------

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        ident = f"{rid}|{object_key(obj)}"
        uid = _uid(obj)
        previous_uid, previous_owners = self._owners_of.pop(ident, (None, set()))
        for owner in previous_owners:
            deps = self._dependents.get(owner)
            if deps is not None:
                deps.discard(ident)
                if not deps:
                    del self._dependents[owner]
        if previous_uid and self._by_uid.get(previous_uid) == ident:
            del self._by_uid[previous_uid]
        if event_type == "DELETED":
            # Its dependents may now be dangling; its owners may be waiting for it to go.
            for dep in self._dependents.get(uid, ()):
                self.queue.add(dep)
            self._requeue_owners(previous_owners)
            return
        owners = {r.get("uid") for r in _refs(obj) if r.get("uid")}
        if uid:
            self._by_uid[uid] = ident
        self._owners_of[ident] = (uid, owners)
        for owner in owners:
            self._dependents.setdefault(owner, set()).add(ident)
        if owners:
            self.queue.add(ident)
        if previous_owners - owners:
            self._requeue_owners(previous_owners - owners)  # a reference removed unblocks its owner
        if old is not None and _blocking(old) != _blocking(obj):
            self._requeue_owners(owners)  # a reference no longer blocking unblocks its owner too
        if _deleting_with(obj, ORPHAN) or _deleting_with(obj, FOREGROUND):
            self.queue.add(ident)

    def _requeue_owners(self, owner_uids) -> None:
        for owner in owner_uids:
            ident = self._by_uid.get(owner)
            if ident is not None:
                self.queue.add(ident)

    def _lookup(self, ident: str) -> tuple[str, dict | None]:
        rid, key = ident.split("|", 1)
        ns, name = split_key(key)
        return rid, self.cache.get(rid, ns, name)

    # -- reconciling -------------------------------------------------------------------------------

    def sync(self, ident: str) -> None:
        rid, obj = self._lookup(ident)
        if obj is None:
            return
        if _deleting_with(obj, ORPHAN):
            self._orphan_dependents(rid, obj)
        elif _deleting_with(obj, FOREGROUND):
            self._delete_dependents_first(rid, obj)
        elif not (obj.get("metadata") or {}).get("deletionTimestamp") and _refs(obj):
            self._collect_if_unowned(rid, obj)

    def _orphan_dependents(self, rid: str, owner: dict) -> None:
        uid = _uid(owner)
        for dep_ident in sorted(self._dependents.get(uid, ())):
            dep_rid, dep = self._lookup(dep_ident)
            if dep is None:
                continue
            kept = [r for r in _refs(dep) if r.get("uid") != uid]
            meta = dep["metadata"]
            self.client.patch(dep_rid, meta.get("namespace", ""), meta["name"],
                              {"metadata": {"ownerReferences": kept or None, "uid": meta.get("uid")}}, MERGE)
        self._remove_finalizer(rid, owner, ORPHAN)

    def _delete_dependents_first(self, rid: str, owner: dict) -> None:
        uid = _uid(owner)
        blocking = []
        for dep_ident in sorted(self._dependents.get(uid, ())):
            _, dep = self._lookup(dep_ident)
            if dep is None:
                continue
            if any(r.get("uid") == uid and r.get("blockOwnerDeletion") for r in _refs(dep)):
                blocking.append(dep_ident)
            if not (dep.get("metadata") or {}).get("deletionTimestamp"):
                self.queue.add(dep_ident)
        if not blocking:
            self._remove_finalizer(rid, owner, FOREGROUND)

    def _collect_if_unowned(self, rid: str, obj: dict) -> None:
        meta = obj["metadata"]
        namespace = meta.get("namespace", "")
        solid, gone, waiting = [], [], []
        for ref in _refs(obj):
            state = self._owner_state(ref, namespace)
            if state is None:
                continue  # an owner that cannot be resolved is left alone, as upstream does
            {"solid": solid, "gone": gone, "waiting": waiting}[state].append(ref)
        if solid:
            if gone or waiting:
                # Still owned: only the references to dead or dying owners go.
                dropped = {r.get("uid") for r in gone + waiting}
                kept = [r for r in _refs(obj) if r.get("uid") not in dropped]
                self.client.patch(rid, namespace, meta["name"],
                                  {"metadata": {"ownerReferences": kept, "uid": meta.get("uid")}}, MERGE)
            return
        if not gone and not waiting:
            return
        if waiting and self._dependents.get(meta.get("uid")):
            policy = "Foreground"  # the cascade stays in the foreground all the way down
            if self._a_dependent_waits(meta.get("uid")):
                # A cycle (or what looks like one): this object's owner waits for it and one of its
                # own dependents waits for its dependents. Upstream makes this object's references
                # non-blocking first, so that the cycle unwinds instead of waiting forever.
                unblocked = [{**r, "blockOwnerDeletion": False} if r.get("blockOwnerDeletion") else r
                             for r in _refs(obj)]
                self.client.patch(rid, namespace, meta["name"],
                                  {"metadata": {"ownerReferences": unblocked, "uid": meta.get("uid")}}, MERGE)
        elif ORPHAN in (meta.get("finalizers") or []):
            policy = "Orphan"
        elif FOREGROUND in (meta.get("finalizers") or []):
            policy = "Foreground"
        else:
            policy = "Background"
        self.client.delete(rid, namespace, meta["name"], propagation=policy, uid=meta.get("uid"))

    def _a_dependent_waits(self, uid: str) -> bool:
        """Whether a dependent of `uid` is itself deleting its dependents first."""
        for dep_ident in self._dependents.get(uid, ()):
            _, dep = self._lookup(dep_ident)
            if dep is not None and _deleting_with(dep, FOREGROUND):
                return True
        return False

    def _owner_state(self, ref: dict, namespace: str) -> str | None:
        """'solid', 'gone' or 'waiting' (deleting its dependents first); None when unresolvable."""
        if not all(isinstance(ref.get(k), str) and ref.get(k) for k in ("apiVersion", "kind", "name", "uid")):
            return None  # not a reference anyone could resolve (validation refuses these anyway)
        r = self._owner_resource(ref)
        if r is None:
            return None
        if r.namespaced and not namespace:
            return None  # a cluster-scoped dependent cannot have a namespaced owner
        owner_ns = namespace if r.namespaced else ""
        owner_rid = f"{r.group}/{r.resource}" if r.group else r.resource
        owner = self.cache.get(owner_rid, owner_ns, ref.get("name", ""))
        if owner is None or _uid(owner) != ref.get("uid"):
            # The cache can lag behind a fresh owner: the API has the last word.
            owner = self.client.get(owner_rid, owner_ns, ref.get("name", ""))
        if owner is None or _uid(owner) != ref.get("uid"):
            return "gone"
        return "waiting" if _deleting_with(owner, FOREGROUND) else "solid"

    def _owner_resource(self, ref: dict):
        group, _, version = str(ref.get("apiVersion") or "").rpartition("/")
        kind = ref.get("kind")
        registry = self.ctx.api.registry
        r = registry.by_kind(group, version, kind)
        if r is None:
            r = next((c for c in registry.all() if c.group == group and c.kind == kind), None)
        return r

    def _remove_finalizer(self, rid: str, obj: dict, finalizer: str) -> None:
        meta = obj["metadata"]
        kept = [f for f in meta.get("finalizers") or [] if f != finalizer]
        self.client.patch(rid, meta.get("namespace", ""), meta["name"],
                          {"metadata": {"finalizers": kept or None, "resourceVersion": meta.get("resourceVersion")}},
                          MERGE)
