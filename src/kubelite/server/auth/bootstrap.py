"""The bootstrap RBAC policy kube-apiserver creates at start (the part kubelite's users meet).

Created when missing, never overwritten: an administrator's edits to them stay (kube-apiserver
reconciles only roles annotated autoupdate=true by adding what is missing; kubelite only adds
missing objects).
"""
from __future__ import annotations

from kubelite.server.errors import StatusError

GROUP = "rbac.authorization.k8s.io"
API_VERSION = f"{GROUP}/v1"
READ = ["get", "list", "watch"]
WRITE = ["create", "delete", "deletecollection", "patch", "update"]
ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
_AGG = "rbac.authorization.k8s.io/aggregate-to-"


def _rule(groups, resources, verbs) -> dict:
    return {"verbs": list(verbs), "apiGroups": list(groups), "resources": list(resources)}


def _urls(urls, verbs=("get",)) -> dict:
    return {"verbs": list(verbs), "nonResourceURLs": list(urls)}


def _meta(name: str, labels: dict | None = None) -> dict:
    return {"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults", **(labels or {})},
            "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}}


def _role(name: str, rules=None, labels=None, aggregate_from: str | None = None) -> dict:
    role = {"apiVersion": API_VERSION, "kind": "ClusterRole", "metadata": _meta(name, labels)}
    if aggregate_from:
        role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {_AGG + aggregate_from: "true"}}]}
        role["rules"] = []
    else:
        role["rules"] = rules or []
    return role


def _binding(name: str, role: str, groups) -> dict:
    return {"apiVersion": API_VERSION, "kind": "ClusterRoleBinding", "metadata": _meta(name),
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": GROUP, "kind": "Group", "name": g} for g in groups]}


_VIEW = [
    _rule([""], ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
                 "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
                 "services/status"], READ),
    _rule([""], ["bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
                 "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"], READ),
    _rule([""], ["namespaces"], READ),
    _rule(["discovery.k8s.io"], ["endpointslices"], READ),
    _rule(["apps"], ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                     "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets",
                     "statefulsets/scale", "statefulsets/status"], READ),
    _rule(["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], READ),
    _rule(["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], READ),
    _rule(["extensions"], ["daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                           "deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets",
                           "replicasets/scale", "replicasets/status", "replicationcontrollers/scale"], READ),
    _rule(["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"], READ),
    _rule(["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"], READ),
]
_EDIT = [
    _rule([""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"], READ),
    _rule([""], ["serviceaccounts"], ["impersonate"]),
    _rule([""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"], WRITE),
    _rule([""], ["pods/eviction"], ["create"]),
    _rule([""], ["configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                 "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"], WRITE),
    _rule([""], ["serviceaccounts/token"], ["create"]),
    _rule(["apps"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets",
                     "replicasets/scale", "statefulsets", "statefulsets/scale"], WRITE),
    _rule(["autoscaling"], ["horizontalpodautoscalers"], WRITE),
    _rule(["batch"], ["cronjobs", "jobs"], WRITE),
    _rule(["extensions"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses",
                           "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"],
          WRITE),
    _rule(["policy"], ["poddisruptionbudgets"], WRITE),
    _rule(["networking.k8s.io"], ["ingresses", "networkpolicies"], WRITE),
    _rule(["coordination.k8s.io"], ["leases"], ALL_VERBS),
]
_ADMIN = [
    _rule(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"]),
    _rule([GROUP], ["rolebindings", "roles"], ALL_VERBS),
]
_DISCOVERY_URLS = ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
                   "/readyz", "/version", "/version/"]
_PUBLIC_URLS = ["/healthz", "/livez", "/readyz", "/version", "/version/"]


def cluster_roles() -> list[dict]:
    return [
        _role("cluster-admin", [_rule(["*"], ["*"], ["*"]), _urls(["*"], ["*"])]),
        _role("admin", aggregate_from="admin"),
        _role("edit", labels={_AGG + "admin": "true"}, aggregate_from="edit"),
        _role("view", labels={_AGG + "edit": "true"}, aggregate_from="view"),
        _role("system:aggregate-to-admin", _ADMIN, labels={_AGG + "admin": "true"}),
        _role("system:aggregate-to-edit", _EDIT, labels={_AGG + "edit": "true"}),
        _role("system:aggregate-to-view", _VIEW, labels={_AGG + "view": "true"}),
        _role("system:discovery", [_urls(_DISCOVERY_URLS)]),
        _role("system:basic-user", [
            _rule(["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], ["create"]),
            _rule(["authentication.k8s.io"], ["selfsubjectreviews"], ["create"])]),
        _role("system:public-info-viewer", [_urls(_PUBLIC_URLS)]),
    ]


def cluster_role_bindings() -> list[dict]:
    return [
        _binding("cluster-admin", "cluster-admin", ["system:masters"]),
        _binding("system:discovery", "system:discovery", ["system:authenticated"]),
        _binding("system:basic-user", "system:basic-user", ["system:authenticated"]),
        _binding("system:public-info-viewer", "system:public-info-viewer",
                 ["system:authenticated", "system:unauthenticated"]),
    ]


def ensure_policy(api) -> None:
    """Create the bootstrap roles and bindings that are missing."""
    from kubelite.server.core import WriteOptions

    for resource, objects in (("clusterroles", cluster_roles()), ("clusterrolebindings", cluster_role_bindings())):
        r = api.registry.lookup(GROUP, "v1", resource)
        for obj in objects:
            if api.store.get(api._key(r, "", obj["metadata"]["name"])) is not None:
                continue
            try:
                api.create(r, "", obj, WriteOptions(field_manager="kube-apiserver"))
            except StatusError as err:
                if err.code != 409:  # another server created it first
                    raise
