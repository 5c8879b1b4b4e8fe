"""Pod QoS class (``status.qosClass``) from container requests and limits."""

from __future__ import annotations

from kubelite.quantity import QuantityError, quantity_value

_TRACKED = ("cpu", "memory")


def _containers(pod: dict):
    spec = pod.get("spec") or {}
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if isinstance(container, dict):
                yield container


def _nonzero(resources: dict) -> dict:
    out = {}
    for name, value in (resources or {}).items():
        if name not in _TRACKED:
            continue
        try:
            if quantity_value(value) != 0:
                out[name] = quantity_value(value)
        except QuantityError:
            continue
    return out


def pod_qos_class(pod: dict) -> str:
    """Guaranteed, Burstable or BestEffort, as the kubelet/apiserver compute it."""
    requests: dict = {}
    limits: dict = {}
    guaranteed = True
    for container in _containers(pod):
        resources = container.get("resources") or {}
        req = _nonzero(resources.get("requests"))
        lim = _nonzero(resources.get("limits"))
        for name, value in req.items():
            requests[name] = requests.get(name, 0) + value
        for name, value in lim.items():
            limits[name] = limits.get(name, 0) + value
        if set(lim) != set(_TRACKED):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(requests.get(n) == limits.get(n) for n in requests) and set(requests) == set(limits):
        return "Guaranteed"
    return "Burstable"
