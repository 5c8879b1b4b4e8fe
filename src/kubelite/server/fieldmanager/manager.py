"""The field manager: managedFields for every write, and server-side apply.

Each write is recorded as kube-apiserver 1.32 records it:
  * an Update (create, update, patch) gives the fields it added or changed to the writer's
    Update entry and takes them from the entries that owned them; a write that changes nothing
    leaves every entry (and its time) alone; on an object without managedFields only a create
    is recorded;
  * an Apply merges the applied configuration into the live object by the schema, gives the
    applier exactly the fields it applied, removes the fields it applied last time and no one
    owns any more, and refuses (409) to change a value another manager owns unless forced.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
import functools
import json

from kubelite.server import errors
from kubelite.server.fieldmanager import managers as mf
from kubelite.server.fieldmanager import paths as fp
from kubelite.server.fieldmanager import typed

BEFORE_FIRST_APPLY = "before-first-apply"
DEFAULT_MANAGER = "kube-apiserver"
# Fields no manager owns (the object's identity and bookkeeping).
_STRIPPED = frozenset({
    ("f:apiVersion",), ("f:kind",), ("f:metadata",),
    *((("f:metadata", "f:" + name)) for name in (
        "name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
        "managedFields", "resourceVersion")),
})


# _STRIPPED by its first element: (the first element's own path stripped, the second elements
# stripped under it).
_STRIPPED_UNDER = {first: ((first,) in _STRIPPED, tuple(p[1] for p in _STRIPPED if len(p) == 2 and p[0] == first))
                   for first in {p[0] for p in _STRIPPED}}
assert all(len(p) <= 2 for p in _STRIPPED)
_STATUS = ("f:status",)


def _unmark_stripped(tree: dict) -> None:
    """The _STRIPPED paths no longer members of a tree (changed_tree's), the nodes they leave
    empty taken out."""
    for first, (itself, under) in _STRIPPED_UNDER.items():
        node = tree.get(first)
        if node is None:
            continue
        for second in under:
            child = node.get(second)
            if child is not None:
                child.pop(None, None)
                if not child:
                    del node[second]
        if itself:
            node.pop(None, None)
        if not node:
            del tree[first]

# Fields a registry strategy sets after kube-apiserver's field manager ran: no one owns them.
_SET_AFTER_FIELD_MANAGEMENT = {("", "Namespace"): ("f:spec", "f:finalizers")}


def manager_from_user_agent(user_agent: str) -> str:
    """kube-apiserver's default manager: the User-Agent up to its first "/"."""
    return (user_agent or "").split("/", 1)[0]


class FieldManager:
    def __init__(self, clock):
        self.clock = clock
        self._schemas: dict = {}

    # -- schema and ignored fields ---------------------------------------------------------

    def schema(self, r):
        key = (r.group, r.version, r.kind, id(r.schema) if r.crd else 0)
        if key not in self._schemas:
            from kubelite.server.pruning import schema_for

            self._schemas[key] = schema_for(r)
        return self._schemas[key]

    @staticmethod
    def _kept(r, subresource: str):
        """The filter on paths a write in this (sub)resource may own."""
        late = _SET_AFTER_FIELD_MANAGEMENT.get((r.group, r.kind))
        if late:
            return lambda p: p not in _STRIPPED and p[:len(late)] != late and not (
                r.subresource("status") is not None and p and p[0] == "f:status")
        if subresource in ("status", "approval"):  # a CSR's approval writes only status.conditions
            return lambda p: p not in _STRIPPED and bool(p) and p[0] == "f:status"
        if r.subresource("status") is not None:
            return lambda p: p not in _STRIPPED and not (p and p[0] == "f:status")
        return lambda p: p not in _STRIPPED

    def _keep(self, r, subresource: str, paths: set) -> set:
        """The paths `_kept` lets through, those of an ordinary write taken out as sets in C."""
        if subresource or (r.group, r.kind) in _SET_AFTER_FIELD_MANAGEMENT:
            kept = self._kept(r, subresource)
            return {p for p in paths if kept(p)}
        paths = paths - _STRIPPED
        if r.subresource("status") is not None:
            return {p for p in paths if p[:1] != _STATUS}
        return paths

    # -- Update --------------------------------------------------------------------------------

    def record_update(self, r, old: dict | None, new: dict, manager: str, subresource: str = "") -> dict:
        """`new` with managedFields as an Update by `manager` from `old` (None: a create) makes them."""
        creating = old is None
        meta = new.setdefault("metadata", {})
        sent = meta.get("managedFields")
        old_meta = (old or {}).get("metadata") or {}
        if subresource:
            entries = mf.decode(old_meta.get("managedFields")) or []
        elif mf.is_reset(sent):
            entries, sent = [], "reset"
        else:
            entries = mf.decode(sent) or []
            if not entries:
                entries = mf.decode(old_meta.get("managedFields")) or []
        if creating and not entries and not subresource and sent != "reset" \
                and (r.group, r.kind) not in _SET_AFTER_FIELD_MANAGEMENT:
            created = self._created_entry(r, new, manager or DEFAULT_MANAGER)
            if created is not None:
                _set_managed(meta, created)
                return new
        if sent != "reset" and (entries or creating):
            try:
                entries = self._update_entries(r, old if old is not None else zero_object(r), new, entries,
                                               manager or DEFAULT_MANAGER, subresource)
            except typed.ValueMismatch as err:
                # kube-apiserver's UpdateNoErrors: an object the typed comparison cannot read
                # (validation refuses it next) loses its managedFields rather than failing here
                import logging

                logging.getLogger("kubelite.server").error(
                    "[SHOULD NOT HAPPEN] failed to update managedFields: %s", err)
                entries = []
        _set_managed(meta, mf.encode(entries))
        return new

    def _created_entry(self, r, new: dict, manager: str) -> list | None:
        """The managedFields of a create that brings none (what _update_entries from the zero
        object makes of it, encoded): the changed fields nested as they are found, the few no
        one owns taken out of the tree. None when the object does not fit the schema (the
        general way then decides what that means)."""
        try:
            tree = typed.changed_tree(zero_object(r), _clean(new), self.schema(r))
        except typed.ValueMismatch:
            return None
        _unmark_stripped(tree)
        if r.subresource("status") is not None:
            tree.pop(_STATUS[0], None)
        if not tree:
            return []
        return [{"manager": manager, "operation": mf.UPDATE, "apiVersion": r.api_version,
                 "time": self.clock.rfc3339(), "fieldsType": "FieldsV1", "fieldsV1": fp.ordered_tree(tree)}]

    def _update_entries(self, r, old: dict, new: dict, entries: list, manager: str, subresource: str) -> list:
        comparison = typed.compare(_clean(old), _clean(new), self.schema(r))
        changed = self._keep(r, subresource, comparison.changed)
        if not changed:
            if comparison.removed:
                for e in entries:
                    e.fields -= comparison.removed
                return [e for e in entries if e.fields]
            return entries
        for e in entries:
            e.fields -= changed
            e.fields -= comparison.removed
        ident = (manager, mf.UPDATE, r.api_version, subresource)
        entry = mf.find(entries, ident)
        if entry is None:
            entry = mf.Entry(manager, mf.UPDATE, r.api_version, None, subresource)
            entries.append(entry)
        entry.fields |= changed
        # Writes through /scale are mapped back to the parent without a time, as kube-apiserver's.
        entry.time = None if subresource == "scale" else self.clock.rfc3339()
        return mf.cap([e for e in entries if e.fields])

    # -- Apply ---------------------------------------------------------------------------------

    def apply(self, r, live: dict | None, config: dict, manager: str, force: bool,
              subresource: str = "") -> tuple[dict, bool]:
        """(the object to store, changed): `config` applied by `manager` over `live` (None: create).

        The object still goes through defaulting and validation; its managedFields are final.
        """
        schema = self.schema(r)
        kept = self._kept(r, subresource)
        live_clean = _clean(live or {})
        entries = mf.decode(((live or {}).get("metadata") or {}).get("managedFields")) or []
        if live is not None and not entries:
            entries = self._before_first_apply(r, live_clean, subresource)
        try:
            applied = {p for p in typed.field_set(config, schema, check_types=True) if kept(p)}
        except typed.ValueMismatch as err:
            raise _typed_patch_error(r, config, err) from None
        ident = (manager, mf.APPLY, "", subresource)
        last = mf.find(entries, ident)
        others = [e for e in entries if e.ident != ident]
        merged = typed.merge(live_clean, _clean(config), schema)
        if last is not None and last.fields:
            merged = self._prune(merged, schema, last.fields, applied, others)
        if _has_null(config):
            merged = typed.settle_nulls(merged, schema, custom=bool(r.crd))
        if others:  # what the apply changes matters only to the fields other managers own
            comparison = typed.compare(live_clean, merged, schema)
            changed = {p for p in comparison.changed if kept(p)}
            conflicts = [(e, p) for e in others for p in fp.iterate(e.fields & changed)]
            if conflicts and not force:
                conflicts = self._not_allowed_by_last_applied(r, schema, live_clean, manager, conflicts)
                if conflicts:
                    raise conflict_error(conflicts)
            for e in others:
                e.fields -= changed
                e.fields -= comparison.removed
        entry = mf.Entry(manager, mf.APPLY, r.api_version, last.time if last else None, subresource, applied)
        object_changed = merged != live_clean
        if object_changed:
            entry.time = self.clock.rfc3339()
        result = clone(merged) if live is None else merged
        if manager == "kubectl" and _last_applied(live_clean) is not None:
            # kubectl's server-side apply keeps a client-side apply annotation in step (after the
            # ownership bookkeeping, so the entry's time does not follow it).
            result = _with_last_applied(result, _build_last_applied(config))
            object_changed = result != live_clean
        meta = result.setdefault("metadata", {})
        _set_managed(meta, mf.encode([e for e in others if e.fields] + [entry]))
        return result, object_changed

    def _not_allowed_by_last_applied(self, r, schema, live: dict, manager: str, conflicts: list) -> list:
        """kubectl upgrading from client-side apply may take the fields its last-applied
        annotation names (the conflicts that remain are the others)."""
        text = _last_applied(live)
        if manager != "kubectl" or text is None:
            return conflicts
        try:
            allowed = typed.field_set(json.loads(text), schema)
        except (ValueError, typed.ValueMismatch, AttributeError):
            return conflicts
        return [(e, p) for e, p in conflicts if p not in allowed]

    def _before_first_apply(self, r, live: dict, subresource: str) -> list:
        """An object nobody manages: everything in it is owned by a phantom Update manager first."""
        kept = self._kept(r, subresource)
        comparison = typed.compare(zero_object(r), live, self.schema(r))
        fields = {p for p in comparison.changed if kept(p)}
        if not fields:
            return []
        return [mf.Entry(BEFORE_FIRST_APPLY, mf.UPDATE, r.api_version, self.clock.rfc3339(), subresource, fields)]

    @staticmethod
    def _prune(merged: dict, schema, last: set, applied: set, others: list) -> dict:
        """Remove what the applier applied last time, no longer applies, and no one else owns."""
        owned = set(applied)
        for e in others:
            owned |= e.fields
        owned = fp.with_ancestors(owned)
        doomed = {p for p in last if p not in owned}
        if not doomed:
            return merged
        pruned = typed.remove(merged, doomed, schema)
        # Structs and maps the applier alone filled and that are now empty go too.
        for path in sorted(fp.with_ancestors(doomed) - owned - doomed, key=len, reverse=True):
            if path[-1].startswith("f:") and _is_empty_at(pruned, path):
                pruned = typed.remove(pruned, {path}, schema)
        return pruned


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _last_applied(obj: dict):
    annotations = (obj.get("metadata") or {}).get("annotations")
    value = annotations.get(LAST_APPLIED) if isinstance(annotations, dict) else None
    return value if isinstance(value, str) else None


def _with_last_applied(obj: dict, text: str) -> dict:
    """A copy of `obj` (down to its annotations) with the last-applied annotation set to `text`."""
    meta = dict(obj.get("metadata") or {})
    meta["annotations"] = {**(meta.get("annotations") or {}), LAST_APPLIED: text}
    return {**obj, "metadata": meta}


def _build_last_applied(config: dict) -> str:
    from kubelite.server.fieldmanager.paths import go_json

    out = clone(config)
    annotations = (out.get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
        if not annotations:
            del out["metadata"]["annotations"]
    return go_json(_sorted(out)) + "\n"


def _sorted(value):
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _has_null(value) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_has_null(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_null(v) for v in value)
    return False


def _is_empty_at(obj, path: tuple) -> bool:
    node = obj
    for pe in path:
        if not pe.startswith("f:") or not isinstance(node, dict) or pe[2:] not in node:
            return False
        node = node[pe[2:]]
    return isinstance(node, (dict, list)) and not node


def zero_object(r) -> dict:
    """The object an Update from nothing starts from: a built-in kind's zero Go struct as JSON
    (its value structs present and empty), or nothing for a custom resource. Read-only."""
    if r.crd:
        return {}
    return _zero_object(r.api_version, r.kind)


@functools.lru_cache(maxsize=256)
def _zero_object(api_version: str, kind: str) -> dict:
    from kubelite.schema.typed import roundtrip

    try:
        return roundtrip({"apiVersion": api_version, "kind": kind}, api_version, kind)
    except Exception:
        return {}


def _clean(obj: dict) -> dict:
    """The object without managedFields (never part of any field set)."""
    out = dict(obj)
    meta = out.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        meta = dict(meta)
        del meta["managedFields"]
        out["metadata"] = meta
    return out


def _set_managed(meta: dict, encoded: list) -> None:
    if encoded:
        meta["managedFields"] = encoded
    else:
        meta.pop("managedFields", None)


def conflict_error(conflicts: list) -> errors.StatusError:
    causes = [{"reason": "FieldManagerConflict", "message": f"conflict with {e.label()}",
               "field": fp.to_string(p)} for e, p in conflicts]
    if len(conflicts) == 1:
        e, p = conflicts[0]
        message = f"Apply failed with 1 conflict: conflict with {e.label()}: {fp.to_string(p)}"
    else:
        groups: dict = {}
        for e, p in conflicts:
            groups.setdefault(e.sort_ident(), (e, []))[1].append(p)
        lines = []
        for ident in sorted(groups):
            e, ps = groups[ident]
            lines.append(f"conflicts with {e.label()}:")
            lines.extend(f"- {fp.to_string(p)}" for p in ps)
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
        causes = [c for ident in sorted(groups) for c in causes
                  if c["message"] == f"conflict with {groups[ident][0].label()}"]
    return errors.StatusError(409, "Conflict", message, causes=causes)


def _typed_patch_error(r, config: dict, err: Exception) -> errors.StatusError:
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    group_version = f"{r.group}/{r.version}" if r.group else f"/{r.version}"
    return errors.server_error(f"failed to create typed patch object ({namespace}/{name}; "
                               f"{group_version}, Kind={r.kind}): {err}")
