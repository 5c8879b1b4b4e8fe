"""Simulated resource usage, the figures metrics.k8s.io/v1beta1 serves (PodMetrics, NodeMetrics).

kubelite runs no containers, so usage is a deterministic rule, computed on each request:
- a container of a Running pod uses what the pod's annotation `sim.kubelite.io/cpu` /
  `sim.kubelite.io/memory` says (split evenly over the pod's containers), so tests can steer an
  autoscaler; else it is idle: 1m CPU and 4Mi memory, whatever it requests (as an idle nginx
  measures; a rule "usage = requests" would make every HPA with a target under 100% scale up
  untouched, which no real cluster does);
- a node uses the sum of its Running pods' usage.
Figures are written as metrics-server writes them: canonical Quantities of whole nanocores and
kibibytes (`"250m"`, `"1500001n"`, `"64Mi"`, `"1025Ki"`); each object carries `timestamp` (the
cluster clock) and `window`.
Pods that are not Running have no metrics (metrics-server reports only what the kubelet measures).
"""
from __future__ import annotations

import functools
import math

from kubelite.quantity import QuantityError, quantity_value
from kubelite.server.metrics_api import GROUP, VERSION, api_resources  # noqa: F401 (this module's names too)

TYPE_CHECKING = False  # Fraction in annotations only, at import
if TYPE_CHECKING:
    from fractions import Fraction

CPU_ANNOTATION = "sim.kubelite.io/cpu"
MEMORY_ANNOTATION = "sim.kubelite.io/memory"
WINDOW = "10s"
_ANNOTATIONS = {"cpu": CPU_ANNOTATION, "memory": MEMORY_ANNOTATION}


@functools.lru_cache(maxsize=None)
def default_usage() -> dict[str, Fraction]:
    """A container's usage without an annotation: 1m of CPU, 4 MiB. Made at first use: fractions
    (with decimal and numbers) is imported when metrics are computed, not by every process that
    wakes the controllers (the HPA controller imports this module)."""
    from fractions import Fraction

    return {"cpu": Fraction(1, 1000), "memory": Fraction(4 * 1024 * 1024)}


def _quantity(value) -> Fraction | None:
    try:
        return quantity_value(value)
    except (QuantityError, ValueError, TypeError, ZeroDivisionError):
        return None


def format_usage(resource: str, amount: Fraction) -> str:
    """CPU as whole nanocores, memory as whole kibibytes (the kubelet's page-sized figures),
    written as metrics-server's Quantities serialise: canonical, so 0.25 cores is `250m` and
    64 MiB `64Mi`, while measured-looking figures stay `1500001n` / `1025Ki`."""
    from kubelite.quantity import canonical_quantity

    if resource == "cpu":
        return canonical_quantity(f"{math.ceil(amount * 10**9)}n")
    return canonical_quantity(f"{math.ceil(amount / 1024)}Ki")


def container_usage(pod: dict, container: dict) -> dict[str, Fraction]:
    """One container's usage in cores and bytes, by the rule in the module docstring."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    count = len((pod.get("spec") or {}).get("containers") or []) or 1
    usage = {}
    for resource, idle in default_usage().items():
        steered = _quantity(annotations.get(_ANNOTATIONS[resource]))
        usage[resource] = steered / count if steered is not None else idle
    return usage


def is_running(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running"


def pod_metrics(pod: dict, timestamp: str) -> dict:
    """The PodMetrics object of a Running pod."""
    meta = pod.get("metadata") or {}
    containers = []
    for container in (pod.get("spec") or {}).get("containers") or []:
        usage = container_usage(pod, container)
        containers.append({"name": container.get("name", ""),
                           "usage": {r: format_usage(r, a) for r, a in usage.items()}})
    return {"kind": "PodMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
            "metadata": _metadata(meta, namespaced=True, timestamp=timestamp),
            "timestamp": timestamp, "window": WINDOW, "containers": containers}


def pod_usage(pod: dict) -> dict[str, Fraction]:
    """A pod's usage summed over its containers."""
    from fractions import Fraction

    total = {r: Fraction(0) for r in default_usage()}
    for container in (pod.get("spec") or {}).get("containers") or []:
        for resource, amount in container_usage(pod, container).items():
            total[resource] += amount
    return total


def node_metrics(node: dict, pods: list[dict], timestamp: str) -> dict:
    """The NodeMetrics object of a node, from the Running pods bound to it."""
    name = (node.get("metadata") or {}).get("name", "")
    from fractions import Fraction

    total = {r: Fraction(0) for r in default_usage()}
    for pod in pods:
        if is_running(pod) and (pod.get("spec") or {}).get("nodeName") == name:
            for resource, amount in pod_usage(pod).items():
                total[resource] += amount
    return {"kind": "NodeMetrics", "apiVersion": "metrics.k8s.io/v1beta1",
            "metadata": _metadata(node.get("metadata") or {}, namespaced=False, timestamp=timestamp),
            "timestamp": timestamp, "window": WINDOW,
            "usage": {r: format_usage(r, a) for r, a in total.items()}}


def _metadata(source: dict, namespaced: bool, timestamp: str) -> dict:
    # metrics-server copies name, namespace and labels; creationTimestamp is the time of the answer.
    meta = {"name": source.get("name", "")}
    if namespaced:
        meta["namespace"] = source.get("namespace", "")
    meta["creationTimestamp"] = timestamp
    if source.get("labels"):
        meta["labels"] = dict(source["labels"])
    return meta
