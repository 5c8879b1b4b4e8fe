"""ControllerRevisions of StatefulSets and DaemonSets, named and hashed as the real controllers do.

A revision's `data` is the owner's pod template as a strategic-merge patch
(`{"spec": {"template": {..., "$patch": "replace"}}}`); its hash is FNV-1 (32 bit) over that
patch's Go JSON encoding (a map: keys sorted, compact, HTML-safe escapes) followed by the
decimal collision count, written with the API's "safe" alphabet. The revision is named
`<owner>-<hash>` and labelled `controller.kubernetes.io/hash` plus the template's labels
(StatefulSet) or the selector's (DaemonSet).
"""
from __future__ import annotations

import copy
import json

from kubelite.server.controllers.podtemplate import controller_reference

HASH_LABEL = "controller.kubernetes.io/hash"
REVISION_LABEL = "controller-revision-hash"
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def revision_data(owner: dict) -> dict:
    """The patch, its keys sorted at every level: kube-controller-manager writes it as Go encodes
    a map, and `kubectl rollout undo` compares those bytes with its own encoding."""
    template = copy.deepcopy((owner.get("spec") or {}).get("template") or {})
    template["$patch"] = "replace"
    return json.loads(go_map_json({"spec": {"template": template}}))


def go_map_json(value) -> bytes:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in _GO_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text.encode()


def fnv1_32(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= byte
    return h


def safe_encode(text: str) -> str:
    return "".join(_ALPHABET[ord(c) % len(_ALPHABET)] for c in text)


def revision_hash(data: dict, collision_count: int | None) -> str:
    raw = go_map_json(data)
    if collision_count is not None:
        raw += str(collision_count).encode()
    return safe_encode(str(fnv1_32(raw)))


def new_revision(owner: dict, revision: int, collision_count: int | None, labels: dict) -> dict:
    data = revision_data(owner)
    digest = revision_hash(data, collision_count)
    meta = owner["metadata"]
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": f"{meta['name']}-{digest}", "namespace": meta.get("namespace"),
                         "labels": {**labels, HASH_LABEL: digest},
                         "annotations": dict(meta.get("annotations") or {}),
                         "ownerReferences": [controller_reference(owner)]},
            "data": data, "revision": revision}


def same_template(revision: dict, owner: dict) -> bool:
    return revision.get("data") == revision_data(owner)


def sync_revisions(controller, owner: dict, revisions: list[dict], labels: dict,
                   history_limit: int | None) -> tuple[dict, dict | None, int]:
    """Find or create the revision of the owner's current template. Returns (update revision,
    the revision matching status.currentRevision or None, collision count)."""
    status = owner.get("status") or {}
    collisions = int(status.get("collisionCount") or 0)
    revisions = sorted(revisions, key=lambda r: int(r.get("revision") or 0))
    top = max((int(r.get("revision") or 0) for r in revisions), default=0)
    update = next((r for r in reversed(revisions) if same_template(r, owner)), None)
    if update is None:
        while True:
            candidate = new_revision(owner, top + 1, collisions, labels)
            existing = next((r for r in revisions if r["metadata"]["name"] == candidate["metadata"]["name"]), None)
            if existing is None:
                update = controller.client.create("apps/controllerrevisions", candidate)
                break
            collisions += 1  # a namesake with another template: hash again with the next count
    elif int(update.get("revision") or 0) < top:
        # Going back to an older template: it becomes the newest revision again.
        update = copy.deepcopy(update)
        update["revision"] = top + 1
        update = controller.client.update("apps/controllerrevisions", update)
    current_name = status.get("currentRevision")
    current = next((r for r in revisions if r["metadata"]["name"] == current_name), None)
    _truncate(controller, revisions, {update["metadata"]["name"], current_name}, history_limit)
    return update, current, collisions


def _truncate(controller, revisions: list[dict], keep: set, limit: int | None) -> None:
    if limit is None:
        return
    old = [r for r in revisions if r["metadata"]["name"] not in keep]
    for rev in old[:max(0, len(old) - limit)]:
        meta = rev["metadata"]
        controller.client.delete("apps/controllerrevisions", meta.get("namespace"), meta["name"], uid=meta.get("uid"))
