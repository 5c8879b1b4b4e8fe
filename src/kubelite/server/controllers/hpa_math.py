"""The HorizontalPodAutoscaler's arithmetic, apart from any object plumbing (the controller is to
come): utilization of a set of pods, the replica count a metric asks for, and the scale-down
stabilization over past recommendations, following kube-controller-manager's rules.
"""
from __future__ import annotations

import math
from fractions import Fraction

TOLERANCE = Fraction(1, 10)  # --horizontal-pod-autoscaler-tolerance default
DOWNSCALE_STABILIZATION = 300  # seconds; behavior.scaleDown.stabilizationWindowSeconds default


def utilization(usages: list[Fraction], requests: list[Fraction]) -> int:
    """Percent of request used over all pods, truncated to an integer as upstream does."""
    total_request = sum(requests, Fraction(0))
    if total_request == 0:
        raise ValueError("missing request")
    return int(sum(usages, Fraction(0)) * 100 / total_request)


def replicas_for_ratio(current: int, ready: int, ratio: Fraction) -> int:
    """Within the tolerance nothing changes; otherwise ceil(ratio x ready pods)."""
    if abs(ratio - 1) <= TOLERANCE:
        return current
    return math.ceil(ratio * ready)


def clamp(desired: int, minimum: int, maximum: int) -> tuple[int, str]:
    """The count within [min, max] and the ScalingLimited reason (empty when not limited)."""
    if desired > maximum:
        return maximum, "TooManyReplicas"
    if desired < minimum:
        return minimum, "TooFewReplicas"
    return desired, ""


def stabilized(recommendations: list[tuple[float, int]], now: float, desired: int,
               window: float = DOWNSCALE_STABILIZATION) -> int:
    """Scale down no lower than the highest recommendation made within the window (the
    caller records `(time, replicas)` pairs); scale up is not held back by default."""
    recent = [count for when, count in recommendations if now - when < window]
    return max([desired, *recent])
