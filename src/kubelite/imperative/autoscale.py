"""`autoscale`: the autoscaling/v1 HorizontalPodAutoscaler kubectl 1.32 generates for a scalable object."""
from __future__ import annotations

from .errors import ImperativeError
from .meta import head, object_meta


def validate_bounds(min_replicas: int, max_replicas: int) -> None:
    if max_replicas < 1:
        raise ImperativeError(f"--max=MAXPODS is required and must be at least 1, max: {max_replicas}")
    if max_replicas < min_replicas:
        raise ImperativeError(f"--max=MAXPODS must be larger or equal to --min=MINPODS, "
                              f"max: {max_replicas}, min: {min_replicas}")


def scale_target_error(kind: str, group: str, version: str, resource: str) -> ImperativeError:
    """kubectl's message for an object without a scale subresource in discovery."""
    return ImperativeError(f"cannot autoscale a {kind}: could not find scale subresource for "
                           f"{group}/{version}, Resource={resource} in discovery information")


def create_hpa(target_name: str, target_api_version: str, target_kind: str, *, max_replicas: int,
               min_replicas: int = -1, cpu_percent: int = -1, name: str = "") -> dict:
    """HorizontalPodAutoscaler in Go struct order; ``-1`` means a flag was not given."""
    spec: dict = {"scaleTargetRef": {"kind": target_kind, "name": target_name, "apiVersion": target_api_version}}
    if min_replicas > 0:
        spec["minReplicas"] = min_replicas
    spec["maxReplicas"] = max_replicas
    if cpu_percent >= 0:
        spec["targetCPUUtilizationPercentage"] = cpu_percent
    obj = head("autoscaling/v1", "HorizontalPodAutoscaler", object_meta(name or target_name))
    obj["spec"] = spec
    # the status struct has two non-pointer integers, so an empty one still prints them
    obj["status"] = {"currentReplicas": 0, "desiredReplicas": 0}
    return obj
