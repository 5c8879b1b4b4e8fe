"""sortOptions: legacy (by kind priority, then id) or fifo (as accumulated)."""
from __future__ import annotations

import functools

from .errors import KustomizeError
from .resmap import ResMap

DEFAULT_FIRST = ("Namespace ResourceQuota StorageClass CustomResourceDefinition ServiceAccount PodSecurityPolicy Role "
                 "ClusterRole RoleBinding ClusterRoleBinding ConfigMap Secret Endpoints Service LimitRange PriorityClass "
                 "PersistentVolume PersistentVolumeClaim Deployment StatefulSet CronJob PodDisruptionBudget").split()
DEFAULT_LAST = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")


def _gvk_string(gvk) -> str:
    return "_".join((gvk.group or "~G", gvk.version or "~V", gvk.kind or "~K"))


def sort_resources(resmap: ResMap, options: dict) -> None:
    if not isinstance(options, dict):
        raise KustomizeError("invalid sortOptions")
    order = options.get("order")
    legacy = options.get("legacySortOptions")
    if order not in ("fifo", "legacy"):
        raise KustomizeError("the field 'sortOptions.order' must be one of [fifo, legacy]")
    if order == "fifo":
        if legacy is not None:
            raise KustomizeError("the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'")
        return
    if legacy is None:
        first, last = DEFAULT_FIRST, DEFAULT_LAST
    else:
        first, last = legacy.get("orderFirst") or [], legacy.get("orderLast") or []
    rank = {}
    for i, kind in enumerate(first):
        rank[kind] = -len(first) + i
    for i, kind in enumerate(last):
        rank[kind] = 1 + i

    def key_id(res):
        rid = res.cur_id()
        return "|".join((str(rid.gvk), rid.namespace or "~X", rid.name or "~N"))

    def compare(a, b) -> int:
        ga, gb = a.gvk, b.gvk
        if ga != gb:
            ia, ib = rank.get(ga.kind, 0), rank.get(gb.kind, 0)
            if ia != ib:
                return -1 if ia < ib else 1
            sa, sb = _gvk_string(ga), _gvk_string(gb)
            if ga.kind == "Namespace" and gb.kind == "Namespace" and (not ga.group or not gb.group):
                return -1 if sa > sb else (1 if sa < sb else 0)
            return -1 if sa < sb else (1 if sa > sb else 0)
        ka, kb = key_id(a), key_id(b)
        return -1 if ka < kb else (1 if ka > kb else 0)

    resmap.resources.sort(key=functools.cmp_to_key(compare))
