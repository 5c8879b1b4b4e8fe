"""Required inter-pod affinity and anti-affinity, as kube-scheduler's InterPodAffinity filter sees them.

A term selects pods (labelSelector) in some namespaces (its `namespaces`, all of them with an empty
`namespaceSelector`, else the pod's own) and a topology (the nodes sharing the value of the node
label `topologyKey`). A pod with required affinity needs a selected pod in the node's topology (or,
when no pod anywhere is selected, to be selected by its own term); one with required anti-affinity
needs none there; and no pod already placed may have an anti-affinity term selecting the new pod
within its topology.
"""
from __future__ import annotations

AFFINITY = ("node(s) didn't match pod affinity rules", False)
ANTI_AFFINITY = ("node(s) didn't match pod anti-affinity rules", True)
EXISTING_ANTI_AFFINITY = ("node(s) didn't satisfy existing pods anti-affinity rules", True)


def required_terms(pod: dict, kind: str) -> list[dict]:
    affinity = ((pod.get("spec") or {}).get("affinity") or {}).get(kind) or {}
    return [t for t in affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or [] if isinstance(t, dict)]


def _selects(term: dict, owner_namespace: str, other: dict) -> bool:
    from kubelite.server.admission.validation_meta import selector_matches

    meta = other.get("metadata") or {}
    namespaces = term.get("namespaces") or []
    every_namespace = term.get("namespaceSelector") == {}
    if not every_namespace and meta.get("namespace") not in (namespaces or [owner_namespace]):
        return False
    selector = term.get("labelSelector")
    return selector is not None and selector_matches(selector, meta.get("labels") or {})


def _same_topology(key: str, node: dict, other_node: dict | None) -> bool:
    value = ((node.get("metadata") or {}).get("labels") or {}).get(key)
    other = (((other_node or {}).get("metadata") or {}).get("labels") or {}).get(key)
    return value is not None and value == other


def misfit(pod: dict, node: dict, placed: list[tuple[dict, str]], nodes: dict[str, dict]):
    """Why `pod` may not go to `node` for (anti-)affinity reasons, or None.

    `placed` lists (pod, node name) of the pods holding a place; `nodes` maps names to Nodes."""
    namespace = (pod.get("metadata") or {}).get("namespace")
    for term in required_terms(pod, "podAffinity"):
        matches = [(p, n) for p, n in placed if _selects(term, namespace, p)]
        key = term.get("topologyKey") or ""
        if matches:
            if not any(_same_topology(key, node, nodes.get(n)) for _, n in matches):
                return AFFINITY
        elif not (_selects(term, namespace, pod) and key in ((node.get("metadata") or {}).get("labels") or {})):
            return AFFINITY
    for term in required_terms(pod, "podAntiAffinity"):
        key = term.get("topologyKey") or ""
        if any(_selects(term, namespace, p) and _same_topology(key, node, nodes.get(n)) for p, n in placed):
            return ANTI_AFFINITY
    for other, other_node in placed:
        other_namespace = (other.get("metadata") or {}).get("namespace")
        for term in required_terms(other, "podAntiAffinity"):
            if _selects(term, other_namespace, pod) and \
                    _same_topology(term.get("topologyKey") or "", node, nodes.get(other_node)):
                return EXISTING_ANTI_AFFINITY
    return None


def has_pod_affinity(pods) -> bool:
    """Whether any of `pods` has a required (anti-)affinity term (else the filter is skipped)."""
    return any(required_terms(p, "podAffinity") or required_terms(p, "podAntiAffinity") for p in pods)
