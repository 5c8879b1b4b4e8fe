"""Server-side apply from the client, as `kubectl apply --server-side` does it.

Each object is sent whole as an apply patch (the server merges it and tracks ownership).
After a successful apply with kubectl's own field manager, two follow-ups keep a
client-side apply history in step: the last-applied annotation is re-applied under the
manager `kubectl-last-applied`, and the `kubectl-client-side-apply` Update entries that own
it are folded into the applier's entry (kubectl's csaupgrade), after which the object is
applied once more so ownership settles on exactly what was applied.
"""
from __future__ import annotations

import json

from kubelite.apply.engine import Applier, Outcome
from kubelite.apply.objects import Item

SERVER_SIDE_MANAGER = "kubectl"
LAST_APPLIED_MANAGER = "kubectl-last-applied"
CLIENT_SIDE_MANAGER = "kubectl-client-side-apply"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
APPLIED = "serverside-applied"
MAX_MIGRATION_RETRIES = 5

CONFLICT_ADVICE = """
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts"""


class ApplyConflict(Exception):
    """A 409 from the server's field manager, with kubectl's advice appended."""


class ServerSideApplier(Applier):
    """An Applier whose writes are apply patches (`force_conflicts`, `subresource` as kubectl's flags)."""

    def __init__(self, session, options, *, force_conflicts: bool = False, subresource: str = "", **kwargs):
        super().__init__(session, options, **kwargs)
        self.force_conflicts = force_conflicts
        self.subresource = subresource or None

    def _guarded(self, item: Item, result, work):
        # a conflict fails this object only: kubectl applies the others and reports every error
        try:
            return super()._guarded(item, result, work)
        except ApplyConflict as err:
            return Outcome(item, error=err)

    def _warm(self, items, lists) -> None:
        # Neither the live objects nor the patch schemas are read before an apply patch: the LISTs
        # and schema loads client-side apply starts early would delay the first write for nothing.
        return

    def _decide(self, item: Item):
        # nothing to read or plan first: the server merges
        if self.options.dry_run == "client":
            return Outcome(item, APPLIED, item.obj)
        return lambda: self._apply(item)

    def _apply(self, item: Item) -> Outcome:
        if self.options.dry_run == "client":
            return Outcome(item, APPLIED, item.obj)
        obj = self._send(item)
        # The follow-ups never fail the apply: kubectl warns and retries them next time.
        try:
            obj = self._save_last_applied(item, obj)
        except Exception as err:  # noqa: BLE001 - reported as kubectl reports it
            self.warn(MIGRATION_WARNINGS["last-applied"] + _reason(err))
            return Outcome(item, APPLIED, obj)
        try:
            migrated = self._migrate_client_side(item, obj)
        except Exception as err:  # noqa: BLE001
            self.warn(MIGRATION_WARNINGS["patch"] + _reason(err))
            return Outcome(item, APPLIED, obj)
        if migrated is not None:
            try:
                obj = self._send(item)  # dropped fields can now finally go
            except Exception as err:  # noqa: BLE001
                self.warn(MIGRATION_WARNINGS["reapply"] + _reason(err))
        return Outcome(item, APPLIED, obj)

    def _params(self, manager: str | None = None):
        from kubelite.client.dynamic import WriteParams

        return WriteParams(dry_run=self.options.dry_run == "server",
                           field_manager=manager or self.options.field_manager,
                           field_validation=self.options.validation)

    def _send(self, item: Item) -> dict:
        from kubelite.client.errors import ApiError

        body = json.dumps(item.obj, sort_keys=True, separators=(",", ":"))
        try:
            return self.session.client.patch(item.resource, item.namespace or None, item.name, body, "apply",
                                             self._params(), subresource=self.subresource,
                                             force=self.force_conflicts)
        except ApiError as err:
            if err.code == 409 and err.reason == "Conflict" and "Apply failed" in err.message:
                raise ApplyConflict(err.message + CONFLICT_ADVICE) from None
            raise  # kubectl reports the server's answer as it is (no source)

    def _save_last_applied(self, item: Item, obj: dict) -> dict:
        """With kubectl's own manager, a client-side apply annotation nobody applies yet is applied
        as it stands by `kubectl-last-applied`, so later applies do not drop it."""
        if self.options.field_manager != SERVER_SIDE_MANAGER:
            return obj
        meta = obj.get("metadata") or {}
        annotation = (meta.get("annotations") or {}).get(LAST_APPLIED)
        if annotation is None or _owners_of_last_applied(meta, "Apply"):
            return obj
        body_meta = {"annotations": {LAST_APPLIED: annotation}, "name": item.name}
        if item.namespace:
            body_meta["namespace"] = item.namespace
        body = {"apiVersion": item.obj.get("apiVersion"), "kind": item.obj.get("kind"), "metadata": body_meta}
        return self.session.client.patch(item.resource, item.namespace or None, item.name,
                                         json.dumps(body, sort_keys=True, separators=(",", ":")), "apply",
                                         self._params(LAST_APPLIED_MANAGER))

    def _migrate_client_side(self, item: Item, obj: dict) -> dict | None:
        """Fold the client-side apply managers' fields into ours (kubectl's csaupgrade); the
        object after it, or None when there was nothing to migrate."""
        from kubelite.client.errors import ApiError

        last_error = None
        for _ in range(MAX_MIGRATION_RETRIES):
            patch = upgrade_patch(obj, self.options.field_manager)
            if patch is None:
                return None
            try:
                return self.session.client.patch(item.resource, item.namespace or None, item.name,
                                                 json.dumps(patch), "json", self._params())
            except ApiError as err:
                if err.code != 409:
                    raise
                last_error = err
                obj = self.session.client.get(item.resource, item.name, item.namespace or None)
        raise last_error


MIGRATION_WARNINGS = {
    "last-applied": "Warning: failed to migrate kubectl.kubernetes.io/last-applied-configuration for Server-Side "
                    "Apply. This is non-fatal and will be retried next time you apply. Error: ",
    "patch": "Warning: server rejected managed fields migration to Server-Side Apply. This is non-fatal and will "
             "be retried next time you apply. Error: ",
    "reapply": "Warning: failed to re-apply configuration after performing Server-Side Apply migration. This is "
               "non-fatal and will be retried next time you apply. Error: ",
}


def _reason(err: Exception) -> str:
    from kubelite.client.errors import ApiError

    return err.message if isinstance(err, ApiError) else str(err)


def _owners_of_last_applied(meta: dict, operation: str) -> list:
    return [e for e in meta.get("managedFields") or []
            if e.get("operation") == operation and _owns_last_applied(e)]


def upgrade_patch(obj: dict, manager: str) -> list | None:
    """The JSON patch moving client-side apply ownership to `manager`'s Apply entry (or None)."""
    meta = obj.get("metadata") or {}
    entries = meta.get("managedFields") or []
    csa = _owners_of_last_applied(meta, "Update")
    if not csa:
        return None
    from kubelite.server.fieldmanager import paths as fp

    target = next((e for e in entries if e.get("manager") == manager and e.get("operation") == "Apply"
                   and not e.get("subresource")), None)
    fields = set(fp.decode((target or {}).get("fieldsV1") or {}))
    for e in csa:
        fields |= fp.decode(e.get("fieldsV1") or {})
    merged = dict(target) if target else {"manager": manager, "operation": "Apply",
                                          "apiVersion": csa[0].get("apiVersion"), "fieldsType": "FieldsV1"}
    merged["fieldsV1"] = fp.encode(fields)
    out = []
    for e in entries:
        if e in csa:
            continue
        out.append(merged if e is target else e)
    if target is None:
        out.insert(0, merged)
    return [{"op": "replace", "path": "/metadata/managedFields", "value": out},
            {"op": "replace", "path": "/metadata/resourceVersion", "value": meta.get("resourceVersion")}]


def _owns_last_applied(entry: dict) -> bool:
    annotations = ((entry.get("fieldsV1") or {}).get("f:metadata") or {}).get("f:annotations") or {}
    return f"f:{LAST_APPLIED}" in annotations


def dry_run_apply(applier, item: Item, force: bool) -> dict:
    """The object as a server-side apply of `item` would leave it (kubectl diff --server-side)."""
    from kubelite.client.dynamic import WriteParams

    params = WriteParams(dry_run=True, field_manager=applier.options.field_manager)
    body = json.dumps(item.obj, sort_keys=True, separators=(",", ":"))
    return applier.session.client.patch(item.resource, item.namespace or None, item.name, body, "apply", params,
                                        force=force)
