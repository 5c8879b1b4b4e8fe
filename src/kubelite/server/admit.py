"""Admission with cluster state: the glue between the pure `admission` package and the store.

`kubelite.server.admission` holds pure functions (defaults, plugins, validation); this module
looks up what they need (the Pod's ServiceAccount, LimitRanges, PriorityClasses, the addresses
and node ports Services already hold, a custom resource's CRD) and calls them in
kube-apiserver's order. `APIServer` calls it on every write, for both doors of the server.
"""
from __future__ import annotations

import json
import threading

from kubelite.server import errors
from kubelite.server.admission import crd as crd_admission
from kubelite.server.admission import defaults, plugins
from kubelite.server.admission.validation import validate

_SERVICES = "/registry/core/services/"


class ClusterAdmission:
    """Mutating and validating admission for one `APIServer` (reads its store)."""

    def __init__(self, api):
        self.api = api
        # What the stored Services hold (_refresh_services): by key, (mod_revision, uid, cluster
        # IPs, node ports); the revisions the store listed at the last look; how many of them hold
        # each address and each uid.
        self._held: dict = {}
        self._listed: dict = {}
        self._ips: dict[str, int] = {}
        self._uids: dict = {}
        self._services_lock = threading.Lock()
        self._epoch = 0  # of the APIServer's look (_OwnWrites) _held was last brought up to date in

    # -- create ----------------------------------------------------------------------------------

    def mutate_create(self, r, obj: dict, copy: bool = True) -> dict:
        """Scheme defaults, then the mutating plugins that need cluster state (before validation).
        copy=False: `obj` is the caller's private copy, defaulted where it is."""
        obj = defaults.apply_defaults(obj, copy=copy)
        if r.group == "" and r.kind == "Pod":
            obj = self._admit_pod(obj)
        if r.crd:
            definition = self._crd_object(r)
            if definition is not None:
                obj = crd_admission.prepare_custom_resource_for_create(obj, definition)
        return obj

    def allocate(self, r, obj: dict, old: dict | None = None, look: tuple[int, bool] | None = None,
                 copy: bool = True) -> dict:
        """Service addresses and node ports, after validation (as the Service REST storage does).
        `look`: the APIServer's look at its own writes, by which the Services held in its
        epoch are still what is stored. copy=False: `obj` is the caller's own, given its
        address where it is."""
        if r.group != "" or r.kind != "Service":
            return obj
        spec = obj.get("spec") or {}
        own = (obj.get("metadata") or {}).get("uid")
        if old is None or (not spec.get("clusterIPs") and spec.get("type") != "ExternalName"):
            obj = plugins.allocate_cluster_ip(obj, self._used_cluster_ips(own, look), copy=copy,
                                              cidr=self.api.service_cidr)
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            # The Service's own ports are not "used": kept on update, as requested ports.
            obj = plugins.allocate_node_ports(obj, self._used_node_ports(own, look))
        return obj

    # -- update ----------------------------------------------------------------------------------

    def mutate_update(self, r, new: dict) -> dict:
        """Custom resources are pruned and defaulted on every write, not only on create."""
        if r.crd:
            definition = self._crd_object(r)
            if definition is not None:
                version = r.version
                schema = crd_admission.version_schema(definition, version)
                new = crd_admission.apply_schema_defaults(crd_admission.prune(new, schema), schema)
        return new

    # -- validation ------------------------------------------------------------------------------

    def validate(self, r, obj: dict, old: dict | None) -> None:
        """Raise 422 Invalid with kube-apiserver's causes when `obj` (replacing `old`) is invalid."""
        causes = list(validate(obj, old, namespaced=r.namespaced))
        if r.crd:
            definition = self._crd_object(r)
            if definition is not None:
                causes += crd_admission.validate_custom_resource(obj, definition, old)
        if causes:
            name = (obj.get("metadata") or {}).get("name", "")
            raise errors.invalid(r.group, r.kind, name, causes)

    # -- cluster state ---------------------------------------------------------------------------

    def _admit_pod(self, pod: dict) -> dict:
        namespace = pod["metadata"].get("namespace", "")
        sa_name = (pod.get("spec") or {}).get("serviceAccountName") or \
            (pod.get("spec") or {}).get("serviceAccount") or "default"
        service_account = self._get("", "v1", "serviceaccounts", namespace, sa_name)
        limit_ranges = self._list("", "v1", "limitranges", namespace)
        priority_classes = self._list("scheduling.k8s.io", "v1", "priorityclasses", "")
        # `pod` is mutate_create's own (defaulted) copy: changed where it is, not copied twice more.
        if sa_name and (pod.get("spec") or {}).get("serviceAccountName") is None:
            pod.setdefault("spec", {})["serviceAccountName"] = sa_name
        return plugins.admit_pod(pod, service_account=service_account, limit_ranges=limit_ranges,
                                 priority_classes=priority_classes, copy=False)

    def _crd_object(self, r) -> dict | None:
        return self._get("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", r.crd)

    def _get(self, group: str, version: str, resource: str, namespace: str, name: str) -> dict | None:
        info = self.api.registry.lookup(group, version, resource)
        if info is None:
            return None
        kv = self.api.store.get(self.api._key(info, namespace, name))
        return json.loads(kv.value) if kv is not None else None

    def _list(self, group: str, version: str, resource: str, namespace: str) -> list[dict]:
        info = self.api.registry.lookup(group, version, resource)
        if info is None:
            return []
        return [json.loads(kv.value) for kv in self.api.store.range(self.api._prefix(info, namespace)).kvs]

    def service_written(self, kv, svc: dict) -> None:
        """A Service this server has just stored (`svc`, as encoded for `kv`): what it holds is
        known without reading it back."""
        with self._services_lock:
            self._hold(kv.key, (kv.mod_revision, *_holdings(svc)))
            self._listed[kv.key] = kv.mod_revision

    def _refresh_services(self, look: tuple[int, bool] | None = None) -> None:
        """Brings _held up to the stored Services (under _services_lock); not read again in the
        epoch of the APIServer's `look` it was last brought up to date in.

        Every Service created looks at all the others: the keys and their revisions are read
        each time, so that a Service written or deleted through another server is seen, and a
        stored value is decoded only when its revision is not the one held (n Services created
        one after another decoded n²/2 of them before the values were kept). The lists of
        revisions are compared as dicts, in C: a look costs the store's read of the keys, not a
        step of Python per Service."""
        if look is not None and look[1] and look[0] == self._epoch:
            return
        self._reread_services()
        if look is not None:
            self._epoch = look[0]

    def _reread_services(self) -> None:
        store = self.api.store
        listed = dict(store.revisions(_SERVICES))
        before = self._listed
        if listed == before:
            return
        for key in self._held.keys() - listed.keys():
            self._hold(key, None)
        for key, revision in listed.items() - before.items():
            entry = self._held.get(key)
            if entry is None or entry[0] != revision:
                kv = store.get(key)
                if kv is None:  # deleted since
                    self._hold(key, None)
                    del listed[key]
                    continue
                self._hold(key, (kv.mod_revision, *_holdings(json.loads(kv.value))))
        self._listed = listed

    def _hold(self, key: str, entry: tuple | None) -> None:
        """`key`'s entry in _held (None: no longer held), its addresses and uid counted."""
        old = self._held.pop(key, None) if entry is None else self._held.get(key)
        if old is not None:
            _count(self._ips, old[2], -1)
            _count(self._uids, (old[1],), -1)
        if entry is not None:
            self._held[key] = entry
            _count(self._ips, entry[2], 1)
            _count(self._uids, (entry[1],), 1)

    def _others(self, own_uid: str | None) -> list:
        """(cluster IPs, node ports) of each held Service but the one with `own_uid`."""
        return [(ips, ports) for _, uid, ips, ports in self._held.values() if not (own_uid and uid == own_uid)]

    def _used_cluster_ips(self, own_uid: str | None, look: tuple[int, bool] | None = None) -> set[str]:
        with self._services_lock:
            self._refresh_services(look)
            if not (own_uid and own_uid in self._uids):  # a create's: a uid no Service holds
                return set(self._ips)
            return {ip for ips, _ in self._others(own_uid) for ip in ips}

    def _used_node_ports(self, own_uid: str | None, look: tuple[int, bool] | None = None) -> set[int]:
        with self._services_lock:
            self._refresh_services(look)
            return {port for _, ports in self._others(own_uid) for port in ports}


def _count(counts: dict, items, step: int) -> None:
    for item in items:
        n = counts.get(item, 0) + step
        if n:
            counts[item] = n
        else:
            del counts[item]


def _holdings(svc: dict) -> tuple[str | None, frozenset, frozenset]:
    """(uid, cluster IPs, node ports) of a stored Service."""
    spec = svc.get("spec") or {}
    ips = {ip for ip in spec.get("clusterIPs") or [] if ip and ip != "None"}
    if spec.get("clusterIP") and spec["clusterIP"] != "None":
        ips.add(spec["clusterIP"])
    ports = {p.get("nodePort") for p in spec.get("ports") or [] if isinstance(p, dict) and p.get("nodePort")}
    if spec.get("healthCheckNodePort"):
        ports.add(spec["healthCheckNodePort"])
    return (svc.get("metadata") or {}).get("uid"), frozenset(ips), frozenset(ports)
