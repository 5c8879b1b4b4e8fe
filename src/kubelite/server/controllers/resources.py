"""Resource arithmetic the scheduler needs: a pod's requests and a node's allocatable, as numbers.

A pod requests, per resource, the larger of the sum over its containers (plus restartable init
containers, which keep running) and the largest single init container, plus its overhead — the
rule kube-scheduler's resource fit applies.
"""
from __future__ import annotations

import functools

from kubelite.quantity import QuantityError, quantity_value

TYPE_CHECKING = False  # Fraction in annotations only, at import (fractions when a quantity is read)
if TYPE_CHECKING:
    from fractions import Fraction


def _amount(value) -> Fraction:
    if isinstance(value, (str, int)):
        return _parsed(value)
    return _parse(value)


# The same few quantities ("110", "32Gi", "100m") are read for every pod on every node the
# scheduler weighs: parsed once. Fractions are immutable, so one may be shared.
@functools.lru_cache(maxsize=4096)
def _parsed(value: str | int) -> Fraction:
    return _parse(value)


def _parse(value) -> Fraction:
    try:
        return quantity_value(value)
    except (QuantityError, ValueError, TypeError, ZeroDivisionError):
        from fractions import Fraction

        return Fraction(0)


def _requests(container: dict) -> dict[str, Fraction]:
    resources = container.get("resources") or {}
    # A limit with no request requests the limit (defaulting does this; older objects may lack it).
    merged = dict(resources.get("limits") or {})
    merged.update(resources.get("requests") or {})
    return {name: _amount(value) for name, value in merged.items()}


def pod_requests(pod: dict) -> dict[str, Fraction]:
    spec = pod.get("spec") or {}
    total: dict[str, Fraction] = {}
    for container in spec.get("containers") or []:
        for name, amount in _requests(container).items():
            total[name] = total.get(name, 0) + amount
    sidecars: dict[str, Fraction] = {}
    for init in spec.get("initContainers") or []:
        requests = _requests(init)
        if init.get("restartPolicy") == "Always":
            for name, amount in requests.items():
                sidecars[name] = sidecars.get(name, 0) + amount
            continue
        for name, amount in requests.items():
            # An init container runs beside the sidecars started before it.
            total[name] = max(total.get(name, 0), amount + sidecars.get(name, 0))
    for name, amount in sidecars.items():
        total[name] = total.get(name, 0) + amount
    for name, value in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, 0) + _amount(value)
    return total


def node_allocatable(node: dict) -> dict[str, Fraction]:
    status = node.get("status") or {}
    source = status.get("allocatable") or status.get("capacity") or {}
    return {name: _amount(value) for name, value in source.items()}
