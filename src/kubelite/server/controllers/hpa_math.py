"""The HorizontalPodAutoscaler's arithmetic, apart from any object plumbing: usage ratios, the
tolerance, the replica count a ratio asks for, the min/max and scale-rate rules, the scale-down
stabilization over past recommendations and the behavior policies, following
kube-controller-manager 1.32's rules.

Figures are what the controller works with: integer milli-units (millicores, millibytes) and Go's
float64 for ratios, so that roundings land where the real controller's do (0.7 x 10 pods is 8).
Times are seconds on the cluster clock.
"""
from __future__ import annotations

import math

TOLERANCE = 0.1  # --horizontal-pod-autoscaler-tolerance
DOWNSCALE_STABILIZATION = 300.0  # --horizontal-pod-autoscaler-downscale-stabilization (5m)
SCALE_UP_LIMIT_FACTOR = 2.0
SCALE_UP_LIMIT_MINIMUM = 4.0
_INT32_MAX, _INT32_MIN = 2**31 - 1, -(2**31)

WITHIN_RANGE = ("DesiredWithinRange", "the desired count is within the acceptable range")
TOO_MANY = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
TOO_FEW = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")
SCALE_UP_LIMIT = ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")
SCALE_DOWN_LIMIT = ("ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate")


def within_tolerance(ratio: float) -> bool:
    return 1.0 - TOLERANCE <= ratio <= 1.0 + TOLERANCE


def utilization_ratio(usage: dict[str, int], requests: dict[str, int], target: int) -> tuple[float, int, int]:
    """(ratio to the target, utilization in whole percent, average usage in milli-units) over the
    pods that have both a usage and a request; ValueError when none has."""
    used = requested = count = 0
    for pod, value in usage.items():
        if pod not in requests:
            continue
        used += value
        requested += requests[pod]
        count += 1
    if requested == 0:
        raise ValueError("no metrics returned matched known pods")
    percent = _go_div(used * 100, requested)
    return float(percent) / float(target), percent, _go_div(used, count)


def usage_ratio(usage: dict[str, int], target: int) -> tuple[float, int]:
    """(ratio to the per-pod target, average usage) for AverageValue targets."""
    average = _go_div(sum(usage.values()), len(usage))
    return float(average) / float(target), average


def replicas_for_ratio(current: int, ready: int, ratio: float) -> int:
    """Within the tolerance nothing changes; otherwise ceil(ratio x ready pods)."""
    if within_tolerance(ratio):
        return current
    return math.ceil(ratio * float(ready))


def scale_up_limit(current: int) -> int:
    """At most double (and at least 4) in one step when no behavior is given."""
    return int(max(SCALE_UP_LIMIT_FACTOR * float(current), SCALE_UP_LIMIT_MINIMUM))


def apply_rules(current: int, desired: int, minimum: int, maximum: int) -> tuple[int, str, str]:
    """The count within [min, max and the scale-up limit]: (replicas, reason, message) as the
    ScalingLimited condition names them."""
    limit = scale_up_limit(current)
    if maximum > limit:
        top, reason = limit, SCALE_UP_LIMIT
    else:
        top, reason = maximum, TOO_MANY
    if desired < minimum:
        return minimum, *TOO_FEW
    if desired > top:
        return top, *reason
    return desired, *WITHIN_RANGE


class Recommendations:
    """Past recommendations of one HPA, (replicas, time) pairs; an old sample is reused in place
    as the controller does, so the list stays short."""

    def __init__(self, replicas: int, now: float):
        self.samples: list[list] = [[replicas, now]]

    def _record(self, desired: int, now: float, old_index: int | None) -> None:
        if old_index is None:
            self.samples.append([desired, now])
        else:
            self.samples[old_index] = [desired, now]

    def stabilize(self, desired: int, now: float, window: float = DOWNSCALE_STABILIZATION) -> int:
        """Scale down no lower than the highest recommendation of the last `window` seconds."""
        highest, old = desired, None
        for index, (count, when) in enumerate(self.samples):
            if when < now - window:
                old = index
            elif count > highest:
                highest = count
        self._record(desired, now, old)
        return highest

    def stabilize_with_behavior(self, current: int, desired: int, now: float, up_window: float,
                                down_window: float) -> tuple[int, str, str]:
        """Between the lowest recommendation of the scale-up window and the highest of the
        scale-down window, nearest to the current count; with the AbleToScale reason."""
        up, down, old = desired, desired, None
        for index, (count, when) in enumerate(self.samples):
            if when > now - up_window:
                up = min(count, up)
            if when > now - down_window:
                down = max(count, down)
            if when < now - up_window and when < now - down_window:
                old = index
        recommendation = max(current, up)
        recommendation = min(recommendation, down)
        self._record(desired, now, old)
        if desired >= current:
            return recommendation, "ScaleUpStabilized", ("recent recommendations were lower than current one, "
                                                         "applying the lowest recent recommendation")
        return recommendation, "ScaleDownStabilized", ("recent recommendations were higher than current one, "
                                                       "applying the highest recent recommendation")


# -- behavior policies --------------------------------------------------------------------------

class ScaleEvents:
    """Replica changes of one HPA in one direction, [change, time, outdated] entries."""

    def __init__(self):
        self.entries: list[list] = []

    def changed_within(self, period: float, now: float) -> int:
        return sum(change for change, when, _ in self.entries if when > now - period)

    def store(self, change: int, now: float, longest_period: float) -> None:
        old = None
        for index, entry in enumerate(self.entries):
            if entry[1] < now - longest_period:
                entry[2] = True
            if entry[2]:
                old = index
        if old is None:
            self.entries.append([change, now, False])
        else:
            self.entries[old] = [change, now, False]


def longest_period(rules: dict) -> float:
    return float(max([p.get("periodSeconds", 0) for p in rules.get("policies") or []] or [0]))


def _policy_limit(current: int, ups: ScaleEvents, downs: ScaleEvents, rules: dict, now: float,
                  scaling_up: bool) -> int:
    """The furthest count the policies allow from where each policy's period started; `Max`
    picks the biggest change, `Min` the smallest, `Disabled` none."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    biggest_change = select != "Min"
    pick = max if biggest_change == scaling_up else min
    result = None
    for policy in rules.get("policies") or []:
        period = float(policy.get("periodSeconds", 0))
        start = current - ups.changed_within(period, now) + downs.changed_within(period, now)
        value = int(policy.get("value", 0))
        if policy.get("type") == "Pods":
            proposed = start + value if scaling_up else start - value
        elif scaling_up:
            # rounded up, or a small percentage would never add a pod
            proposed = math.ceil(float(start) * (1 + float(value) / 100))
        else:
            proposed = int(float(start) * (1 - float(value) / 100))
        result = proposed if result is None else pick(result, proposed)
    if result is None:  # no policy: Go's starting value, the int32 bound
        return _INT32_MIN if pick is max else _INT32_MAX
    return result


def scale_up_limit_with_rules(current: int, ups: ScaleEvents, downs: ScaleEvents, rules: dict, now: float) -> int:
    return _policy_limit(current, ups, downs, rules, now, scaling_up=True)


def scale_down_limit_with_rules(current: int, ups: ScaleEvents, downs: ScaleEvents, rules: dict, now: float) -> int:
    return _policy_limit(current, ups, downs, rules, now, scaling_up=False)


def apply_behavior_rate(current: int, desired: int, minimum: int, maximum: int, ups: ScaleEvents,
                        downs: ScaleEvents, behavior: dict, now: float) -> tuple[int, str, str]:
    """The count the behavior's policies allow now: (replicas, reason, message)."""
    if desired > current:
        limit = max(scale_up_limit_with_rules(current, ups, downs, behavior.get("scaleUp") or {}, now), current)
        top, reason = (limit, SCALE_UP_LIMIT) if maximum > limit else (maximum, TOO_MANY)
        if desired > top:
            return top, *reason
    elif desired < current:
        limit = min(scale_down_limit_with_rules(current, ups, downs, behavior.get("scaleDown") or {}, now), current)
        bottom, reason = (limit, SCALE_DOWN_LIMIT) if minimum < limit else (minimum, TOO_FEW)
        if desired < bottom:
            return bottom, *reason
    return desired, *WITHIN_RANGE


def _go_div(a: int, b: int) -> int:
    """Go's integer division, truncating toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q
