"""The HorizontalPodAutoscaler controller (kube-controller-manager's "horizontalpodautoscaling").

Every 15 s of the cluster clock (and 15 s after an HPA is created or changed, as the real one's
rate-limited queue does) each autoscaling/v2 HPA (v1 ones are stored as v2) is reconciled:
  - the target's /scale gives the current replicas and the pod selector;
  - each metric proposes a count: Resource and ContainerResource metrics from metrics.k8s.io's
    figures (hpa_replicas), Utilization or AverageValue; custom and external metrics have no API
    here and fail as they do on a cluster without their adapters;
  - the highest proposal is normalized: without `behavior`, scale-down stabilization over the last
    300 s of recommendations, the min/max bounds and the doubling limit; with `behavior`, its
    stabilization windows and rate policies (hpa_math);
  - the target is rescaled through /scale, with the SuccessfulRescale Event, and the status is
    rewritten (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime, the conditions
    AbleToScale / ScalingActive / ScalingLimited) when it changed.
Reasons, messages and Events are the upstream controller's.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
from kubelite.server.controllers import hpa_math, hpa_replicas
from kubelite.server.controllers.base import Controller, object_key, split_key
from kubelite.server.errors import StatusError

HPA = "autoscaling/horizontalpodautoscalers"
RESYNC = 15.0  # --horizontal-pod-autoscaler-sync-period
_CONFLICT_RETRIES = 5
_UNAVAILABLE_APIS = {
    "Pods": ("FailedGetPodsMetric", "failed to get pods metric value",
             "unable to get metric {name}: unable to fetch metrics from custom metrics API: "
             "no custom metrics API (custom.metrics.k8s.io) registered"),
    "Object": ("FailedGetObjectMetric", "failed to get object metric value",
               "unable to get metric {name}: unable to fetch metrics from custom metrics API: "
               "no custom metrics API (custom.metrics.k8s.io) registered"),
    "External": ("FailedGetExternalMetric", "failed to get {name} external metric value",
                 "unable to get external metric {name}: unable to fetch metrics from external metrics API: "
                 "no external metrics API (external.metrics.k8s.io) registered"),
}


class Failure(Exception):
    """A reconcile that stops early; the HPA's status was already written."""


class HorizontalPodAutoscalerController(Controller):
    name = "horizontal-pod-autoscaler"
    component = "horizontal-pod-autoscaler"
    watches = (HPA, "pods")

    def __init__(self, ctx):
        super().__init__(ctx)
        self._recommendations: dict[str, hpa_math.Recommendations] = {}
        self._ups: dict[str, hpa_math.ScaleEvents] = {}
        self._downs: dict[str, hpa_math.ScaleEvents] = {}
        # The pod selector of each HPA's target as last read (None until its first pass), to find
        # pods that several HPAs would scale.
        self._selectors: dict[str, object] = {}

    def handle(self, rid, event_type, obj, old) -> None:
        if rid != HPA:
            return  # pods only fill the cache: HPAs are reconciled on their own period
        key = object_key(obj)
        if event_type == "DELETED":
            self._forget(key)
        elif key not in self._selectors:
            self._selectors[key] = None
            self.queue.add_after(key, self._first_delay(obj))
        else:
            self.queue.add_after(key, RESYNC)

    def _first_delay(self, hpa: dict) -> float:
        """One period after the HPA was made; at once for an older one this process meets for the
        first time (a restarted server, each command of the embedded cluster: the periods that
        passed meanwhile are caught up with one pass)."""
        from kubelite.server.clock import parse_time

        created = parse_time((hpa.get("metadata") or {}).get("creationTimestamp"))
        if created is None:
            return RESYNC
        return min(RESYNC, max(0.0, created + RESYNC - self.clock.time()))

    def _forget(self, key: str) -> None:
        for state in (self._recommendations, self._ups, self._downs, self._selectors):
            state.pop(key, None)

    def controllers_of(self, namespace: str, pods: list[dict]) -> list[str]:
        """The HPAs of `namespace` whose targets' selectors pick any of `pods`."""
        return sorted(key for key, matches in self._selectors.items()
                      if matches is not None and split_key(key)[0] == namespace and any(matches(p) for p in pods))

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        hpa = self.cache.get(HPA, ns, name)
        if hpa is None:
            self._forget(key)
            return
        try:
            Reconcile(self, key, clone(hpa)).run()
        except Failure:
            pass
        finally:
            self.queue.add_after(key, RESYNC)


class Reconcile:
    """One pass over one HPA (a copy of the cached object)."""

    def __init__(self, controller: HorizontalPodAutoscalerController, key: str, hpa: dict):
        self.c = controller
        self.key = key
        self.hpa = hpa
        self.spec = hpa.get("spec") or {}
        self.original = clone(hpa.get("status") or {})
        self.status = clone(hpa.get("status") or {})
        self.now = controller.clock.time()

    # -- the pass ----------------------------------------------------------------------------

    def run(self) -> None:
        target, scale = self._scale()
        self._condition("AbleToScale", "True", "SucceededGetScale",
                        "the HPA controller was able to get the target's current scale")
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        if self.key not in self.c._recommendations:
            self.c._recommendations[self.key] = hpa_math.Recommendations(current, self.now)
        minimum = self.spec.get("minReplicas", 1)
        maximum = int(self.spec.get("maxReplicas") or 0)
        desired, reason, rescale, statuses = 0, "", True, None
        if current == 0 and minimum != 0:
            rescale = False
            self._condition("ScalingActive", "False", "ScalingDisabled",
                            "scaling is disabled since the replica count of the target is zero")
        elif current > maximum:
            desired, reason = maximum, "Current number of replicas above Spec.MaxReplicas"
        elif current < minimum:
            desired, reason = minimum, "Current number of replicas below Spec.MinReplicas"
        else:
            proposed, metric, statuses = self._metrics(scale, current)
            desired = proposed
            if desired > current:
                reason = f"{metric} above target"
            if desired < current:
                reason = "All metrics below target"
            desired = self._normalize(current, desired, minimum, maximum)
            rescale = desired != current
        if rescale:
            self._rescale(target, scale, current, desired, reason, statuses)
        else:
            desired = current
        self._set_status(current, desired, statuses, rescale)
        self._write_status()

    # -- the target ----------------------------------------------------------------------------

    def _scale(self):
        """(the target's resource, its Scale), or the FailedGetScale outcome."""
        ref = self.spec.get("scaleTargetRef") or {}
        api_version = ref.get("apiVersion") or ""
        group = api_version.rpartition("/")[0] if api_version.count("/") == 1 else ""
        ns = self.hpa["metadata"].get("namespace", "")
        try:
            if api_version.count("/") > 1:
                raise _Problem(f"unexpected GroupVersion string: {api_version}")
            candidates = self._mappings(group, ref.get("kind") or "")
            if not candidates:
                raise _Problem(f'no matches for kind "{ref.get("kind") or ""}" in group "{group}"')
            first = None
            for r in candidates:
                try:
                    return r, self.c.ctx.api.get_scale(r, ns, ref.get("name") or "")
                except StatusError as err:
                    first = first or err
            raise _Problem(first.message)
        except _Problem as err:
            self.c.events.warning(self.hpa, "FailedGetScale", str(err))
            self._condition("AbleToScale", "False", "FailedGetScale",
                            f"the HPA controller was unable to get the target's current scale: {err}")
            self._write_status()
            raise Failure() from None

    def _mappings(self, group: str, kind: str) -> list:
        """The resources serving `kind` in `group` that have a scale subresource, preferred first."""
        registry = self.c.ctx.api.registry
        found = [r for r in registry.all() if r.group == group and r.kind == kind and r.subresource("scale")]
        preferred = registry.preferred_version(group)
        return sorted(found, key=lambda r: r.version != preferred)

    def _rescale(self, r, scale: dict, current: int, desired: int, reason: str, statuses) -> None:
        rid = f"{r.group}/{r.resource}" if r.group else r.resource
        body = clone(scale)
        error = None
        for _ in range(_CONFLICT_RETRIES):
            body.setdefault("spec", {})["replicas"] = desired
            try:
                self.c.client.update(rid, body, subresource="scale")
                error = None
                break
            except StatusError as err:
                error = err
                if err.code != 409:
                    break
                meta = body["metadata"]
                try:
                    body = self.c.ctx.api.get_scale(r, meta.get("namespace", ""), meta["name"])
                except StatusError:
                    pass
        if error is not None:
            self.c.events.warning(self.hpa, "FailedRescale",
                                  f"New size: {desired}; reason: {reason}; error: {error.message}")
            self._condition("AbleToScale", "False", "FailedUpdateScale",
                            f"the HPA controller was unable to update the target scale: {error.message}")
            self._set_status(current, self.status.get("desiredReplicas", 0), statuses, False)
            self._write_status()
            raise Failure()
        self._condition("AbleToScale", "True", "SucceededRescale",
                        f"the HPA controller was able to update the target scale to {desired}")
        self.c.events.normal(self.hpa, "SuccessfulRescale", f"New size: {desired}; reason: {reason}")
        behavior = self.spec.get("behavior")
        if behavior:
            if desired > current:
                events, rules = self.c._ups.setdefault(self.key, hpa_math.ScaleEvents()), behavior.get("scaleUp")
            else:
                events, rules = self.c._downs.setdefault(self.key, hpa_math.ScaleEvents()), behavior.get("scaleDown")
            events.store(abs(desired - current), self.now, hpa_math.longest_period(rules or {}))

    # -- metrics -------------------------------------------------------------------------------

    def _metrics(self, scale: dict, current: int) -> tuple[int, str, list]:
        """The highest count the metrics propose, the metric that proposed it, the statuses; when
        no metric (or, on a scale-down, any metric) failed nothing is decided: Failure."""
        specs = self.spec.get("metrics") or []
        try:
            pods = self._selected_pods(scale)
        except _Problem as err:
            self._fail_metrics(current, None, str(err))
        statuses = [{"type": ""} for _ in specs]
        replicas, metric, failures, first = 0, "", 0, None
        for index, spec in enumerate(specs):
            try:
                proposal, name, statuses[index] = self._metric(spec, current, pods)
            except _MetricFailure as failure:
                failures += 1
                first = first or failure
                continue
            if replicas == 0 or proposal > replicas:
                replicas, metric = proposal, name
        if failures and (failures >= len(specs) or replicas < current):
            self._condition(*first.condition)
            self._fail_metrics(current, statuses,
                               f"invalid metrics ({failures} invalid out of {len(specs)}), first error is: {first}")
        self._condition("ScalingActive", "True", "ValidMetricFound",
                        f"the HPA was able to successfully calculate a replica count from {metric}")
        return replicas, metric, statuses

    def _fail_metrics(self, current: int, statuses, message: str):
        """Nothing can be decided: the status keeps its desired count, an Event says why."""
        self._set_status(current, self.status.get("desiredReplicas", 0), statuses, False)
        self._write_status()
        self.c.events.warning(self.hpa, "FailedComputeMetricsReplicas", message)
        raise Failure()

    def _selected_pods(self, scale: dict) -> list[dict]:
        """The pods the target's selector picks, or _Problem (with the InvalidSelector outcome)."""
        from kubelite.server.selectors import parse_label_selector

        text = (scale.get("status") or {}).get("selector") or ""
        if not text:
            self.c.events.warning(self.hpa, "SelectorRequired", "selector is required")
            self._condition("ScalingActive", "False", "InvalidSelector", "the HPA target's scale is missing a selector")
            raise _Problem("selector is required")
        try:
            matches = parse_label_selector(text)
        except StatusError as err:
            message = f"couldn't convert selector into a corresponding internal selector object: {err.message}"
            self.c.events.warning(self.hpa, "InvalidSelector", message)
            self._condition("ScalingActive", "False", "InvalidSelector", message)
            raise _Problem(message) from None
        if self.key in self.c._selectors:
            self.c._selectors[self.key] = matches
        ns = self.hpa["metadata"].get("namespace", "")
        pods = self.c.cache.list("pods", ns, where=matches)
        owners = self.c.controllers_of(ns, pods)
        if len(owners) > 1:
            message = f"pods by selector {text} are controlled by multiple HPAs: [{' '.join(owners)}]"
            self.c.events.warning(self.hpa, "AmbiguousSelector", message)
            self._condition("ScalingActive", "False", "AmbiguousSelector", message)
            raise _Problem(message)
        return pods

    def _metric(self, spec: dict, current: int, pods: list[dict]) -> tuple[int, str, dict]:
        kind = spec.get("type")
        if kind in ("Resource", "ContainerResource"):
            return self._resource_metric(spec, kind, current, pods)
        if kind in _UNAVAILABLE_APIS:
            reason, wrap, detail = _UNAVAILABLE_APIS[kind]
            source = spec.get(kind[0].lower() + kind[1:]) or {}
            name = ((source.get("metric") or {}).get("name")) or ""
            error = detail.format(name=name)
            self.c.events.warning(self.hpa, reason, error)
            raise _MetricFailure(f"{wrap.format(name=name)}: {error}",
                                 ("ScalingActive", "False", reason,
                                  f"the HPA was unable to compute the replica count: {error}"))
        error = f'unknown metric source type "{kind}"'
        self.c.events.warning(self.hpa, "InvalidMetricSourceType", error)
        raise _MetricFailure(error, ("ScalingActive", "False", "InvalidMetricSourceType",
                                     f"the HPA was unable to compute the replica count: {error}"))

    def _resource_metric(self, spec: dict, kind: str, current: int, pods: list[dict]) -> tuple[int, str, dict]:
        source = spec.get("resource" if kind == "Resource" else "containerResource") or {}
        resource, container = source.get("name") or "", source.get("container") or ""
        target = source.get("target") or {}
        reason = "FailedGetResourceMetric" if kind == "Resource" else "FailedGetContainerResourceMetric"
        try:
            current_value, replicas, name = self._proposal(target, resource, container, kind, current, pods)
        except hpa_replicas.MetricsError as err:
            self.c.events.warning(self.hpa, reason, str(err))
            wrap = (f"failed to get {resource} resource metric value" if kind == "Resource"
                    else f"failed to get {container} container metric value")
            raise _MetricFailure(f"{wrap}: {err}", ("ScalingActive", "False", reason,
                                                    f"the HPA was unable to compute the replica count: {err}"))
        status: dict = {"name": resource, "current": current_value}
        if kind == "ContainerResource":
            status["container"] = container
        return replicas, name, {"type": kind, "resource" if kind == "Resource" else "containerResource": status}

    def _proposal(self, target, resource, container, kind, current, pods):
        """(current MetricValueStatus, proposed replicas, metric description)."""
        from kubelite.quantity import canonical_quantity

        def samples():
            return hpa_replicas.fetch(pods, resource, container, self.now, self.c.clock.rfc3339())

        if target.get("averageValue") is not None:
            wanted = hpa_replicas.milli(target["averageValue"])
            try:
                replicas, usage = hpa_replicas.average_value_replicas(current, wanted, resource, pods, samples(),
                                                                      self.now)
            except hpa_replicas.MetricsError as err:
                raise hpa_replicas.MetricsError(f"failed to get {resource} usage: {err}") from None
            return {"averageValue": canonical_quantity(f"{usage}m")}, replicas, f"{resource} resource"
        if target.get("averageUtilization") is None:
            raise hpa_replicas.MetricsError("invalid resource metric source: neither an average utilization "
                                            "target nor an average value (usage) target was set")
        try:
            replicas, percent, raw = hpa_replicas.utilization_replicas(
                current, int(target["averageUtilization"]), resource, container, pods, samples(), self.now)
        except hpa_replicas.MetricsError as err:
            raise hpa_replicas.MetricsError(f"failed to get {resource} utilization: {err}") from None
        what = "container resource" if kind == "ContainerResource" else "resource"
        return ({"averageValue": canonical_quantity(f"{raw}m"), "averageUtilization": percent}, replicas,
                f"{resource} {what} utilization (percentage of request)")

    # -- normalization -------------------------------------------------------------------------

    def _normalize(self, current: int, desired: int, minimum: int, maximum: int) -> int:
        history = self.c._recommendations[self.key]
        behavior = self.spec.get("behavior")
        if not behavior:
            stabilized = history.stabilize(desired, self.now)
            if stabilized != desired:
                self._condition("AbleToScale", "True", "ScaleDownStabilized",
                                "recent recommendations were higher than current one, applying the highest "
                                "recent recommendation")
            else:
                self._condition("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size")
            final, reason, message = hpa_math.apply_rules(current, stabilized, minimum, maximum)
        else:
            up = float((behavior.get("scaleUp") or {}).get("stabilizationWindowSeconds") or 0)
            down_rules = behavior.get("scaleDown") or {}
            down = down_rules.get("stabilizationWindowSeconds")
            down = hpa_math.DOWNSCALE_STABILIZATION if down is None else float(down)
            stabilized, reason, message = history.stabilize_with_behavior(current, desired, self.now, up, down)
            if stabilized != desired:
                self._condition("AbleToScale", "True", reason, message)
            else:
                self._condition("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size")
            final, reason, message = hpa_math.apply_behavior_rate(
                current, stabilized, minimum, maximum, self.c._ups.setdefault(self.key, hpa_math.ScaleEvents()),
                self.c._downs.setdefault(self.key, hpa_math.ScaleEvents()), behavior, self.now)
        self._condition("ScalingLimited", "False" if final == stabilized else "True", reason, message)
        return final

    # -- status --------------------------------------------------------------------------------

    def _condition(self, kind: str, status: str, reason: str, message: str) -> None:
        conditions = self.status.setdefault("conditions", [])
        existing = next((c for c in conditions if c.get("type") == kind), None)
        if existing is None:
            existing = {"type": kind}
            conditions.append(existing)
        if existing.get("status") != status:
            existing["lastTransitionTime"] = self.c.clock.rfc3339()
        existing.update(status=status, reason=reason, message=message)

    def _set_status(self, current: int, desired: int, statuses, rescale: bool) -> None:
        status = {}
        last = self.status.get("lastScaleTime")
        if rescale:
            last = self.c.clock.rfc3339()
        if last:
            status["lastScaleTime"] = last
        if current:
            status["currentReplicas"] = current
        status["desiredReplicas"] = desired
        # currentMetrics has no omitempty upstream: no statuses is written as null
        status["currentMetrics"] = statuses or None
        if self.status.get("conditions"):
            status["conditions"] = self.status["conditions"]
        self.status = status

    def _write_status(self) -> None:
        if _semantic(self.status) == _semantic(self.original):
            return
        body = clone(self.hpa)
        body["status"] = self.status
        try:
            self.c.client.update_status(HPA, body)
        except StatusError as err:
            self.c.events.warning(self.hpa, "FailedUpdateStatus", err.message)
            raise


class _Problem(Exception):
    pass


class _MetricFailure(Exception):
    def __init__(self, message: str, condition: tuple):
        super().__init__(message)
        self.condition = condition


def _semantic(status: dict) -> dict:
    """A status as apimachinery's semantic equality sees it: null and empty lists alike."""
    return {k: v for k, v in status.items() if v not in (None, [], {}, 0) or k == "desiredReplicas"}

