"""The clusterrole-aggregation controller: a ClusterRole with an aggregationRule holds the rules
of every ClusterRole its selectors pick (by name order, each rule once), rewritten whenever one
of them changes — how admin, edit and view grow when a CRD's roles are labelled to join them."""
from __future__ import annotations

import copy

from kubelite.server.controllers.base import Controller

RID = "rbac.authorization.k8s.io/clusterroles"


class ClusterRoleAggregation(Controller):
    name = "clusterrole-aggregation"
    manager = "clusterrole-aggregation-controller"
    component = "clusterrole-aggregation-controller"
    watches = (RID,)

    def handle(self, rid: str, event_type: str, obj: dict, old: dict | None) -> None:
        # Any role may be picked by any selector: look at every aggregated role again.
        for role in self.cache.list(RID, where=lambda r: bool((r.get("aggregationRule") or {}).get(
                "clusterRoleSelectors"))):
            self.queue.add(role["metadata"]["name"])

    def sync(self, key: str) -> None:
        from kubelite.server.admission.validation_meta import selector_matches

        role = self.cache.get(RID, "", key)
        selectors = ((role or {}).get("aggregationRule") or {}).get("clusterRoleSelectors") or []
        if role is None or not selectors:
            return
        rules: list[dict] = []
        for selector in selectors:
            picked = self.cache.list(RID, where=lambda r: selector_matches(
                selector, (r.get("metadata") or {}).get("labels") or {}))
            for other in sorted(picked, key=lambda r: r["metadata"]["name"]):
                if other["metadata"]["name"] == key:
                    continue
                rules.extend(r for r in other.get("rules") or () if r not in rules)
        if rules == (role.get("rules") or []):
            return
        updated = copy.deepcopy(role)
        updated["rules"] = rules
        self.client.update(RID, updated)
