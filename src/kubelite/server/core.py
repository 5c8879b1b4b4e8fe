"""The API server core: Kubernetes object semantics over an etcd-shaped store.

`APIServer` ties the store, the resource registry and admission together. Each API operation
(get, list, create, update, patch, delete, deletecollection, watch) is one method here, used
by both doors of the server (HTTPS and in-process) through the HTTP handlers.

Objects are plain JSON dicts. The store holds the object's JSON without its resourceVersion;
the key's mod_revision *is* the resourceVersion and is stamped on every read.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
import datetime
import json

from kubelite.record import Record
from kubelite.server import continuetoken, errors
from kubelite.server.errors import StatusError

TYPE_CHECKING = False  # typing for annotations only
if TYPE_CHECKING:
    from typing import Any, Callable

KUBERNETES_VERSION_INFO = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.13",
    "gitCommit": "63adf010aa20e104c0b7043b47f42f50c9f72b17",
    "gitTreeState": "clean",
    "buildDate": "2026-11-21T21:42:08Z",
    "goVersion": "go1.24.11",
    "compiler": "gc",
    "platform": "linux/amd64",
}

DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")

# DELETE answers with the object (not a Status) for these resources.
_DELETE_RETURNS_OBJECT = frozenset({("", "pods"), ("", "namespaces"), ("", "services")})
# PUT to a missing object creates it only for these.
_CREATE_ON_UPDATE = frozenset({
    ("", "services"), ("", "endpoints"), ("", "events"), ("", "limitranges"),
    ("coordination.k8s.io", "leases"), ("events.k8s.io", "events"),
    ("rbac.authorization.k8s.io", "roles"), ("rbac.authorization.k8s.io", "rolebindings"),
    ("rbac.authorization.k8s.io", "clusterroles"), ("rbac.authorization.k8s.io", "clusterrolebindings"),
})
_NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
               "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
               "annotations", "ownerReferences", "finalizers", "managedFields")
_PROPAGATION_POLICIES = ("Orphan", "Background", "Foreground")


# Records, not dataclasses: the same declarations without dataclasses' import (inspect, ast, dis)
# and the methods it compiles at every start of a short command.
class WriteOptions(Record):
    dry_run: bool = False
    field_validation: str = "Warn"  # Strict | Warn | Ignore
    field_manager: str = ""
    force: bool = False  # server-side apply: take fields other managers own
    user: Any = None  # who writes (auth.user.UserInfo), as admission webhooks are told; None: the server
    # The server's own controllers write: their patches are built by this code, not decoded from a
    # client, so the checks of a patched object's decoding (wrong types, unknown fields) are skipped.
    trusted: bool = False


class DeleteOptions(Record):
    dry_run: bool = False
    propagation_policy: str | None = None
    grace_period_seconds: int | None = None
    precondition_uid: str | None = None
    precondition_resource_version: str | None = None
    user: Any = None  # who deletes (auth.user.UserInfo), as admission webhooks are told; None: the server


class ListOptions(Record):
    label_selector: Callable[[dict], bool] | None = None
    field_selector: Callable[[dict], bool] | None = None
    limit: int = 0
    continue_token: str | None = None
    resource_version: str | None = None
    resource_version_match: str | None = None


class Result:
    """What a write produced: the object, whether it was created, and warnings for the client.

    A stored object is decoded when `obj` is first read: a controller's write (a kubelet's
    status, a scheduler's Event) mostly never reads its answer, which it sees on its watch.
    `written_meta` (a create's) is the metadata as encoded for the store, without the
    resourceVersion: the generated name and the uid, for a caller that needs no more (read only)."""

    def __init__(self, obj: dict | None = None, created: bool = False, warnings: list[str] | None = None,
                 decode: Callable[[], dict] | None = None, written_meta: dict | None = None):
        self._obj = obj
        self._decode = decode
        self.created = created
        self.warnings = [] if warnings is None else warnings
        self.written_meta = written_meta
        # (a create's) the KV `obj` is decoded from, its bytes in the order the object is served in
        self.stored = None

    @property
    def obj(self) -> dict:
        if self._decode is not None:
            self._obj, self._decode = self._decode(), None
        return self._obj

    @obj.setter
    def obj(self, value: dict) -> None:
        self._obj, self._decode, self.stored = value, None, None


class _OwnWrites:
    """Whether the store still holds what this server last read of it, but for its own writes:
    the store's revision is the revision of the last of them, each made right after the one
    before (nothing else written meanwhile, by this server or another on the same store), none of
    what is read below changed by them. One look at the revision then stands for the look at the
    namespace a create goes into, at the webhook configurations' version and at the Services'
    addresses (a Service this server creates is held as it is written: admit.service_written).

    A look opens an epoch when the revision is not the chain's: what was read for the one before
    is read again (after the look: what was written meanwhile only ends the new epoch sooner)."""

    # Any write of this server under these ends the chain; an update or a delete under the
    # second ones too.
    _READ = ("/registry/core/namespaces/", "/registry/admissionregistration.k8s.io/")
    _HELD = _READ + ("/registry/core/services/",)

    def __init__(self, store):
        import threading

        self.store = store
        self._lock = threading.Lock()
        self._last: int | None = None  # the revision of the chain's last write
        self._epoch = 0

    def look(self) -> tuple[int, bool]:
        """(epoch, unchanged): unchanged when what was read in this epoch is what the store holds."""
        current = self.store.current_revision()
        with self._lock:
            if current == self._last:
                return self._epoch, True
            self._epoch += 1
            self._last = current
            return self._epoch, False

    def wrote(self, kv, created: bool = False) -> None:
        """A write of this server (`kv` as the store answered it: its key, and the write's revision)."""
        key, revision = kv.key, kv.mod_revision
        with self._lock:
            if self._last is not None and revision == self._last + 1 \
                    and not key.startswith(self._READ if created else self._HELD):
                self._last = revision
            else:
                self._last = None


_GENERATE_NAME_ATTEMPTS = 8  # upstream's maxNameGenerationCreateAttempts
_WRITTEN_LIMIT = 4096  # objects APIServer.written holds at most


def _generated_name(prefix: str) -> str:
    import random

    return prefix + "".join(random.choice(_NAME_SUFFIX_ALPHABET) for _ in range(5))


def now_rfc3339() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class APIServer:
    def __init__(self, store, registry, admission=None, clock=None, service_cidr: str | None = None):
        from kubelite.server.clock import Clock

        self.store = store
        self.registry = registry
        # Where Services' addresses come from (kube-apiserver's --service-cluster-ip-range, checked
        # by admission.plugins.service_cidr); None: its default range.
        self.service_cidr = service_cidr
        # Timestamps the server writes (creation, deletion) follow the cluster's clock.
        self.clock = clock or Clock()
        # Admission with cluster state (plugins, validation; see kubelite.server.admit): built at
        # the first write unless given (a command that only reads never imports it).
        self._admission = admission
        self._fields = None
        self._webhooks = None
        self._own = _OwnWrites(store)
        self._namespaces: tuple[int, set] = (0, set())  # (epoch, namespaces found there, not terminating)
        # What this server just wrote, by key: (revision, the object as encoded), for the
        # controller manager, which would decode each write's watch event again (decode_written).
        # None while no one reads it; the manager empties it as it goes.
        self.written: dict | None = None

    # What only writes use is built at the first write: a command that only reads never imports it.

    @property
    def fields(self):
        """managedFields: who set which field (updates and server-side apply)."""
        fields = self._fields
        if fields is None:
            from kubelite.server.fieldmanager import FieldManager

            fields = self._fields = FieldManager(self.clock)
        return fields

    @property
    def admission(self):
        admission = self._admission
        if admission is None:
            from kubelite.server.admit import ClusterAdmission

            admission = self._admission = ClusterAdmission(self)
        return admission

    @property
    def webhooks(self):
        """Admission webhooks (Mutating/ValidatingWebhookConfiguration) and policies."""
        stage = self._webhooks
        if stage is None:
            from kubelite.server.webhooks.stage import WebhookStage

            stage = self._webhooks = WebhookStage(self)
        return stage

    # -- non-resource ------------------------------------------------------------------------

    def version_info(self) -> dict:
        return dict(KUBERNETES_VERSION_INFO)

    def bootstrap(self) -> None:
        """Create the standard namespaces (and their default ServiceAccounts) on first start."""
        if self.store.current_revision() > 1:
            self._bootstrap()
            return
        # A new store: its first writes (the namespaces, their ServiceAccounts, the kubernetes
        # Service) reach the disk at one commit, not at one each (SQLite: ~20-40 ms of fsyncs).
        with self.store.durable_at_end():
            self._bootstrap()

    def _bootstrap(self) -> None:
        ns_resource = self.registry.lookup("", "v1", "namespaces")
        for name in DEFAULT_NAMESPACES:
            if self.store.get(self._key(ns_resource, "", name)) is None:
                try:
                    self.create(ns_resource, "", {"apiVersion": "v1", "kind": "Namespace",
                                                  "metadata": {"name": name}}, WriteOptions())
                except StatusError as err:
                    if err.code != 409:
                        raise
        self._create_kubernetes_service()
        self._register_stored_crds()

    # -- keys and (de)serialisation --------------------------------------------------------------

    @staticmethod
    def _prefix(r, namespace: str = "") -> str:
        base = f"/registry/{r.group or 'core'}/{r.resource}/"
        if r.namespaced and namespace:
            return f"{base}{namespace}/"
        return base

    def _key(self, r, namespace: str, name: str) -> str:
        return self._prefix(r, namespace) + name

    def _decode(self, r, kv) -> dict:
        obj = json.loads(kv.value)
        obj["apiVersion"] = r.api_version
        obj["kind"] = r.kind
        obj.setdefault("metadata", {})["resourceVersion"] = str(kv.mod_revision)
        return _ordered(obj)

    @staticmethod
    def _encode(obj: dict) -> bytes:
        meta = obj.get("metadata")
        if type(obj) is dict and type(meta) is dict and "resourceVersion" not in meta:
            return json.dumps(obj, separators=(",", ":")).encode()  # a create's: nothing to take out
        stored = dict(obj)
        meta = dict(stored.get("metadata") or {})
        meta.pop("resourceVersion", None)
        stored["metadata"] = meta
        return json.dumps(stored, separators=(",", ":")).encode()

    # -- reads -----------------------------------------------------------------------------------

    def get(self, r, namespace: str, name: str) -> dict:
        kv = self.store.get(self._key(r, namespace, name))
        if kv is None:
            raise errors.not_found(r.group, r.resource, name)
        return self._decode(r, kv)

    def list(self, r, namespace: str, opts: ListOptions) -> dict:
        def keep(kv):
            obj = self._decode(r, kv)
            return obj if _matches(obj, opts) else None

        items, metadata = self.list_items(r, namespace, opts, keep)
        if not r.crd:
            # Typed lists do not repeat kind/apiVersion on each item.
            items = [{k: v for k, v in item.items() if k not in ("kind", "apiVersion")} for item in items]
        return {"kind": r.list_kind or f"{r.kind}List", "apiVersion": r.api_version,
                "metadata": metadata, "items": items}

    def list_items(self, r, namespace: str, opts: ListOptions, keep: Callable, reader=None) -> tuple[list, dict]:
        """What `keep(kv)` makes of each stored object a LIST returns (None leaves it out, it
        still counts for paging) and the list's metadata. `reader` (the store by default) is
        what the objects are read from: it has the store's `range` and `count`."""
        reader = reader or self.store
        from kubelite.server.storage.errors import Compacted, FutureRevision

        prefix = self._prefix(r, namespace)
        revision = 0
        start_after = None
        if opts.continue_token:
            revision, start = continuetoken.decode(opts.continue_token)
            start_after = prefix + start
            if opts.resource_version not in (None, "", "0"):
                raise errors.bad_request("specifying resource version is not allowed when using continue")
        elif opts.resource_version not in (None, "", "0") and opts.resource_version_match == "Exact":
            revision = _parse_rv(opts.resource_version)
        limit = opts.limit if opts.limit and opts.limit > 0 else 0
        if opts.resource_version == "0" and not opts.continue_token:
            limit = 0  # served "from the cache": the limit is ignored, as kube-apiserver does
        items: list = []
        more = False
        last_key = None
        try:
            while True:
                page = reader.range(prefix, start_after=start_after,
                                    limit=(limit - len(items)) if limit else 0, revision=revision)
                revision = page.revision
                for kv in page.kvs:
                    last_key = kv.key
                    item = keep(kv)
                    if item is not None:
                        items.append(item)
                if not page.more:
                    break
                start_after = last_key
                if limit and len(items) >= limit:
                    # As etcd paging: more keys in range means a continue token, match or not.
                    more = True
                    break
        except Compacted:
            if opts.continue_token:
                # Revision -1 marks an inconsistent continuation: it reads the current state.
                fresh = continuetoken.encode(-1, start_after[len(prefix):] if start_after else "")
                raise errors.expired(
                    "The provided continue parameter is too old to display a consistent list result. "
                    "You can start a new list without the continue parameter, or use the continue "
                    "token in this response to retrieve the remainder of the results. Continuing with "
                    "the provided token results in an inconsistent list - objects that were created, "
                    "modified, or deleted between the time the first chunk was returned and now may "
                    "show up in the list.", continue_token=fresh) from None
            raise errors.expired("The resourceVersion for the provided list is too old.") from None
        except FutureRevision:
            # Exact reads go to etcd, which refuses a future revision outright.
            raise errors.server_error("etcdserver: mvcc: required revision is a future revision") from None
        # Custom resource lists are unstructured: their metadata always carries `continue`.
        metadata: dict[str, Any] = {"continue": ""} if r.crd else {}
        metadata["resourceVersion"] = str(revision)
        if more and last_key is not None:
            metadata["continue"] = continuetoken.encode(revision, last_key[len(prefix):])
            if opts.label_selector is None and opts.field_selector is None:
                # Only an unfiltered list knows how many items the later pages hold.
                metadata["remainingItemCount"] = self._count_after(prefix, last_key, revision)
        if r.crd:
            metadata = dict(sorted(metadata.items()))  # unstructured JSON: keys in order
        return items, metadata

    def _count_after(self, prefix: str, key: str, revision: int) -> int:
        return self.store.count(prefix, start_after=key, revision=revision)

    # -- writes ----------------------------------------------------------------------------------

    def create(self, r, namespace: str, body: dict, opts: WriteOptions, applied: bool = False,
               owned: bool = False) -> Result:
        """`owned`: the body is the caller's to give up (one decoded from a request for this
        create), changed where it is rather than copied."""
        obj = _check_body(r, body, copy=not owned)
        meta = obj.setdefault("metadata", {})
        self._place_namespace(r, namespace, meta)
        requested = str(meta.get("name") or "")  # admission is told the request's name, not a generated one
        if not meta.get("name"):
            if meta.get("generateName"):
                meta["name"] = _generated_name(meta["generateName"])
            else:
                raise errors.invalid(r.group, r.kind, "", [{
                    "reason": "FieldValueRequired", "message": "Required value: name or generateName is required",
                    "field": "metadata.name"}])
        name = meta["name"]
        look = self._own.look()
        if r.namespaced:
            self._require_namespace(r, meta["namespace"], name, look)
        for transient in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            meta.pop(transient, None)
        from kubelite.uuids import uuid4

        meta["uid"] = uuid4()
        meta["creationTimestamp"] = self.clock.rfc3339()
        obj = self._prepare_create(r, obj, copy=False)  # _check_body's copy: defaulted in place
        webhooks = self.webhooks
        version = webhooks.version(opts, look)
        obj, warnings = webhooks.mutating(r, obj, None, opts, requested_name=requested, version=version)
        self.admission.validate(r, obj, None)
        warnings += webhooks.validating(r, obj, None, opts, requested_name=requested, version=version)
        obj = self.admission.allocate(r, obj, look=look, copy=False)  # _check_body's copy, still
        if not applied:  # an apply's managedFields are already final
            obj = self.fields.record_update(r, None, obj, opts.field_manager)
        from kubelite.server import csr

        if csr.handles(r):  # the requester, recorded after field management as the strategy does
            csr.prepare_create(obj, opts.user)
        obj = _ordered(obj)
        if opts.dry_run:
            # kube-apiserver's dry-run storage only looks for an existing key: a resourceVersion
            # sent is neither refused nor cleared, the answer echoes it.
            if self.store.get(self._key(r, namespace, name)) is not None:
                raise errors.already_exists(r.group, r.resource, name)
            return Result(obj, created=True, warnings=warnings)
        if _rv_set_on_create(obj["metadata"].pop("resourceVersion", None)):
            raise errors.server_error("resourceVersion should not be set on objects to be created")
        from kubelite.server.storage.errors import KeyExists

        # A generated name another object already holds is generated again (kube-apiserver's
        # RetryGenerateName, on since 1.31): 1,000 pods of one Job collide with a chance in 30.
        from kubelite.schema.goorder import as_served

        for attempt in range(_GENERATE_NAME_ATTEMPTS):
            try:
                # stored in the order it is served in: the answer is these bytes (handlers.resources)
                kv = self.store.create(self._key(r, meta.get("namespace", ""), name), self._encode(as_served(obj)))
                if r.kind == "Service" and r.group == "":
                    self.admission.service_written(kv, obj)  # held before the chain says it is
                self._own.wrote(kv, created=True)
                self._note_written(kv, obj)
                break
            except KeyExists:
                if requested or not meta.get("generateName") or attempt == _GENERATE_NAME_ATTEMPTS - 1:
                    raise errors.already_exists(r.group, r.resource, name) from None
                name = obj["metadata"]["name"] = _generated_name(meta["generateName"])
        result = self._stored(r, kv, self._after_create, created=True, warnings=warnings)
        result.written_meta = obj["metadata"]
        if result._decode is not None:  # (not read, and so not changed, by _after_create)
            result.stored = kv
        return result

    def update(self, r, namespace: str, name: str, body: dict, opts: WriteOptions,
               subresource: str = "") -> Result:
        # An update without a resourceVersion is unconditional: a lost race is retried.
        for _ in range(_PATCH_RETRIES):
            try:
                return self._update_once(r, namespace, name, body, opts, subresource)
            except _StorageConflict:
                meta = body.get("metadata") if isinstance(body, dict) else None
                if isinstance(meta, dict) and meta.get("resourceVersion"):
                    raise
        return self._update_once(r, namespace, name, body, opts, subresource)

    def _update_once(self, r, namespace: str, name: str, body: dict, opts: WriteOptions,
                     subresource: str = "") -> Result:
        new = _check_body(r, body) if subresource != "scale" else body
        meta = new.setdefault("metadata", {}) if isinstance(new.get("metadata", {}), dict) else None
        if meta is None:
            raise errors.bad_request("metadata must be an object")
        if meta.get("name") and meta["name"] != name:
            raise errors.bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                                     % (meta["name"], name))
        kv = self.store.get(self._key(r, namespace, name))
        if kv is None:
            if subresource or (r.group, r.resource) not in _CREATE_ON_UPDATE:
                raise errors.not_found(r.group, r.resource, name)
            meta["name"] = name
            meta.pop("resourceVersion", None)
            return self.create(r, namespace, new, opts)
        old = self._decode(r, kv)
        expected = meta.get("resourceVersion") or None
        if expected is not None:
            expected_rev = _parse_rv(expected)
        else:
            expected_rev = None
        if subresource == "scale":
            return self._write_scale(r, old, new, expected_rev, opts)
        if expected_rev is not None and expected_rev != kv.mod_revision:
            raise errors.conflict(r.group, r.resource, name)
        given_uid = meta.get("uid")
        if given_uid and subresource != "scale" and given_uid != old["metadata"].get("uid"):
            raise errors.conflict(r.group, r.resource, name, _storage_precondition(
                r, namespace, name, f"Precondition failed: UID in precondition: {given_uid}, UID in object "
                f"meta: {old['metadata'].get('uid')}"))
        if r.namespaced:
            self._place_namespace(r, namespace, meta)
        merged = self._prepare_update(r, old, new, subresource)
        merged = self.fields.record_update(r, old, merged, opts.field_manager, subresource)
        return self._store_update(r, old, merged, kv.mod_revision, opts, subresource)

    def patch(self, r, namespace: str, name: str, patch_type: str, patch: bytes, opts: WriteOptions,
              subresource: str = "") -> Result:
        # As kube-apiserver's GuaranteedUpdate: a write that lost the race to another writer
        # (a controller's status update, say) is re-applied to the fresh object; only a patch
        # that names a resourceVersion itself fails with 409.
        for _ in range(_PATCH_RETRIES):
            try:
                return self._patch_once(r, namespace, name, patch_type, patch, opts, subresource)
            except _StorageConflict:
                continue
        return self._patch_once(r, namespace, name, patch_type, patch, opts, subresource)

    def _patch_once(self, r, namespace: str, name: str, patch_type: str, patch: bytes, opts: WriteOptions,
                    subresource: str = "") -> Result:
        from kubelite.server import patching

        if patch_type == patching.APPLY_PATCH:
            return self._apply_once(r, namespace, name, patch, opts, subresource)
        kv = self.store.get(self._key(r, namespace, name))
        if kv is None:
            raise errors.not_found(r.group, r.resource, name)
        old = self._decode(r, kv)
        if subresource == "scale":
            from kubelite.server import scalepatch

            current = self._scale_of(r, old)
            patched = scalepatch.decoded(patch_type, current, patch, patching.apply(patch_type, current, patch, None))
            return self._write_scale(r, old, patched, None, opts)
        from kubelite.schema.goorder import as_served
        from kubelite.server import patchcheck

        # The patch applies to the object as encoded. Both are read, never changed, here: the
        # patch engines copy the document they patch, so `served` may share parts with `old`.
        doc = _status_alone(r, patch_type, patch, opts, subresource)
        if doc is not None:
            # A controller's strategic patch of the status alone (the kubelet's): the engine
            # touches only the fields the patch names, and the status strategy keeps only the
            # status of what it makes, so the status is all that is served and patched (not a
            # copy of the whole Pod, ordered and cloned for a few of its fields).
            served = as_served({k: old[k] for k in ("kind", "apiVersion", "status") if k in old})
            patched = patching.apply(patch_type, served, patch, r, doc=doc)
        else:
            served = as_served(old)
            patched = patching.apply(patch_type, served, patch, r)
        if not isinstance(patched, dict):
            raise errors.bad_request("the patch did not produce an object")
        warnings = [] if opts.trusted else \
            patchcheck.review(r, patch_type, served, patch, patched, opts.field_validation)
        if patched.get("metadata") is None:  # "metadata": null decodes as an empty ObjectMeta
            patched["metadata"] = {}
        meta = patched["metadata"]
        if meta.get("name", name) != name:
            raise errors.bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                                     % (meta.get("name"), name))
        meta["name"] = name
        expected = meta.get("resourceVersion")
        if expected and _parse_rv(expected) != kv.mod_revision:
            raise errors.conflict(r.group, r.resource, name)
        merged = self._prepare_update(r, old, patched, subresource)
        merged = self.fields.record_update(r, old, merged, opts.field_manager, subresource)
        result = self._store_update(r, old, merged, kv.mod_revision, opts, subresource)
        result.warnings[:0] = warnings
        return result

    def _apply_once(self, r, namespace: str, name: str, body: bytes, opts: WriteOptions,
                    subresource: str) -> Result:
        """Server-side apply: merge the applied configuration, or create the object from it."""
        from kubelite.schema.goorder import as_served
        from kubelite.server.fieldmanager import applybody

        if subresource == "scale":
            from kubelite.server.fieldmanager import scale

            return scale.apply(self, r, namespace, name, body, opts)
        config = applybody.decode(body)
        applybody.check(r, config, name)
        applybody.check_namespace(r, config, namespace)
        kv = self.store.get(self._key(r, namespace, name))
        if kv is None:
            if subresource:
                raise errors.not_found(r.group, r.resource, name)
            obj, _ = self.fields.apply(r, None, config, opts.field_manager, opts.force)
            meta = obj.setdefault("metadata", {})
            meta["name"] = name
            if r.namespaced:
                meta.setdefault("namespace", namespace)
            return self.create(r, namespace, obj, opts, applied=True)
        old = self._decode(r, kv)
        expected = (config.get("metadata") or {}).get("resourceVersion")
        if expected and _parse_rv(expected) != kv.mod_revision:
            raise errors.conflict(r.group, r.resource, name)
        obj, changed = self.fields.apply(r, as_served(clone(old)), config, opts.field_manager, opts.force,
                                         subresource)
        managed = obj["metadata"].get("managedFields")
        if not changed and managed == old["metadata"].get("managedFields"):
            return Result(old)  # nothing to write: an unchanged apply costs a read and the comparison
        merged = self._prepare_update(r, old, obj, subresource)
        if managed:
            merged["metadata"]["managedFields"] = managed
        else:
            merged["metadata"].pop("managedFields", None)
        return self._store_update(r, old, merged, kv.mod_revision, opts, subresource)

    def _store_update(self, r, old: dict, new: dict, revision: int, opts: WriteOptions,
                      subresource: str = "") -> Result:
        from kubelite.server.storage.errors import Conflict, NotFound

        webhooks = self.webhooks
        version = None if subresource == "scale" else webhooks.version(opts)
        new, warnings = webhooks.mutating(r, new, old, opts, subresource, version=version)
        self.admission.validate(r, new, old)
        warnings += webhooks.validating(r, new, old, opts, subresource, version=version)
        new = _ordered(self.admission.allocate(r, new, old))
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if _without_rv(new) == _without_rv(old):
            return Result(old, warnings=warnings)  # a no-op write keeps the resourceVersion
        meta = new["metadata"]
        finalized = meta.get("deletionTimestamp") and not meta.get("finalizers") and not _spec_finalizers(new)
        if opts.dry_run:
            return Result(new, warnings=warnings)
        key = self._key(r, meta.get("namespace", ""), meta["name"])
        try:
            if finalized:
                # The last finalizer gone: the object is deleted, and the answer is its final
                # state as written by this update (still at the revision it had), as kube-apiserver's.
                kv = self.store.delete(key, revision)
                self._own.wrote(kv)
                self._after_delete(r, new)
                return Result(new, warnings=warnings)
            kv = self.store.update(key, self._encode(new), revision)
            self._own.wrote(kv)
            self._note_written(kv, new)
        except Conflict:
            raise _StorageConflict(errors.conflict(r.group, r.resource, meta["name"])) from None
        except NotFound:
            raise errors.not_found(r.group, r.resource, meta["name"]) from None
        return self._stored(r, kv, self._after_update, warnings=warnings)

    def _stored(self, r, kv, after: Callable, created: bool = False, warnings: list[str] | None = None) -> Result:
        """The Result of a write, handed to `after` (which reads its object only if it has work)."""
        result = Result(created=created, warnings=warnings, decode=lambda: self._decode(r, kv))
        after(r, result)
        return result

    def set_node_name(self, r, pod: dict, node: str) -> Result:
        """pods/binding: assign the Pod (read for this, the caller's to give up: it is changed) to a
        node (a compare-and-swap on its revision)."""
        from kubelite.server.storage.errors import Conflict

        pod.setdefault("spec", {})["nodeName"] = node
        meta = pod["metadata"]
        try:
            kv = self.store.update(self._key(r, meta["namespace"], meta["name"]), self._encode(pod),
                                   int(meta["resourceVersion"]))
            self._own.wrote(kv)
            self._note_written(kv, pod)
        except Conflict:
            raise errors.conflict("", "pods/binding", meta["name"]) from None
        return Result(decode=lambda: self._decode(r, kv))

    # -- scale ---------------------------------------------------------------------------------

    def get_scale(self, r, namespace: str, name: str) -> dict:
        kv = self.store.get(self._key(r, namespace, name))
        if kv is None:
            raise errors.not_found(r.group, f"{r.resource}/scale", name)
        return self._scale_of(r, self._decode(r, kv))

    def _scale_of(self, r, obj: dict) -> dict:
        spec_path, status_path, selector_path = _scale_paths(r)
        meta = obj["metadata"]
        scale_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                      if k in meta}
        status: dict[str, Any] = {"replicas": _dig(obj, status_path) or 0}
        selector = _selector_string(r, obj, selector_path)
        if selector:
            status["selector"] = selector
        return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": scale_meta,
                # autoscaling/v1 ScaleSpec.replicas is omitempty: 0 is not written.
                "spec": {"replicas": _dig(obj, spec_path)} if _dig(obj, spec_path) else {}, "status": status}

    def _write_scale(self, r, old: dict, scale: dict, expected_rev, opts) -> Result:
        if not isinstance(scale, dict):
            raise errors.bad_request("the body of the request is not a Scale object")
        kind = scale.get("kind")
        if kind not in (None, "Scale"):
            version = str(scale.get("apiVersion") or "v1").rpartition("/")[2]
            raise errors.bad_request(f"{kind} in version \"{version}\" cannot be handled as a Scale: "
                                     f"converting ({version}.{kind}) to (autoscaling.Scale): unknown conversion")
        name = old["metadata"]["name"]
        sname = (scale.get("metadata") or {}).get("name")
        if sname and sname != name:
            raise errors.bad_request(
                f"the name of the object ({sname}) does not match the name on the URL ({name})")
        rv = (scale.get("metadata") or {}).get("resourceVersion")
        if expected_rev is None and rv:
            expected_rev = _parse_rv(rv)
        if expected_rev is not None and str(expected_rev) != old["metadata"]["resourceVersion"]:
            raise errors.conflict(r.group, r.resource, name)
        replicas = (scale.get("spec") or {}).get("replicas", 0)
        if not isinstance(replicas, int) or isinstance(replicas, bool):
            raise errors.bad_request("spec.replicas must be an integer")
        if replicas < 0:
            raise errors.invalid("autoscaling", "Scale", name, [{
                "reason": "FieldValueInvalid",
                "message": f"Invalid value: {replicas}: must be greater than or equal to 0",
                "field": "spec.replicas"}])
        new = clone(old)
        spec_path, _, _ = _scale_paths(r)
        _set(new, spec_path, replicas)
        self._bump_generation(r, old, new)
        new = self.fields.record_update(r, old, new, opts.field_manager, "scale")
        result = self._store_update(r, old, new, int(old["metadata"]["resourceVersion"]), opts, "scale")
        return Result(self._scale_of(r, result.obj), warnings=result.warnings)

    # -- delete ----------------------------------------------------------------------------------

    def delete(self, r, namespace: str, name: str, opts: DeleteOptions) -> tuple[int, dict]:
        """(HTTP status, body): 200 with a Status or the object; 202 while finalizers hold it."""
        if r.group == "" and r.resource == "namespaces" and name in IMMORTAL_NAMESPACES:
            raise errors.forbidden("", "namespaces", name, "this namespace may not be deleted")
        # A write between the read and the delete (a controller's status update) is no reason to
        # refuse a delete that named no precondition: as kube-apiserver's storage does, read the
        # object again and decide anew; preconditions are checked against each fresh read.
        for _ in range(_PATCH_RETRIES):
            try:
                return self._delete_once(r, namespace, name, opts)
            except _DeleteRaced:
                continue
        raise errors.conflict(r.group, r.resource, name)

    def _delete_once(self, r, namespace: str, name: str, opts: DeleteOptions) -> tuple[int, dict]:
        key = self._key(r, namespace, name)
        kv = self.store.get(key)
        if kv is None:
            raise errors.not_found(r.group, r.resource, name)
        obj = self._decode(r, kv)
        meta = obj["metadata"]
        if opts.precondition_uid and opts.precondition_uid != meta.get("uid"):
            raise errors.conflict(r.group, r.kind, name,
                                  f"the UID in the precondition ({opts.precondition_uid}) does not match the "
                                  f"UID in record ({meta.get('uid')}). The object might have been deleted and "
                                  "then recreated")
        if opts.precondition_resource_version and opts.precondition_resource_version != meta["resourceVersion"]:
            raise errors.conflict(r.group, r.kind, name,
                                  f"the ResourceVersion in the precondition ({opts.precondition_resource_version})"
                                  f" does not match the ResourceVersion in record ({meta['resourceVersion']}). "
                                  "The object might have been modified")
        self.webhooks.deleting(r, obj, opts)
        finalizers = _deletion_finalizers(meta.get("finalizers") or [], opts.propagation_policy)
        if r.group == "" and r.resource == "namespaces" and (finalizers or _spec_finalizers(obj)):
            return self._terminate_namespace(r, key, kv, obj, finalizers, opts)
        grace = self._grace_period(r, obj, opts)
        if finalizers or grace:
            if meta.get("deletionTimestamp"):
                return 200, obj
            held = clone(obj)
            # Without a garbage collector nothing removes the orphan/foregroundDeletion finalizers
            # (nor, without a kubelet, ends a bound Pod's grace period): the object stays, as on a
            # kube-apiserver whose controllers are not running.
            when = self.clock.now() + datetime.timedelta(seconds=grace or 0)
            held["metadata"]["deletionTimestamp"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
            held["metadata"]["deletionGracePeriodSeconds"] = grace or 0
            if finalizers:
                held["metadata"]["finalizers"] = finalizers
            from kubelite.server.admission import generation

            if generation.deletion_generation(held) is not None:
                held["metadata"]["generation"] = generation.deletion_generation(held)
            held = _ordered(held)
            if opts.dry_run:
                return 200, held
            from kubelite.server.storage.errors import Conflict

            try:
                kv = self.store.update(key, self._encode(held), kv.mod_revision)
            except Conflict:
                raise _DeleteRaced() from None
            self._own.wrote(kv)
            return 200, self._decode(r, kv)
        if opts.dry_run:
            return 200, self._deleted_body(r, obj)
        from kubelite.server.storage.errors import Conflict, NotFound

        try:
            kv = self.store.delete(key, kv.mod_revision)
        except (Conflict, NotFound):
            raise _DeleteRaced() from None
        self._own.wrote(kv)
        gone = self._decode(r, kv)
        self._after_delete(r, gone)
        return 200, self._deleted_body(r, gone)

    def _terminate_namespace(self, r, key: str, kv, obj: dict, finalizers: list, opts: DeleteOptions):
        """A namespace with finalizers turns Terminating (no grace period); the namespace controller
        empties it and removes the `kubernetes` finalizer through `finalize`, which deletes it."""
        if obj["metadata"].get("deletionTimestamp"):
            return 200, obj
        held = clone(obj)
        held["metadata"]["deletionTimestamp"] = self.clock.rfc3339()
        if finalizers:
            held["metadata"]["finalizers"] = finalizers
        held.setdefault("status", {})["phase"] = "Terminating"
        held = _ordered(held)
        if opts.dry_run:
            return 200, held
        from kubelite.server.storage.errors import Conflict

        try:
            kv = self.store.update(key, self._encode(held), kv.mod_revision)
        except Conflict:
            raise _DeleteRaced() from None
        return 200, self._decode(r, kv)

    @staticmethod
    def _grace_period(r, obj: dict, opts: DeleteOptions) -> int:
        """Seconds a deleted Pod lingers: only Pods bound to a node wait (for their kubelet)."""
        if r.group != "" or r.kind != "Pod" or not (obj.get("spec") or {}).get("nodeName"):
            return 0
        if opts.grace_period_seconds is not None:
            return max(int(opts.grace_period_seconds), 0)
        grace = (obj.get("spec") or {}).get("terminationGracePeriodSeconds")
        return 30 if grace is None else int(grace)

    def _deleted_body(self, r, obj: dict) -> dict:
        if (r.group, r.resource) in _DELETE_RETURNS_OBJECT:
            shown = clone(obj)
            # An immediate delete is a graceful one with a zero period: it ends now.
            shown["metadata"]["deletionTimestamp"] = self.clock.rfc3339()
            shown["metadata"]["deletionGracePeriodSeconds"] = 0
            if r.resource == "namespaces":
                shown.setdefault("status", {})["phase"] = "Terminating"
            return _ordered(shown)
        meta = obj["metadata"]
        return errors.success_status(name=meta["name"], group=r.group, kind=r.resource, uid=meta.get("uid", ""))

    def delete_collection(self, r, namespace: str, list_opts: ListOptions, opts: DeleteOptions) -> dict:
        listed = self.list(r, namespace, list_opts)
        deleted = []
        for item in listed["items"]:
            meta = item["metadata"]
            try:
                _, body = self.delete(r, meta.get("namespace", ""), meta["name"], opts)
            except StatusError as err:
                if err.code == 404:
                    continue
                raise
            if body.get("kind") != "Status":
                deleted.append(body)
            else:
                item = dict(item)
                deleted.append(item)
        listed["items"] = deleted
        return listed

    # -- watch -----------------------------------------------------------------------------------

    def watch_prefix(self, r, namespace: str) -> str:
        return self._prefix(r, namespace)

    def decode_event_object(self, r, kv) -> dict:
        return self._decode(r, kv)

    def decode_written(self, r, kv) -> dict:
        """decode_event_object for the controller manager's watch, which shares what it decodes
        with no one that changes it: the object this server encoded for the same key at the same
        revision (the stored value, not changed since) is taken as _decode would rebuild it from
        the bytes, rather than decoded again (the 1,000-replica rollout decoded ~4,000 events
        it had just written, ~8% of its time). Anything else is decoded."""
        written = self.written
        noted = written.pop(kv.key, None) if written else None
        if noted is None or noted[0] != kv.mod_revision:
            return self._decode(r, kv)
        obj = dict(noted[1])  # shared below the top and metadata with the written object, now the caller's
        obj["apiVersion"] = r.api_version
        obj["kind"] = r.kind
        meta = obj.get("metadata")
        obj["metadata"] = meta = dict(meta or {})
        meta["resourceVersion"] = str(kv.mod_revision)
        return _ordered(obj)

    def forget_written(self, key: str) -> None:
        """A watch event decode_written will not be asked for (its resource is not watched)."""
        written = self.written
        if written:
            written.pop(key, None)

    def _note_written(self, kv, obj: dict) -> None:
        written = self.written
        if written is not None:
            if len(written) >= _WRITTEN_LIMIT:  # events the manager never saw (a closed watch)
                written.clear()
            written[kv.key] = (kv.mod_revision, obj)

    # -- strategies ------------------------------------------------------------------------------

    def _place_namespace(self, r, namespace: str, meta: dict) -> None:
        if not r.namespaced:
            meta.pop("namespace", None)
            return
        given = meta.get("namespace")
        if given and namespace and given != namespace:
            raise errors.bad_request("the namespace of the provided object does not match the namespace "
                                     "sent on the request")
        meta["namespace"] = given or namespace or "default"

    def _require_namespace(self, r, namespace: str, name: str, look: tuple[int, bool] | None = None) -> None:
        """`look`: _OwnWrites.look() as the create has made it (a namespace found in its epoch
        is not read again)."""
        epoch, found = self._namespaces
        if look is not None and look[1] and epoch == look[0] and namespace in found:
            return
        ns = self.registry.lookup("", "v1", "namespaces")
        kv = self.store.get(self._key(ns, "", namespace))
        if kv is None:
            raise errors.not_found("", "namespaces", namespace)
        if _terminating(kv.value if isinstance(kv.value, bytes) else bytes(kv.value)):
            raise errors.namespace_terminating(r.group, r.resource, name, namespace)
        if look is not None:
            if epoch != look[0]:
                found = set()
                self._namespaces = (look[0], found)
            found.add(namespace)

    def _prepare_create(self, r, obj: dict, copy: bool = True) -> dict:
        from kubelite.server import gobytes
        from kubelite.server.admission import defaults, generation

        obj = self.admission.mutate_create(r, gobytes.canonical(obj, r), copy=copy)
        if r.crd and r.subresource("status") is not None:
            obj.pop("status", None)
        if r.group == "apiextensions.k8s.io" and r.kind == "CustomResourceDefinition":
            from kubelite.server.admission import crd

            obj["status"] = crd.crd_created_status(obj)
        gen = generation.initial_generation(obj)
        if gen is None:
            obj["metadata"].pop("generation", None)
        else:
            obj["metadata"]["generation"] = gen
        # `obj` is admission's private copy: prepared where it is.
        return defaults.prepare_own_for_create(obj, now=obj["metadata"]["creationTimestamp"])

    def _prepare_update(self, r, old: dict, new: dict, subresource: str) -> dict:
        """The object to store from the client's version, as each strategy's PrepareForUpdate."""
        from kubelite.server import csr, gobytes

        if subresource == "status" and not csr.handles(r) and not gobytes.has_bytes(r):
            # `new` is only read (nothing in it to re-encode): the defaulting copies what is kept.
            return _status_update(r, old, new)
        new = gobytes.canonical(clone(new), r)
        new["apiVersion"], new["kind"] = r.api_version, r.kind
        if csr.handles(r):  # spec, status and approval each change only through their own door
            new = csr.prepare_update(old, new, subresource, self.clock.rfc3339())
            if subresource:
                return new
        meta = new.setdefault("metadata", {})
        old_meta = old["metadata"]
        if subresource == "finalize":
            merged = clone(old)
            merged.setdefault("spec", {})["finalizers"] = list((new.get("spec") or {}).get("finalizers") or [])
            return merged
        if subresource == "status":
            return _status_update(r, old, new)
        for immutable in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                          "namespace", "name"):
            if immutable in old_meta:
                meta[immutable] = old_meta[immutable]
            else:
                meta.pop(immutable, None)
        from kubelite.server.admission import defaults

        new = self.admission.mutate_update(r, defaults.apply_defaults(new))
        new = defaults.prepare_for_update(new, old)
        if r.crd and r.subresource("status") is not None:
            if "status" in old:
                new["status"] = clone(old["status"])
            else:
                new.pop("status", None)
        self._bump_generation(r, old, new)
        return new

    def _bump_generation(self, r, old: dict, new: dict) -> None:
        from kubelite.server.admission import generation

        gen = generation.next_generation(old, new, status_subresource=r.subresource("status") is not None)
        if gen is None:
            new["metadata"].pop("generation", None)
        else:
            new["metadata"]["generation"] = gen

    def _after_create(self, r, created: Result) -> None:
        if r.group == "" and r.kind == "Namespace":
            # The serviceaccount controller owns this (and recreates a deleted one); made here
            # too so that a Pod created right after its namespace never races the controller.
            self._create_default_service_account(created.obj["metadata"]["name"])
        elif r.group == "apiextensions.k8s.io" and r.kind == "CustomResourceDefinition":
            self._register_crd(created.obj)
            self._establish_crd(r, created.obj)

    def _establish_crd(self, r, crd: dict) -> None:
        """What kube-apiserver's naming and establishing controllers write right after a CRD is
        created: a status update (a new resourceVersion, a MODIFIED event); the create answer
        itself still shows the status as created."""
        from kubelite.server.admission.crd import crd_initial_status
        from kubelite.server.storage.errors import Conflict, NotFound

        established = clone(crd)
        established["status"] = crd_initial_status(crd, self.clock.rfc3339())
        meta = crd["metadata"]
        try:
            self.store.update(self._key(r, "", meta["name"]), self._encode(_ordered(established)),
                              int(meta["resourceVersion"]))
        except (Conflict, NotFound):
            pass  # changed or deleted meanwhile: the controllers would retry on that version

    def _after_update(self, r, updated: Result) -> None:
        if r.group == "apiextensions.k8s.io" and r.kind == "CustomResourceDefinition":
            self._register_crd(updated.obj)

    def _after_delete(self, r, obj: dict) -> None:
        if r.group == "apiextensions.k8s.io" and r.kind == "CustomResourceDefinition":
            name = obj["metadata"]["name"]
            for cr in self.registry.crd_resources(name)[:1]:
                for kv in self.store.range(self._prefix(cr)).kvs:
                    self.store.delete(kv.key)
            self.registry.unregister_crd(name)

    def _register_crd(self, crd: dict) -> None:
        try:
            self.registry.register_crd(crd)
        except Exception:
            # An unservable CRD is still stored (validation rejects the bad ones); nothing to serve.
            pass

    def _register_stored_crds(self) -> None:
        crds = self.registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        if crds is None:
            return
        for kv in self.store.range(self._prefix(crds)).kvs:
            self._register_crd(json.loads(kv.value))

    def _create_kubernetes_service(self) -> None:
        """`default/kubernetes`, the Service (and Endpoints) a real cluster's apiserver keeps for itself."""
        for resource in ("services", "endpoints"):
            r = self.registry.lookup("", "v1", resource)
            key = self._key(r, "default", "kubernetes") if r is not None else None
            if key is None or self.store.get(key) is not None:
                continue
            if resource == "services":
                from kubelite.server.admission.plugins import kubernetes_service_ip

                body = kubernetes_service(kubernetes_service_ip(self.service_cidr))
            else:
                body = kubernetes_endpoints()
            try:
                self.create(r, "default", body, WriteOptions())
            except StatusError:
                # another server on this store made it meanwhile (its cluster IP then reads as
                # taken, a 422, rather than the name as a 409)
                if self.store.get(key) is None:
                    raise

    def _create_default_service_account(self, namespace: str) -> None:
        sa = self.registry.lookup("", "v1", "serviceaccounts")
        if sa is None or self.store.get(self._key(sa, namespace, "default")) is not None:
            return
        try:
            self.create(sa, namespace, {"apiVersion": "v1", "kind": "ServiceAccount",
                                        "metadata": {"name": "default", "namespace": namespace}},
                        WriteOptions())
        except StatusError as err:
            if err.code != 409:
                raise


# -- helpers -----------------------------------------------------------------------------------

# The apiserver's own endpoint as its `kubernetes` Service publishes it (secure port 6443).
APISERVER_ADDRESS = "127.0.0.1"
APISERVER_PORT = 6443


def kubernetes_service(cluster_ip: str) -> dict:
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "kubernetes", "namespace": "default",
                         "labels": {"component": "apiserver", "provider": "kubernetes"}},
            "spec": {"type": "ClusterIP", "clusterIP": cluster_ip, "sessionAffinity": "None",
                     "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": APISERVER_PORT}]}}


def kubernetes_endpoints() -> dict:
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": "kubernetes", "namespace": "default",
                         "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
            "subsets": [{"addresses": [{"ip": APISERVER_ADDRESS}],
                         "ports": [{"name": "https", "port": APISERVER_PORT, "protocol": "TCP"}]}]}



# kube-apiserver's GuaranteedUpdate retries a lost race for as long as it keeps losing; a bound
# still ends a write that can never win. Several processes on one store (serve --workers) lose
# races to each other's writes far more often than one process, whose writes queue in order.
_PATCH_RETRIES = 100


class _DeleteRaced(Exception):
    """A delete's compare-and-swap lost to a concurrent write: the object is read again."""


class _StorageConflict(StatusError):
    """The 409 of a compare-and-swap lost to a concurrent writer (retried where the server retries)."""

    def __init__(self, err: StatusError):
        self.__dict__.update(err.__dict__)
        Exception.__init__(self, *err.args)


def _prune_patched(r, patched: dict, opts: WriteOptions) -> list[str]:
    """Unknown fields a patch brought in: dropped, then reported per fieldValidation."""
    from kubelite.server.pruning import prune_object

    unknown = prune_object(r, patched)
    if not unknown or opts.field_validation == "Ignore":
        return []
    problems = [f'unknown field "{p}"' for p in unknown]
    if opts.field_validation == "Strict":
        detail = f"strict decoding error: {', '.join(problems)}"
        value = json.dumps(patched, separators=(",", ":"))
        message = f"Invalid value: {json.dumps(value)}: {detail}"
        raise StatusError(422, "Invalid", f' "" is invalid: patch: {message}',
                          causes=[{"reason": "FieldValueInvalid", "message": message, "field": "patch"}],
                          has_details=True)
    return problems


def _storage_precondition(r, namespace: str, name: str, detail: str) -> str:
    # etcd3 keys are /registry/<resource>/... for core and most groups (kube-apiserver's layout).
    key = "/".join(p for p in ("/registry", r.resource, namespace, name) if p)
    return f"StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: {detail}"


def _spec_finalizers(obj: dict) -> list:
    """A Namespace's own finalizers (spec.finalizers): it is not deleted while any is left."""
    if obj.get("kind") != "Namespace" or obj.get("apiVersion") != "v1":
        return []
    return list((obj.get("spec") or {}).get("finalizers") or [])


def _deletion_finalizers(existing: list, policy: str | None) -> list:
    """The finalizers a delete leaves: the object's own plus the GC's for Orphan/Foreground."""
    out = list(existing)
    extra = {"Orphan": "orphan", "Foreground": "foregroundDeletion"}.get(policy or "")
    if extra and extra not in out:
        out.append(extra)
    return out


def _check_body(r, body, copy: bool = True) -> dict:
    """The body to write (a copy of it unless copy=False)."""
    if not isinstance(body, dict):
        raise errors.bad_request(f"Object '{r.kind}' is not a JSON object")
    obj = clone(body) if copy else body
    kind = obj.get("kind")
    if kind and kind != r.kind:
        if obj.get("apiVersion") not in (None, r.api_version):
            raise errors.bad_request(f"the API version in the data ({obj.get('apiVersion', '')}) does not match "
                                     f"the expected API version ({r.api_version})")
        raise errors.bad_request(f"{kind} in version \"{r.version}\" cannot be handled as a {r.kind}: "
                                 + _decode_kind_error(r, kind))
    api_version = obj.get("apiVersion")
    if api_version and api_version != r.api_version:
        raise errors.bad_request(f"the API version in the data ({api_version}) does not match the expected "
                                 f"API version ({r.api_version})")
    obj["apiVersion"], obj["kind"] = r.api_version, r.kind
    meta = obj.get("metadata")
    if meta is None:
        obj["metadata"] = {}
    elif not isinstance(meta, dict):
        raise errors.bad_request(f"{r.kind} in version \"{r.version}\" cannot be handled as a {r.kind}: "
                                 "metadata must be an object")
    return obj


def _decode_kind_error(r, kind: str) -> str:
    """Why the decoder refused another kind of the same group-version, in the Go scheme's words."""
    if r.crd:
        return f'no kind "{kind}" is registered for version "{r.api_version}"'
    internal = (r.group.split(".")[0] if r.group else "core")
    from kubelite.server.resources import builtin_resources

    if any(b.group == r.group and b.version == r.version and b.kind == kind for b in builtin_resources()):
        return f"converting ({r.version}.{kind}) to ({internal}.{r.kind}): unknown conversion"
    return (f'no kind "{kind}" is registered for version "{r.api_version}" in scheme '
            '"pkg/api/legacyscheme/scheme.go:30"')


def _ordered(obj: dict) -> dict:
    """kind, apiVersion, metadata (in ObjectMeta field order), then the rest as given."""
    out: dict[str, Any] = {}
    for key in ("kind", "apiVersion"):
        if key in obj:
            out[key] = obj[key]
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        ordered_meta = {k: meta[k] for k in _META_ORDER if k in meta}
        ordered_meta.update((k, v) for k, v in meta.items() if k not in ordered_meta)
        out["metadata"] = ordered_meta
    for key, value in obj.items():
        if key not in out:
            out[key] = value
    return out


_NAMESPACES_SEEN: dict[bytes, bool] = {}


def _terminating(namespace: bytes) -> bool:
    """Whether a stored Namespace has a deletionTimestamp: every create in a namespace reads it,
    and decoding the same stored bytes again was ~8 us of each (1,000 pods and their Events)."""
    terminating = _NAMESPACES_SEEN.get(namespace)
    if terminating is None:
        terminating = bool(json.loads(namespace).get("metadata", {}).get("deletionTimestamp"))
        if len(_NAMESPACES_SEEN) >= 64:
            _NAMESPACES_SEEN.clear()
        _NAMESPACES_SEEN[namespace] = terminating
    return terminating


def _status_alone(r, patch_type: str, patch: bytes, opts: WriteOptions, subresource: str):
    """The decoded patch when it is a trusted caller's strategic merge patch of the status
    subresource that names nothing but `status` (else None): what it makes of the rest of the
    object is never read. Not for kinds whose status update reads more of the patched object
    (a Deployment's annotations, a CSR's approval) or re-encodes it ([]byte fields)."""
    from kubelite.server import csr, gobytes, patching

    if subresource != "status" or not opts.trusted or patch_type != patching.STRATEGIC_PATCH or r.crd \
            or (r.group == "apps" and r.resource == "deployments") or csr.handles(r) or gobytes.has_bytes(r):
        return None
    doc = patching.decode(patch)
    return doc if isinstance(doc, dict) and doc.keys() == {"status"} else None


def _status_update(r, old: dict, new: dict) -> dict:
    """The status strategy's PrepareForUpdate: `old` with the status of `new`."""
    # Shallow: _defaulted below returns a deep copy, which shares nothing with `old` but its
    # managedFields (a full copy here was a twentieth of a test suite's time).
    merged = {**old, "metadata": dict(old["metadata"])}
    if "status" in new:
        merged["status"] = new["status"]
    else:
        merged.pop("status", None)
    meta = new.get("metadata", {})
    if r.group == "apps" and r.resource == "deployments" and "annotations" in meta:
        # The Deployment status strategy resets only spec and labels: the controller writes the
        # revision annotation with its status.
        merged["metadata"]["annotations"] = meta["annotations"]
    return _defaulted(merged)


def _defaulted(obj: dict) -> dict:
    """defaults.apply_defaults(obj) sharing obj's managedFields rather than copying them (half of
    a running Pod): no defaulting reads them, and a write only ever replaces them, never changes
    them in place."""
    from kubelite.server.admission import defaults

    meta = obj.get("metadata")
    managed = meta.get("managedFields") if isinstance(meta, dict) else None
    if managed is None:
        return defaults.apply_defaults(obj)
    meta["managedFields"] = None  # keeps its place among the keys
    try:
        out = defaults.apply_defaults(obj)
    finally:
        meta["managedFields"] = managed
    out["metadata"]["managedFields"] = managed
    return out


def _without_rv(obj: dict) -> dict:
    meta = dict(obj.get("metadata") or {})
    meta.pop("resourceVersion", None)
    return {**obj, "metadata": meta}


def _matches(obj: dict, opts: ListOptions) -> bool:
    if opts.label_selector is not None and not opts.label_selector(obj):
        return False
    if opts.field_selector is not None and not opts.field_selector(obj):
        return False
    return True


def _rv_set_on_create(value) -> bool:
    """Whether etcd3's store refuses a create for this resourceVersion: only a number it parses
    (ParseUint) other than 0. "", "0", "v1", "-1" and the like parse as 0 or fail, and the store
    then clears them and creates the object."""
    text = value if isinstance(value, str) else ""
    return text.isascii() and text.isdigit() and 0 < int(text) < 2 ** 64


def _parse_rv(text) -> int:
    try:
        value = int(str(text))
        if value < 0:
            raise ValueError
        return value
    except ValueError:
        raise errors.server_error(f'strconv.ParseUint: parsing "{text}": invalid syntax') from None


def _scale_paths(r) -> tuple[str, str, str]:
    sub = r.subresource("scale")
    paths = getattr(sub, "paths", None)
    if paths:
        return paths
    return ".spec.replicas", ".status.replicas", ".status.labelSelector" if r.crd else ".spec.selector"


def _dig(obj, path: str):
    node = obj
    for part in path.strip(".").split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _set(obj, path: str, value) -> None:
    """unstructured.SetNestedField: missing maps are made; a value in the way that is not a map
    (a custom resource's `spec: null`) is its plain error, a 500 in kube-apiserver too."""
    parts = path.strip(".").split(".")
    node = obj
    for i, part in enumerate(parts[:-1]):
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise errors.server_error("value cannot be set because ." + ".".join(parts[:i + 1])
                                      + " is not a map[string]interface{}")
    node[parts[-1]] = value


def _selector_string(r, obj, selector_path: str) -> str:
    selector = _dig(obj, selector_path)
    if isinstance(selector, str):
        return selector
    if not isinstance(selector, dict):
        return ""
    if r.kind == "ReplicationController":
        return ",".join(f"{k}={v}" for k, v in sorted(selector.items()))
    terms = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        op = expr.get("operator")
        key = expr.get("key")
        values = ",".join(sorted(expr.get("values") or []))
        if op == "In":
            terms.append(f"{key} in ({values})")
        elif op == "NotIn":
            terms.append(f"{key} notin ({values})")
        elif op == "Exists":
            terms.append(key)
        elif op == "DoesNotExist":
            terms.append(f"!{key}")
    return ",".join(terms)
