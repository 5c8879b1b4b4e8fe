"""Serving one kind in several API versions from one stored version.

kube-apiserver keeps every HorizontalPodAutoscaler in autoscaling/v2 and converts at the API boundary:
a body sent to autoscaling/v1 is converted up before defaulting, validation and storage, and whatever
the v1 endpoint answers is converted back down. v1 only has `targetCPUUtilizationPercentage` and
`currentCPUUtilizationPercentage`; what v2 has beyond that (other metrics, current metrics,
conditions) travels through v1 in `autoscaling.alpha.kubernetes.io/*` annotations, written in v1's own
metric shape (the v2beta1-style `targetAverageValue`, `metricName`, ...).

`served(api, r)` gives the handlers an object with the APIServer's verbs that does this conversion for
the versions that need it, and the APIServer itself for all others.
"""
from __future__ import annotations

import json

METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior"
_ROUND_TRIP_ANNOTATIONS = (METRICS_ANNOTATION, BEHAVIOR_ANNOTATION, CURRENT_METRICS_ANNOTATION,
                           CONDITIONS_ANNOTATION, "autoscaling.alpha.kubernetes.io/scale-down-tolerance",
                           "autoscaling.alpha.kubernetes.io/scale-up-tolerance")
DEFAULT_CPU_UTILIZATION = 80
HPA_V1 = ("autoscaling", "v1", "HorizontalPodAutoscaler")
HPA_STORAGE_VERSION = "v2"


# -- wiring ------------------------------------------------------------------------------------------------


def served(api, r):
    """`api`, or a view of it speaking `r`'s version when `r` is stored in another version."""
    if (r.group, r.version, r.kind) != HPA_V1:
        return api
    stored = api.registry.lookup(r.group, HPA_STORAGE_VERSION, r.resource)
    if stored is None:
        return api
    return ConvertingAPI(api, r, stored)


class ConvertingAPI:
    """The APIServer's verbs for a resource served in `served` but stored as `stored`."""

    def __init__(self, api, served_r, stored_r):
        self._api, self._served, self._stored = api, served_r, stored_r

    def __getattr__(self, name):  # store, registry, watch_prefix... are the same for every version
        return getattr(self._api, name)

    def _down(self, obj):
        return hpa_to_v1(obj) if isinstance(obj, dict) and obj.get("kind") == "HorizontalPodAutoscaler" else obj

    def _up(self, body):
        from kubelite.server.core import _check_body

        return hpa_to_v2(_check_body(self._served, body)) if isinstance(body, dict) else body

    def _result(self, result):
        result.obj = self._down(result.obj)
        return result

    def get(self, r, namespace, name):
        return self._down(self._api.get(self._stored, namespace, name))

    def list(self, r, namespace, opts):
        return self._list_down(self._api.list(self._stored, namespace, opts))

    def _list_down(self, listed: dict) -> dict:
        listed = dict(listed)
        listed["apiVersion"] = self._served.api_version
        listed["items"] = [_item_down(item) for item in listed.get("items") or ()]
        return listed

    def create(self, r, namespace, body, opts, owned=False):  # (the body is converted: a new object)
        return self._result(self._api.create(self._stored, namespace, self._up(body), opts))

    def update(self, r, namespace, name, body, opts, subresource=""):
        if subresource == "scale":
            return self._api.update(self._stored, namespace, name, body, opts, subresource=subresource)
        return self._result(self._api.update(self._stored, namespace, name, self._up(body), opts,
                                             subresource=subresource))

    def patch(self, r, namespace, name, patch_type, patch, opts, subresource=""):
        """A patch written against v1 applies to the v1 view; the result is stored as v2 again."""
        import copy

        from kubelite.server import errors, patching
        from kubelite.server.core import _prune_patched

        current = self.get(r, namespace, name)
        patched = patching.apply(patch_type, copy.deepcopy(current), patch, self._served)
        if not isinstance(patched, dict):
            raise errors.bad_request("the patch did not produce an object")
        meta = patched.setdefault("metadata", {})
        if not isinstance(meta, dict):
            raise errors.bad_request("metadata must be an object")
        if meta.get("name", name) != name:
            raise errors.bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                                     % (meta.get("name"), name))
        meta["name"] = name
        warnings = _prune_patched(self._served, patched, opts)
        # the update is conditional on the revision the patch was applied to
        meta["resourceVersion"] = meta.get("resourceVersion") or current["metadata"]["resourceVersion"]
        result = self.update(r, namespace, name, patched, opts, subresource=subresource)
        result.warnings[:0] = warnings
        return result

    def delete(self, r, namespace, name, opts):
        status, body = self._api.delete(self._stored, namespace, name, opts)
        return status, self._down(body)

    def delete_collection(self, r, namespace, list_opts, opts):
        return self._list_down(self._api.delete_collection(self._stored, namespace, list_opts, opts))

    def decode_event_object(self, r, kv):
        return self._down(self._api.decode_event_object(self._stored, kv))


def _item_down(item: dict) -> dict:
    """A list item (lists carry no apiVersion/kind on their items) in v1."""
    converted = hpa_to_v1(item)
    if "apiVersion" not in item:
        converted.pop("apiVersion", None)
    return converted


# -- HorizontalPodAutoscaler: v2 (stored) -> v1 ------------------------------------------------------------


def hpa_to_v1(obj: dict) -> dict:
    spec = obj.get("spec") or {}
    status = obj.get("status")
    metrics = spec.get("metrics") or []
    others = [_metric_spec_to_v1(m) for m in metrics if not _is_cpu_utilization(m)]
    annotations = _without_round_trip(obj.get("metadata", {}).get("annotations"))
    if others:
        annotations[METRICS_ANNOTATION] = _go_json(others)
    if isinstance(status, dict) and status.get("currentMetrics"):
        annotations[CURRENT_METRICS_ANNOTATION] = _go_json([_metric_status_to_v1(m)
                                                            for m in status["currentMetrics"]])
    if isinstance(status, dict) and status.get("conditions"):
        annotations[CONDITIONS_ANNOTATION] = _go_json([_condition_to_v1(c) for c in status["conditions"]])
    out = {key: value for key, value in obj.items() if key not in ("spec", "status")}
    out["apiVersion"] = "autoscaling/v1"
    out["metadata"] = _with_annotations(obj.get("metadata") or {}, annotations)
    out["spec"] = _spec_to_v1(spec)
    if status is not None:
        out["status"] = _status_to_v1(status)
    return out


def _spec_to_v1(spec: dict) -> dict:
    out: dict = {}
    if "scaleTargetRef" in spec:
        out["scaleTargetRef"] = _reference(spec["scaleTargetRef"])
    if spec.get("minReplicas") is not None:
        out["minReplicas"] = spec["minReplicas"]
    out["maxReplicas"] = spec.get("maxReplicas", 0)
    for metric in spec.get("metrics") or ():
        if _is_cpu(metric):  # only the first CPU metric counts, as upstream
            utilization = _target(metric).get("averageUtilization")
            if utilization is not None:
                out["targetCPUUtilizationPercentage"] = utilization
            break
    return out


def _status_to_v1(status: dict) -> dict:
    out: dict = {}
    for key in ("observedGeneration", "lastScaleTime"):
        if status.get(key) is not None:
            out[key] = status[key]
    out["currentReplicas"] = status.get("currentReplicas") or 0  # not omitempty in v1
    out["desiredReplicas"] = status.get("desiredReplicas", 0)
    for metric in status.get("currentMetrics") or ():
        if _is_cpu(metric):
            current = (metric.get("resource") or {}).get("current") or {}
            if current.get("averageUtilization") is not None:
                out["currentCPUUtilizationPercentage"] = current["averageUtilization"]
    return out


def _metric_spec_to_v1(metric: dict) -> dict:
    out = {"type": metric.get("type", "")}
    if metric.get("object") is not None:
        source = metric["object"]
        target = source.get("target") or {}
        v1 = {"target": _reference(source.get("describedObject") or {}), "metricName": _metric_name(source),
              "targetValue": target.get("value") or "0"}
        _copy(v1, "selector", (source.get("metric") or {}), "selector")
        _copy(v1, "averageValue", target, "averageValue")
        out["object"] = v1
    if metric.get("pods") is not None:
        source = metric["pods"]
        v1 = {"metricName": _metric_name(source),
              "targetAverageValue": (source.get("target") or {}).get("averageValue") or "0"}
        _copy(v1, "selector", (source.get("metric") or {}), "selector")
        out["pods"] = v1
    for key in ("resource", "containerResource"):
        if metric.get(key) is not None:
            source = metric[key]
            target = source.get("target") or {}
            v1 = {"name": source.get("name", "")}
            _copy(v1, "targetAverageUtilization", target, "averageUtilization")
            _copy(v1, "targetAverageValue", target, "averageValue")
            if key == "containerResource":
                v1["container"] = source.get("container", "")
            out[key] = v1
    if metric.get("external") is not None:
        source = metric["external"]
        target = source.get("target") or {}
        v1 = {"metricName": _metric_name(source)}
        _copy(v1, "metricSelector", (source.get("metric") or {}), "selector")
        _copy(v1, "targetValue", target, "value")
        _copy(v1, "targetAverageValue", target, "averageValue")
        out["external"] = v1
    return out


def _metric_status_to_v1(metric: dict) -> dict:
    out = {"type": metric.get("type", "")}
    if metric.get("object") is not None:
        source = metric["object"]
        current = source.get("current") or {}
        v1 = {"target": _reference(source.get("describedObject") or {}), "metricName": _metric_name(source),
              "currentValue": current.get("value") or "0"}
        _copy(v1, "selector", (source.get("metric") or {}), "selector")
        _copy(v1, "averageValue", current, "averageValue")
        out["object"] = v1
    if metric.get("pods") is not None:
        source = metric["pods"]
        v1 = {"metricName": _metric_name(source),
              "currentAverageValue": (source.get("current") or {}).get("averageValue") or "0"}
        _copy(v1, "selector", (source.get("metric") or {}), "selector")
        out["pods"] = v1
    for key in ("resource", "containerResource"):
        if metric.get(key) is not None:
            source = metric[key]
            current = source.get("current") or {}
            v1 = {"name": source.get("name", "")}
            _copy(v1, "currentAverageUtilization", current, "averageUtilization")
            v1["currentAverageValue"] = current.get("averageValue") or "0"
            if key == "containerResource":
                v1["container"] = source.get("container", "")
            out[key] = v1
    if metric.get("external") is not None:
        source = metric["external"]
        current = source.get("current") or {}
        v1 = {"metricName": _metric_name(source)}
        _copy(v1, "metricSelector", (source.get("metric") or {}), "selector")
        v1["currentValue"] = current.get("value") or "0"
        _copy(v1, "currentAverageValue", current, "averageValue")
        out["external"] = v1
    return out


def _condition_to_v1(condition: dict) -> dict:
    out = {"type": condition.get("type", ""), "status": condition.get("status", ""),
           "lastTransitionTime": condition.get("lastTransitionTime")}
    _copy(out, "reason", condition, "reason")
    _copy(out, "message", condition, "message")
    return out


# -- HorizontalPodAutoscaler: v1 -> v2 (stored) ------------------------------------------------------------


def hpa_to_v2(obj: dict) -> dict:
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if not isinstance(annotations, dict):
        annotations = {}
    spec = obj.get("spec") or {}
    status = obj.get("status")
    metrics = [_metric_spec_to_v2(m) for m in _annotation_list(annotations, METRICS_ANNOTATION)]
    if spec.get("targetCPUUtilizationPercentage") is not None:
        metrics.append(_cpu_metric(spec["targetCPUUtilizationPercentage"]))
    if not metrics:  # v1 always meant "80% CPU" when nothing else was said
        metrics = [_cpu_metric(DEFAULT_CPU_UTILIZATION)]
    out = {key: value for key, value in obj.items() if key not in ("spec", "status")}
    out["apiVersion"] = "autoscaling/" + HPA_STORAGE_VERSION
    out["metadata"] = _with_annotations(obj.get("metadata") or {},
                                        _without_round_trip(annotations if annotations else None))
    v2_spec: dict = {}
    if "scaleTargetRef" in spec:
        v2_spec["scaleTargetRef"] = _reference(spec["scaleTargetRef"])
    if spec.get("minReplicas") is not None:
        v2_spec["minReplicas"] = spec["minReplicas"]
    v2_spec["maxReplicas"] = spec.get("maxReplicas", 0)
    v2_spec["metrics"] = metrics
    out["spec"] = v2_spec
    if status is not None or CURRENT_METRICS_ANNOTATION in annotations or CONDITIONS_ANNOTATION in annotations:
        out["status"] = _status_to_v2(status if isinstance(status, dict) else {}, annotations)
    return out


def _cpu_metric(utilization) -> dict:
    return {"type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}}}


def _status_to_v2(status: dict, annotations: dict) -> dict:
    out: dict = {}
    for key in ("observedGeneration", "lastScaleTime", "currentReplicas"):
        if status.get(key) is not None:
            out[key] = status[key]
    out["desiredReplicas"] = status.get("desiredReplicas", 0)
    if CURRENT_METRICS_ANNOTATION in annotations:
        out["currentMetrics"] = [_metric_status_to_v2(m)
                                 for m in _annotation_list(annotations, CURRENT_METRICS_ANNOTATION)]
    elif status.get("currentCPUUtilizationPercentage") is not None:
        out["currentMetrics"] = [{"type": "Resource", "resource": {
            "name": "cpu", "current": {"averageUtilization": status["currentCPUUtilizationPercentage"]}}}]
    if CONDITIONS_ANNOTATION in annotations:
        out["conditions"] = _annotation_list(annotations, CONDITIONS_ANNOTATION)
    return out


def _metric_spec_to_v2(metric: dict) -> dict:
    out = {"type": metric.get("type", "")}
    if metric.get("object") is not None:
        source = metric["object"]
        target = {"type": "Value" if source.get("averageValue") is None else "AverageValue",
                  "value": source.get("targetValue") or "0"}
        _copy(target, "averageValue", source, "averageValue")
        out["object"] = {"describedObject": _reference(source.get("target") or {}),
                         "metric": _identifier(source, "selector"), "target": target}
    if metric.get("pods") is not None:
        source = metric["pods"]
        out["pods"] = {"metric": _identifier(source, "selector"),
                       "target": {"type": "AverageValue", "averageValue": source.get("targetAverageValue") or "0"}}
    for key in ("resource", "containerResource"):
        if metric.get(key) is not None:
            source = metric[key]
            utilization = source.get("targetAverageUtilization")
            target = {"type": "AverageValue" if utilization is None else "Utilization"}
            _copy(target, "averageValue", source, "targetAverageValue")
            _copy(target, "averageUtilization", source, "targetAverageUtilization")
            v2 = {"name": source.get("name", "")}
            if key == "containerResource":
                v2["container"] = source.get("container", "")
            v2["target"] = target
            out[key] = v2
    if metric.get("external") is not None:
        source = metric["external"]
        target = {"type": "AverageValue" if source.get("targetValue") is None else "Value"}
        _copy(target, "value", source, "targetValue")
        _copy(target, "averageValue", source, "targetAverageValue")
        out["external"] = {"metric": _identifier(source, "metricSelector"), "target": target}
    return out


def _metric_status_to_v2(metric: dict) -> dict:
    out = {"type": metric.get("type", "")}
    if metric.get("object") is not None:
        source = metric["object"]
        current = {"value": source.get("currentValue") or "0"}
        _copy(current, "averageValue", source, "averageValue")
        out["object"] = {"metric": _identifier(source, "selector"), "current": current,
                         "describedObject": _reference(source.get("target") or {})}
    if metric.get("pods") is not None:
        source = metric["pods"]
        out["pods"] = {"metric": _identifier(source, "selector"),
                       "current": {"averageValue": source.get("currentAverageValue") or "0"}}
    for key in ("resource", "containerResource"):
        if metric.get(key) is not None:
            source = metric[key]
            current = {"averageValue": source.get("currentAverageValue") or "0"}
            _copy(current, "averageUtilization", source, "currentAverageUtilization")
            v2 = {"name": source.get("name", "")}
            if key == "containerResource":
                v2["container"] = source.get("container", "")
            v2["current"] = current
            out[key] = v2
    if metric.get("external") is not None:
        source = metric["external"]
        current = {"value": source.get("currentValue") or "0"}
        _copy(current, "averageValue", source, "currentAverageValue")
        out["external"] = {"metric": _identifier(source, "metricSelector"), "current": current}
    return out


# -- helpers -----------------------------------------------------------------------------------------------


def _is_cpu(metric) -> bool:
    return (isinstance(metric, dict) and metric.get("type") == "Resource"
            and isinstance(metric.get("resource"), dict) and metric["resource"].get("name") == "cpu")


def _is_cpu_utilization(metric) -> bool:
    return _is_cpu(metric) and _target(metric).get("averageUtilization") is not None


def _target(metric: dict) -> dict:
    target = (metric.get("resource") or {}).get("target")
    return target if isinstance(target, dict) else {}


def _reference(ref) -> dict:
    ref = ref if isinstance(ref, dict) else {}
    out = {"kind": ref.get("kind", ""), "name": ref.get("name", "")}
    _copy(out, "apiVersion", ref, "apiVersion")
    return out


def _metric_name(source: dict) -> str:
    return (source.get("metric") or {}).get("name", "")


def _identifier(source: dict, selector_key: str) -> dict:
    out = {"name": source.get("metricName", "")}
    _copy(out, "selector", source, selector_key)
    return out


def _copy(out: dict, out_key: str, source: dict, key: str) -> None:
    if isinstance(source, dict) and source.get(key) is not None:
        out[out_key] = source[key]


def _without_round_trip(annotations) -> dict:
    if not isinstance(annotations, dict):
        return {}
    return {k: v for k, v in annotations.items() if k not in _ROUND_TRIP_ANNOTATIONS}


def _with_annotations(meta: dict, annotations: dict) -> dict:
    """metadata with `annotations` replacing the old ones, in ObjectMeta's field order."""
    out: dict = {}
    placed = False
    for key, value in meta.items():
        if key == "annotations":
            if annotations:
                out[key] = annotations
            placed = True
        elif key in ("ownerReferences", "finalizers", "managedFields") and not placed:
            if annotations:
                out["annotations"] = annotations
            placed = True
            out[key] = value
        else:
            out[key] = value
    if not placed and annotations:
        out["annotations"] = annotations
    return out


def _annotation_list(annotations: dict, key: str) -> list:
    from kubelite.server import errors

    text = annotations.get(key)
    if text is None:
        return []
    try:
        value = json.loads(text)
    except ValueError as err:
        raise errors.bad_request(f"annotation {key}: {err}") from None
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise errors.bad_request(f"annotation {key}: expected a JSON list of objects")
    return value


def _go_json(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
