"""`apply --prune` without ApplySet: delete what an earlier apply created and this one did not.

An object is pruned only if it is of an allowlisted kind, matches the selector, carries the
last-applied annotation, was not applied in this run (by uid), and lives in a namespace this
run touched (cluster-scoped kinds aside). Same rules and default allowlist as kubectl.
"""
from __future__ import annotations

from kubelite.apply import lastapplied

# kubectl's default allowlist: (group, version, kind, namespaced)
DEFAULT_NAMESPACED = [
    ("", "v1", "ConfigMap"), ("", "v1", "Endpoints"), ("", "v1", "PersistentVolumeClaim"), ("", "v1", "Pod"),
    ("", "v1", "ReplicationController"), ("", "v1", "Secret"), ("", "v1", "Service"), ("batch", "v1", "Job"),
    ("batch", "v1", "CronJob"), ("networking.k8s.io", "v1", "Ingress"), ("apps", "v1", "DaemonSet"),
    ("apps", "v1", "Deployment"), ("apps", "v1", "ReplicaSet"), ("apps", "v1", "StatefulSet"),
]
DEFAULT_CLUSTER = [("", "v1", "Namespace"), ("", "v1", "PersistentVolume")]


class PruneError(ValueError):
    pass


def parse_allowlist(registry, entries: list[str]) -> list:
    """`core/v1/ConfigMap`-style entries as resources; kubectl's errors for bad ones."""
    resources = []
    for entry in entries:
        parts = entry.split("/")
        if len(parts) != 3:
            raise PruneError(f"invalid GroupVersionKind format: {entry}, please follow <group/version/kind>")
        group = "" if parts[0] == "core" else parts[0]
        found = registry.by_kind(group, parts[1], parts[2])
        if found is None:
            raise PruneError(f'no matches for kind "{parts[2]}" in version "{_gv(group, parts[1])}"')
        resources.append(found)
    return resources


def default_allowlist(registry) -> list:
    resources = []
    for group, version, kind in DEFAULT_NAMESPACED + DEFAULT_CLUSTER:
        found = registry.by_kind(group, version, kind)
        if found is None:
            raise PruneError(f"invalid resource {group}/{version}, Kind={kind}: no matches for kind "
                             f'"{kind}" in version "{_gv(group, version)}"')
        resources.append(found)
    return resources


def _gv(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def candidates(objects: list[dict], visited_uids: set) -> list[dict]:
    """The listed objects that pruning deletes: annotated by apply and not applied now."""
    chosen = []
    for obj in objects:
        metadata = obj.get("metadata") or {}
        if lastapplied.LAST_APPLIED not in (metadata.get("annotations") or {}):
            continue
        if metadata.get("uid") in visited_uids:
            continue
        chosen.append(obj)
    return chosen


class Pruner:
    def __init__(self, session, *, selector: str | None, allowlist: list[str], namespace_specified: bool,
                 dry_run: str = "none", grace_period: int = -1, propagation: str = "Background"):
        self.session = session
        self.selector = selector or None
        self.allowlist = allowlist
        self.dry_run = dry_run
        self.grace_period = grace_period
        self.propagation = propagation

    def resources(self) -> list:
        registry = self.session.discovery.registry
        if self.allowlist:
            return parse_allowlist(registry, self.allowlist)
        return default_allowlist(registry)

    def prune(self, result) -> list[dict]:
        """Delete and return the pruned objects (each with apiVersion/kind set for printing)."""
        resources = self.resources()
        pruned = []
        for namespace in sorted(result.visited_namespaces):
            for r in (r for r in resources if r.namespaced):
                pruned += self._prune(r, namespace, result.visited_uids)
        for r in (r for r in resources if not r.namespaced):
            pruned += self._prune(r, None, result.visited_uids)
        return pruned

    def _prune(self, r, namespace: str | None, visited_uids: set) -> list[dict]:
        client = self.session.client
        listed = client.list(r, namespace, label_selector=self.selector)
        items = []
        for obj in listed.get("items") or []:
            obj = dict(obj)
            obj.setdefault("apiVersion", r.api_version)
            obj.setdefault("kind", r.kind)
            items.append(obj)
        chosen = candidates(items, visited_uids)
        for obj in chosen:
            if self.dry_run != "client":
                delete(client, r, obj, grace_period=self.grace_period, server_dry_run=self.dry_run == "server",
                       propagation=self.propagation)
        return chosen


def delete(client, r, obj: dict, *, grace_period: int = -1, server_dry_run: bool = False,
           propagation: str = "Background") -> None:
    metadata = obj.get("metadata") or {}
    client.delete(r, metadata.get("namespace") or None, metadata.get("name"), propagation_policy=propagation,
                  grace_period_seconds=grace_period if grace_period >= 0 else None, dry_run=server_dry_run)


def wait_deleted(session, pruned: list[dict], timeout: float | None, poll: float = 0.1) -> None:
    """--wait: return once every pruned object is gone (kubectl waits on its uid)."""
    import time

    from kubelite.client.errors import ApiError, is_not_found

    deadline = time.monotonic() + (timeout or 3600.0)  # kubectl's --timeout=0 waits a week; an hour will do
    for obj in pruned:
        metadata = obj.get("metadata") or {}
        r = session.discovery.for_kind(obj["apiVersion"], obj["kind"])
        while True:
            try:
                live = session.client.get(r, metadata.get("name"), metadata.get("namespace") or None)
            except ApiError as err:
                if is_not_found(err):
                    break
                raise
            if (live.get("metadata") or {}).get("uid") != metadata.get("uid"):
                break
            if time.monotonic() > deadline:
                raise PruneError(f"timed out waiting for the condition on {obj['kind'].lower()}s/{metadata.get('name')}")
            time.sleep(poll)
