"""kubectl describe's text for an object, from the object and what was fetched beside it.

`describe(obj, related, now)` is pure: `related` carries the events ("events": a list, or
absent/None to leave the section out), a service's "endpointslices", a namespace's "quotas" and
"limitranges", a deployment's ("old", new) "replicasets", a replica set's "pod_phases".
"""
from __future__ import annotations

import datetime
from typing import Callable

from kubelite.describe import hpa, kinds
from kubelite.describe.generic import generic

DESCRIBERS: dict[tuple[str, str], Callable] = {
    ("", "Pod"): kinds.pod,
    ("apps", "Deployment"): kinds.deployment,
    ("apps", "ReplicaSet"): kinds.replicaset,
    ("", "Service"): kinds.service,
    ("", "ConfigMap"): kinds.configmap,
    ("", "Secret"): kinds.secret,
    ("", "Namespace"): kinds.namespace,
    ("", "Node"): kinds.node,
    ("batch", "Job"): kinds.job,
    ("discovery.k8s.io", "EndpointSlice"): kinds.endpointslice,
    ("", "LimitRange"): kinds.limitrange,
    ("", "ResourceQuota"): kinds.resourcequota,
    ("autoscaling", "HorizontalPodAutoscaler"): hpa.hpa,
}


def describer_for(api_version: str, kind: str) -> Callable:
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    return DESCRIBERS.get((group, kind), generic)


def describe(obj: dict, related: dict | None = None, now: datetime.datetime | None = None) -> str:
    now = now or datetime.datetime.now(datetime.timezone.utc)
    fn = describer_for(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
    return fn(obj, related or {}, now).render()


__all__ = ["describe", "describer_for", "DESCRIBERS"]
