"""``metadata.generation`` as kube-apiserver 1.32 manages it.

* Kinds that manage generation (workloads, Ingress, NetworkPolicy, PDB,
  EndpointSlice, CRDs, custom resources...) start at 1 whatever the client
  sent, and bump when their desired state changes — for Deployments that
  includes ``metadata.annotations`` but not labels.
* Other kinds (ConfigMap, Pod, Service...) store a client-supplied generation
  on create as-is; an update never changes it.
* Deleting an object held by finalizers bumps a positive generation.
"""

from __future__ import annotations

from kubelite.server.admission.defaults import group_kind

__all__ = ["manages_generation", "initial_generation", "next_generation", "deletion_generation"]

_BUILTIN_GROUPS = frozenset(
    {
        "", "apps", "batch", "autoscaling", "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
        "storage.k8s.io", "scheduling.k8s.io", "coordination.k8s.io", "discovery.k8s.io",
        "events.k8s.io", "apiextensions.k8s.io", "admissionregistration.k8s.io", "certificates.k8s.io",
        "node.k8s.io", "flowcontrol.apiserver.k8s.io", "apiregistration.k8s.io",
        "authentication.k8s.io", "authorization.k8s.io", "resource.k8s.io", "storagemigration.k8s.io",
        "internal.apiserver.k8s.io",
    }
)

# What a change must touch to bump generation, per managed built-in kind.
_SPEC = ("spec",)
_MANAGED: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "Deployment"): ("spec", "metadata.annotations"),
    ("apps", "ReplicaSet"): _SPEC,
    ("apps", "StatefulSet"): _SPEC,
    ("apps", "DaemonSet"): _SPEC,
    ("", "ReplicationController"): _SPEC,
    ("", "PodTemplate"): ("template",),
    ("batch", "Job"): _SPEC,
    ("batch", "CronJob"): _SPEC,
    ("networking.k8s.io", "Ingress"): _SPEC,
    ("networking.k8s.io", "IngressClass"): _SPEC,
    ("networking.k8s.io", "NetworkPolicy"): _SPEC,
    ("policy", "PodDisruptionBudget"): _SPEC,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _SPEC,
    ("discovery.k8s.io", "EndpointSlice"): ("addressType", "endpoints", "ports"),
    ("scheduling.k8s.io", "PriorityClass"): ("value", "globalDefault", "description", "preemptionPolicy"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): ("webhooks",),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): ("webhooks",),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): _SPEC,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): _SPEC,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): _SPEC,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): _SPEC,
}


def _is_custom(group: str) -> bool:
    return group not in _BUILTIN_GROUPS


def manages_generation(obj: dict) -> bool:
    """Whether the server owns ``metadata.generation`` for this object's kind."""
    group, kind = group_kind(obj)
    return _is_custom(group) or (group, kind) in _MANAGED


def initial_generation(obj: dict) -> int | None:
    """Generation to store on create: 1 when managed, else the client's value."""
    if manages_generation(obj):
        return 1
    return (obj.get("metadata") or {}).get("generation")


def _at(obj: dict, dotted: str):
    value = obj
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _custom_changed(old: dict, new: dict, status_subresource: bool) -> bool:
    ignored = {"metadata", "apiVersion", "kind"}
    if status_subresource:
        ignored.add("status")
    keys = (set(old) | set(new)) - ignored
    return any(old.get(k) != new.get(k) for k in keys)


def next_generation(old: dict, new: dict, *, status_subresource: bool = True) -> int | None:
    """Generation to store when ``old`` is replaced by ``new`` (main resource).

    The client's ``metadata.generation`` in ``new`` is ignored.
    ``status_subresource`` matters for custom resources only: without a
    status subresource a status change bumps generation too.
    """
    current = (old.get("metadata") or {}).get("generation")
    group, kind = group_kind(new)
    if _is_custom(group):
        changed = _custom_changed(old, new, status_subresource)
    elif (group, kind) in _MANAGED:
        changed = any(_at(old, path) != _at(new, path) for path in _MANAGED[(group, kind)])
    else:
        return current
    if changed:
        return (current or 0) + 1
    return current


def deletion_generation(obj: dict) -> int | None:
    """Generation after a DELETE that leaves the object behind (finalizers)."""
    current = (obj.get("metadata") or {}).get("generation")
    return current + 1 if isinstance(current, int) and current > 0 else current
