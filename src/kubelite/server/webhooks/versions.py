"""Objects in the version a webhook registered for (matchPolicy: Equivalent).

A request for a resource served in several versions may match a webhook through another
version than the one written; kube-apiserver then converts the object to that version for the
webhook and its patch back. The only kind kubelite serves in several versions is the
HorizontalPodAutoscaler (autoscaling/v2 stored, autoscaling/v1 converted); others pass as they are.
"""
from __future__ import annotations

_HPA = ("autoscaling", "HorizontalPodAutoscaler")


def to_version(obj: dict | None, group: str, version: str, kind: str) -> dict | None:
    if obj is None or (group, kind) != _HPA or obj.get("apiVersion") == f"{group}/{version}":
        return obj
    from kubelite.server import conversion

    if version == "v1":
        return conversion.hpa_to_v1(obj)
    if version == "v2":
        return conversion.hpa_to_v2(obj)
    return obj
