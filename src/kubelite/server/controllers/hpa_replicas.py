"""The HorizontalPodAutoscaler's replica calculator for resource metrics: which pods count
(ready, unready, missing, ignored), their requests, and the replica count a Utilization or
AverageValue target asks for, with kube-controller-manager 1.32's handling of pods without
metrics and of pods still starting, and its error texts.

Usage comes from what metrics.k8s.io serves (kubelite.server.metrics) for the Running pods the
target's selector picks: per pod, the sum over its containers (or one container's figure) in
milli-units, read back from the served Quantities exactly as the controller reads them.
"""
from __future__ import annotations

import math

from kubelite.quantity import QuantityError, quantity_value
from kubelite.record import Record
from kubelite.server import metrics as usage_rule
from kubelite.server.clock import parse_time
from kubelite.server.controllers import hpa_math

CPU_INITIALIZATION_PERIOD = 300.0  # --horizontal-pod-autoscaler-cpu-initialization-period (5m)
INITIAL_READINESS_DELAY = 30.0  # --horizontal-pod-autoscaler-initial-readiness-delay
_WINDOW = 10.0  # the metrics' window (metrics.WINDOW)


class MetricsError(Exception):
    """A metric could not be computed; the message is the controller's own text."""


class Sample(Record):
    value: int  # milli-units
    timestamp: float


def milli(text) -> int:
    """A Quantity in milli-units, rounded up as Go's MilliValue."""
    try:
        return math.ceil(quantity_value(text) * 1000)
    except (QuantityError, ValueError, TypeError):
        return 0


def fetch(pods: list[dict], resource: str, container: str, now: float, timestamp: str) -> dict[str, Sample]:
    """What the controller reads from metrics.k8s.io: the PodMetrics of the Running pods among
    `pods`, summed (or one container's) per pod; a pod whose figures lack the resource is left out."""
    found = {}
    for pod in pods:
        if not usage_rule.is_running(pod):
            continue
        served = usage_rule.pod_metrics(pod, timestamp)
        if container:
            match = [c for c in served["containers"] if c["name"] == container]
            if match and resource in match[0]["usage"]:
                found[served["metadata"]["name"]] = Sample(milli(match[0]["usage"][resource]), now)
            continue
        if served["containers"] and all(resource in c["usage"] for c in served["containers"]):
            total = sum(milli(c["usage"][resource]) for c in served["containers"])
            found[served["metadata"]["name"]] = Sample(total, now)
    if not pods or not any(usage_rule.is_running(p) for p in pods):
        raise MetricsError(f"unable to get metrics for resource {resource}: no metrics returned from resource "
                           "metrics API")
    return found


def _ready_condition(pod: dict) -> dict | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition
    return None


def _cpu_unready(pod: dict, sample: Sample, now: float) -> bool:
    """A pod whose CPU sample does not count yet: not ready, or ready for less than one metrics
    window while still in its initialization period."""
    condition = _ready_condition(pod)
    started = parse_time((pod.get("status") or {}).get("startTime"))
    if condition is None or started is None:
        return True
    transition = parse_time(condition.get("lastTransitionTime")) or 0.0
    if started + CPU_INITIALIZATION_PERIOD > now:
        return condition.get("status") == "False" or sample.timestamp < transition + _WINDOW
    return condition.get("status") == "False" and started + INITIAL_READINESS_DELAY > transition


def group_pods(pods: list[dict], samples: dict[str, Sample], resource: str, now: float):
    """(ready count, unready names, missing names, ignored names)."""
    ready, unready, missing, ignored = 0, set(), set(), set()
    for pod in pods:
        name = pod["metadata"]["name"]
        phase = (pod.get("status") or {}).get("phase")
        if pod["metadata"].get("deletionTimestamp") or phase == "Failed":
            ignored.add(name)
        elif phase == "Pending":
            unready.add(name)
        elif name not in samples:
            missing.add(name)
        elif resource == "cpu" and _cpu_unready(pod, samples[name], now):
            unready.add(name)
        else:
            ready += 1
    return ready, unready, missing, ignored


def requests_of(pods: list[dict], resource: str, container: str) -> dict[str, int]:
    """Each pod's request of `resource` in milli-units (its containers' sum, or one container's)."""
    out = {}
    for pod in pods:
        name = pod["metadata"]["name"]
        total = 0
        for c in (pod.get("spec") or {}).get("containers") or []:
            if container and c.get("name") != container:
                continue
            requested = ((c.get("resources") or {}).get("requests") or {}).get(resource)
            if requested is None:
                raise MetricsError(f"missing request for {resource} in container {c.get('name')} of Pod {name}")
            total += milli(requested)
            if container:
                break
        else:
            if container:
                raise MetricsError(f"container {container} not found in Pod {name}")
        out[name] = total
    return out


def _counted(pods, samples, resource, now):
    if not pods:
        raise MetricsError("no pods returned by selector while calculating replica count")
    ready, unready, missing, ignored = group_pods(pods, samples, resource, now)
    values = {k: v.value for k, v in samples.items() if k not in ignored and k not in unready}
    if not values:
        raise MetricsError("did not receive metrics for targeted pods (pods might be unready)")
    return ready, unready, missing, values


def utilization_replicas(current: int, target: int, resource: str, container: str, pods: list[dict],
                         samples: dict[str, Sample], now: float) -> tuple[int, int, int]:
    """(replicas, utilization %, average usage in milli-units) for a Utilization target."""
    ready, unready, missing, values = _counted(pods, samples, resource, now)
    requests = requests_of(pods, resource, container)
    try:
        ratio, percent, raw = hpa_math.utilization_ratio(values, requests, target)
    except ValueError as err:
        raise MetricsError(str(err)) from None
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        return hpa_math.replicas_for_ratio(current, ready, ratio), percent, raw
    if missing:
        if ratio < 1.0:
            # on a scale-down a pod without figures counts as using its request (or the target)
            fallback = max(100, target)
            values.update({name: requests[name] * fallback // 100 for name in missing})
        elif ratio > 1.0:
            values.update({name: 0 for name in missing})
    if scale_up_with_unready:
        values.update({name: 0 for name in unready})
    new_ratio = hpa_math.utilization_ratio(values, requests, target)[0]
    return _adjusted(current, ratio, new_ratio, len(values)), percent, raw


def average_value_replicas(current: int, target: int, resource: str, pods: list[dict],
                           samples: dict[str, Sample], now: float) -> tuple[int, int]:
    """(replicas, average usage in milli-units) for an AverageValue target."""
    ready, unready, missing, values = _counted(pods, samples, resource, now)
    ratio, usage = hpa_math.usage_ratio(values, target)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        return hpa_math.replicas_for_ratio(current, ready, ratio), usage
    if missing:
        if ratio < 1.0:
            values.update({name: target for name in missing})
        elif ratio > 1.0:
            values.update({name: 0 for name in missing})
    if scale_up_with_unready:
        values.update({name: 0 for name in unready})
    new_ratio = hpa_math.usage_ratio(values, target)[0]
    return _adjusted(current, ratio, new_ratio, len(values)), usage


def _adjusted(current: int, ratio: float, new_ratio: float, counted: int) -> int:
    """The count after filling in missing/unready pods, unless that flips the direction."""
    if hpa_math.within_tolerance(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return current
    replicas = math.ceil(new_ratio * float(counted))
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return current
    return replicas
