"""The check Kustomize makes after each validator: the resources are the same set as before."""
from __future__ import annotations

import json

from .errors import KustomizeError
from .resource import Resource

# a validator may mark what it checked with this label; it is not a change
VALIDATED_BY = "validated-by"


def check_unchanged(before: list[Resource], after: list[Resource]) -> None:
    after_objs = [_without_mark(res) for res in after]
    if len(before) != len(after):
        raise _changed(f"lists have different number of entries: {len(before)} doesn't equal {len(after)}")
    for res in before:
        rid = res.cur_id()
        others = [obj for other, obj in zip(after, after_objs) if other.cur_id().equals(rid)]
        if not others:
            raise _changed(f"id in self missing from other; id: {rid}")
        if len(others) > 1:
            raise _changed(f"id in self matches {len(others)} in other; id: {rid}")
        if others[0] != res.obj:
            # Kustomize also prints both nodes' Go structures (memory addresses): left out
            raise _changed(f"nodes unequal: \n -- {_json(res.obj)},\n -- {_json(others[0])}\n")


def _without_mark(res: Resource) -> dict:
    labels = res.labels()
    if VALIDATED_BY not in labels:
        return res.obj
    obj = json.loads(json.dumps(res.obj))
    del obj["metadata"]["labels"][VALIDATED_BY]
    return obj


def _json(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _changed(detail: str) -> KustomizeError:
    return KustomizeError(f"validator shouldn't modify the resource map: {detail}")
