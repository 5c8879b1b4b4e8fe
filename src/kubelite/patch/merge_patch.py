"""RFC 7386 JSON merge patch, and the three-way merge patch kubectl apply computes for kinds
without a strategic-merge schema (custom resources).

- `apply(doc, patch)`: RFC 7386 MergePatch. A null member of the patch deletes; a patch that
  is not an object replaces the document; lists are replaced whole. Inputs are not modified.
- `create(original, modified)`: the merge patch turning `original` into `modified`: changed
  and added members, nulls for removed ones, nested objects diffed, lists replaced whole.
  A null *value* in `modified` cannot be expressed (it would mean "delete").
- `create_three_way(original, modified, current)`: apimachinery's
  jsonmergepatch.CreateThreeWayJSONMergePatch. Deletions come from original -> modified (only
  the nulls), additions and changes from current -> modified (everything but the nulls); the
  two are merged. A missing (None) document counts as {}.
- `keep_or_delete_null(obj, keep_null)`: its filter: keep only the null leaves (the deletions)
  or drop them (the additions); objects left empty disappear, an explicit {} is a value,
  lists are leaves.

`kubectl_compat=True` (apply, create) switches to the library kubectl and kube-apiserver use,
gopkg.in/evanphx/json-patch.v4; see _mergepatch_v4 for how it departs from the RFC. Its errors
carry the library's text ("Invalid JSON Patch").

Failures raise kubelite.patch.PatchError; a three-way conflict raises ConflictError. Inputs may
be nested arbitrarily deep: the RFC functions never recurse, the kubectl ones turn Python's
recursion limit into a PatchError.
"""
from __future__ import annotations

from kubelite.patch import ConflictError, PatchError
from kubelite.patch import _mergepatch_v4 as _v4
from kubelite.patch._jsonvalue import deep_copy, json_equal


def apply(doc: object, patch: object, *, kubectl_compat: bool = False) -> object:
    """Apply merge patch `patch` to `doc` and return the result (a new value).

    Both are JSON values, never JSON text: a str patch is the JSON string that replaces `doc`.
    """
    if kubectl_compat:
        return _deep_guard(_v4.apply, doc, patch)
    return _apply_rfc(doc, patch)


def _apply_rfc(doc: object, patch: object) -> object:
    if not isinstance(patch, dict):
        return deep_copy(patch)
    root = deep_copy(doc) if isinstance(doc, dict) else {}
    # Each pending pair is a target object (already a private copy) and the patch object for it.
    pending = [(root, patch)]
    while pending:
        target, changes = pending.pop()
        for key, value in changes.items():
            if value is None:
                target.pop(key, None)
            elif isinstance(value, dict):
                child = target.get(key)
                if not isinstance(child, dict):
                    child = target[key] = {}
                pending.append((child, value))
            else:
                target[key] = deep_copy(value)
    return root


def create(original: object, modified: object, *, kubectl_compat: bool = False) -> object:
    """The merge patch that turns `original` into `modified`."""
    if kubectl_compat:
        return _deep_guard(_v4.create, original, modified)
    if not isinstance(original, dict) or not isinstance(modified, dict):
        return deep_copy(modified)
    patch: dict = {}
    # (original object, modified object, patch object being filled, its parent, its key)
    pending = [(original, modified, patch, None, None)]
    filled = []
    while pending:
        old, new, out, parent, key = pending.pop()
        filled.append((out, parent, key))
        for name, value in new.items():
            if name not in old:
                out[name] = deep_copy(value)
            elif isinstance(value, dict) and isinstance(old[name], dict):
                out[name] = {}
                pending.append((old[name], value, out[name], out, name))
            elif not json_equal(old[name], value):
                out[name] = deep_copy(value)
        for name in old:
            if name not in new:
                out[name] = None
    # Nested objects with no difference are left out; children come after their parents in
    # `filled`, so walking it backwards empties children before their parents are looked at.
    for out, parent, key in reversed(filled):
        if parent is not None and not out:
            del parent[key]
    return patch


def create_three_way(original: object, modified: object, current: object, *,
                     overwrite: bool = True) -> dict:
    """apimachinery's CreateThreeWayJSONMergePatch.

    With overwrite=False, additions/changes that collide with the deletions raise
    ConflictError (apimachinery's mergepatch.HasConflicts check). For JSON objects the two
    halves touch disjoint members, so the check is a safeguard rather than a common outcome.
    """
    return _deep_guard(_three_way, original, modified, current, overwrite)


def _three_way(original, modified, current, overwrite):
    documents = {"original": original, "modified": modified, "current": current}
    for name, value in documents.items():
        if value is None:
            documents[name] = {}
        elif not isinstance(value, dict):
            raise PatchError(f"three-way merge patch: {name} must be an object, not "
                             f"{type(value).__name__}")
    additions = _keep_or_delete_null(
        _v4.create(documents["current"], documents["modified"]), keep_null=False)
    deletions = _keep_or_delete_null(
        _v4.create(documents["original"], documents["modified"]), keep_null=True)
    if not overwrite and _v4.has_conflicts(additions, deletions):
        raise ConflictError(_conflict_message(additions, deletions))
    _v4.merge_docs(deletions, additions)
    return deletions


def _conflict_message(patch: dict, changes: dict) -> str:
    import yaml

    return (f"patch:\n{yaml.safe_dump(patch, default_flow_style=False)}\n"
            "conflicts with changes made from original to current:\n"
            f"{yaml.safe_dump(changes, default_flow_style=False)}\n")


def keep_or_delete_null(obj: dict, keep_null: bool) -> dict:
    """Keep only the null leaves of a merge patch (keep_null) or only the others."""
    return _deep_guard(_keep_or_delete_null, obj, keep_null)


def _keep_or_delete_null(obj: dict, keep_null: bool) -> dict:
    filtered: dict = {}
    for key, value in obj.items():
        if value is None:
            if keep_null:
                filtered[key] = None
        elif isinstance(value, dict):
            if not value:
                # An explicit {} is a value (set the member to an empty object), not a no-op.
                if not keep_null:
                    filtered[key] = {}
                continue
            nested = _keep_or_delete_null(value, keep_null)
            if nested:
                filtered[key] = nested
        elif not keep_null:
            filtered[key] = value
    return filtered


def _deep_guard(function, *args):
    try:
        return function(*args)
    except RecursionError:
        raise PatchError("merge patch: document or patch is too deeply nested", "") from None


__all__ = ["apply", "create", "create_three_way", "keep_or_delete_null"]
