"""The HorizontalPodAutoscaler controller on a FakeClock cluster: an nginx Deployment autoscaled as
`kubelite autoscale` makes the HPA (autoscaling/v1, stored as v2), its pods' CPU steered with the
sim.kubelite.io/cpu annotation; reconciles every 15 s of the cluster clock, scales up at once, down
only after the 300 s stabilization window, with the upstream status, conditions and Events."""
from __future__ import annotations

from kubelite.imperative.autoscale import create_hpa
from kubelite.server.metrics import CPU_ANNOTATION, MEMORY_ANNOTATION

NS = "default"
HPAS_V2 = f"/apis/autoscaling/v2/namespaces/{NS}/horizontalpodautoscalers"
MERGE = {"content-type": "application/merge-patch+json"}


def _deployment(api, replicas=1, requests=None, name="nginx"):
    requests = {"cpu": "100m"} if requests is None else requests
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "nginx", "image": "nginx",
                                                           "resources": {"requests": requests}}]}}}}
    assert api.post(f"/apis/apps/v1/namespaces/{NS}/deployments", json=body).status_code == 201


def _autoscale(cluster, api, cpu_percent=50, minimum=1, maximum=5, target="nginx"):
    """The HPA `kubelite autoscale deployment/TARGET` creates; settled, so its first period starts now."""
    hpa = create_hpa(target, "apps/v1", "Deployment", max_replicas=maximum, min_replicas=minimum,
                     cpu_percent=cpu_percent)
    r = api.post(f"/apis/autoscaling/v1/namespaces/{NS}/horizontalpodautoscalers", json=hpa)
    assert r.status_code == 201, r.text
    assert cluster.settle()


def _steer(api, annotation, value, app="nginx"):
    """Every pod of the app reports this usage from now on."""
    for pod in api.get(f"/api/v1/namespaces/{NS}/pods", params={"labelSelector": f"app={app}"}).json()["items"]:
        api.patch(f"/api/v1/namespaces/{NS}/pods/{pod['metadata']['name']}", headers=MERGE,
                  json={"metadata": {"annotations": {annotation: value}}})


def _hpa(api, name="nginx"):
    return api.get(f"{HPAS_V2}/{name}").json()


def _replicas(api, name="nginx"):
    return api.get(f"/apis/apps/v1/namespaces/{NS}/deployments/{name}").json()["spec"]["replicas"]


def _conditions(hpa):
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in hpa["status"].get("conditions") or []}


def _events(api, reason=None):
    return [(e["type"], e["reason"], e["message"], e["source"].get("component"))
            for e in api.get(f"/api/v1/namespaces/{NS}/events").json()["items"]
            if e["involvedObject"]["kind"] == "HorizontalPodAutoscaler" and reason in (None, e["reason"])]


def test_scales_up_at_once_and_down_after_the_window(cluster, api):
    _deployment(api)
    assert cluster.settle()
    _steer(api, CPU_ANNOTATION, "30m")  # 30% of the request, below the 50% target
    _autoscale(cluster, api)
    # nothing happens before the first period, as the real controller's rate-limited queue
    assert _hpa(api)["status"] == {"currentMetrics": None, "desiredReplicas": 0}
    cluster.advance(15)
    hpa = _hpa(api)
    assert hpa["status"]["currentReplicas"] == 1 and hpa["status"]["desiredReplicas"] == 1
    assert hpa["status"]["currentMetrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "current": {"averageValue": "30m", "averageUtilization": 30}}}]
    assert _conditions(hpa)["AbleToScale"] == ("True", "ReadyForNewScale", "recommended size matches current size")
    assert "lastScaleTime" not in hpa["status"]

    _steer(api, CPU_ANNOTATION, "200m")  # 200% of the request: 4x the target
    cluster.advance(15)
    assert _replicas(api) == 4  # ceil(200/50 x 1) = 4, the scale-up limit max(2 x 1, 4)
    hpa = _hpa(api)
    assert hpa["status"]["lastScaleTime"] == cluster.clock.rfc3339()
    assert _conditions(hpa) == {
        "AbleToScale": ("True", "SucceededRescale", "the HPA controller was able to update the target scale to 4"),
        "ScalingActive": ("True", "ValidMetricFound", "the HPA was able to successfully calculate a replica count "
                                                      "from cpu resource utilization (percentage of request)"),
        "ScalingLimited": ("False", "DesiredWithinRange", "the desired count is within the acceptable range")}
    assert _events(api) == [("Normal", "SuccessfulRescale", "New size: 4; reason: cpu resource utilization "
                                                            "(percentage of request) above target",
                             "horizontal-pod-autoscaler")]

    _steer(api, CPU_ANNOTATION, "10m")  # the load goes away: 10%
    for _ in range(19):  # 285 s: within the window the highest recommendation (4) holds
        cluster.advance(15)
        assert _replicas(api) == 4
    assert _conditions(_hpa(api))["AbleToScale"][1] == "ScaleDownStabilized"
    cluster.advance(15)
    cluster.advance(15)
    assert _replicas(api) == 1
    assert _events(api)[-1][1:3] == ("SuccessfulRescale", "New size: 1; reason: All metrics below target")


def test_within_tolerance_nothing_changes(cluster, api):
    _deployment(api, replicas=2)
    assert cluster.settle()
    _steer(api, CPU_ANNOTATION, "54m")  # 54% of a 50% target: ratio 1.08, within 10%
    _autoscale(cluster, api)
    cluster.advance(15)
    assert _replicas(api) == 2
    assert _hpa(api)["status"]["desiredReplicas"] == 2 and not _events(api)


def test_bounds_are_enforced_before_metrics(cluster, api):
    _deployment(api, replicas=1)
    assert cluster.settle()
    _autoscale(cluster, api, minimum=3, maximum=6)
    cluster.advance(15)
    assert _replicas(api) == 3
    assert _events(api)[0][2] == "New size: 3; reason: Current number of replicas below Spec.MinReplicas"
    api.patch(f"/apis/apps/v1/namespaces/{NS}/deployments/nginx/scale", headers=MERGE, json={"spec": {"replicas": 9}})
    cluster.advance(15)
    assert _replicas(api) == 6
    assert _events(api)[-1][2] == "New size: 6; reason: Current number of replicas above Spec.MaxReplicas"


def test_pods_without_requests_cannot_be_measured(cluster, api):
    _deployment(api, requests={})
    assert cluster.settle()
    _autoscale(cluster, api)
    cluster.advance(15)
    hpa = _hpa(api)
    pod = api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"][0]["metadata"]["name"]
    problem = f"failed to get cpu utilization: missing request for cpu in container nginx of Pod {pod}"
    assert _conditions(hpa)["ScalingActive"] == ("False", "FailedGetResourceMetric",
                                                 f"the HPA was unable to compute the replica count: {problem}")
    assert hpa["status"]["currentMetrics"] == [{"type": ""}]
    assert hpa["status"]["currentReplicas"] == 1 and hpa["status"]["desiredReplicas"] == 0
    assert ("Warning", "FailedGetResourceMetric", problem, "horizontal-pod-autoscaler") in _events(api)
    assert ("Warning", "FailedComputeMetricsReplicas",
            f"invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: "
            f"{problem}", "horizontal-pod-autoscaler") in _events(api)


def test_missing_target(cluster, api):
    _autoscale(cluster, api, target="nowhere")
    cluster.advance(15)
    assert _conditions(_hpa(api, "nowhere")) == {"AbleToScale": (
        "False", "FailedGetScale",
        'the HPA controller was unable to get the target\'s current scale: deployments/scale.apps "nowhere" not found')}
    assert _events(api, "FailedGetScale")[0][2] == 'deployments/scale.apps "nowhere" not found'


def test_scaled_to_zero_disables_scaling(cluster, api):
    _deployment(api, replicas=0)
    assert cluster.settle()
    _autoscale(cluster, api)
    cluster.advance(15)
    hpa = _hpa(api)
    assert _conditions(hpa)["ScalingActive"] == ("False", "ScalingDisabled",
                                                 "scaling is disabled since the replica count of the target is zero")
    assert _replicas(api) == 0 and hpa["status"]["desiredReplicas"] == 0


def test_v2_average_value_and_behavior_policies(cluster, api):
    _deployment(api, replicas=4, requests={"cpu": "100m", "memory": "64Mi"})
    assert cluster.settle()
    _steer(api, MEMORY_ANNOTATION, "16Mi")
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "nginx"},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"},
                    "minReplicas": 1, "maxReplicas": 10,
                    "metrics": [{"type": "Resource", "resource": {"name": "memory", "target": {
                        "type": "AverageValue", "averageValue": "32Mi"}}}],
                    "behavior": {"scaleDown": {"stabilizationWindowSeconds": 0,
                                               "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}}}
    assert api.post(HPAS_V2, json=hpa).status_code == 201
    assert cluster.settle()
    cluster.advance(15)
    # half the target per pod asks for 2 pods; the policy lets one go per minute
    assert _replicas(api) == 3
    status = _hpa(api)["status"]
    assert status["currentMetrics"][0]["resource"]["current"] == {"averageValue": "16777216"}
    assert _conditions(_hpa(api))["ScalingLimited"] == (
        "True", "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate")
    cluster.advance(15)
    assert _replicas(api) == 3
    for _ in range(3):
        cluster.advance(15)
    assert _replicas(api) == 2


def test_two_hpas_over_the_same_pods_both_stop(cluster, api):
    _deployment(api, replicas=2)
    assert cluster.settle()
    _steer(api, CPU_ANNOTATION, "50m")  # neither HPA would change anything on its first pass
    _autoscale(cluster, api)
    hpa = create_hpa("nginx", "apps/v1", "Deployment", max_replicas=4, cpu_percent=80, name="second")
    assert api.post(f"/apis/autoscaling/v1/namespaces/{NS}/horizontalpodautoscalers", json=hpa).status_code == 201
    assert cluster.settle()
    cluster.advance(15)
    cluster.advance(15)  # each has read its target's selector once: now both see the other
    message = "pods by selector app=nginx are controlled by multiple HPAs: [default/nginx default/second]"
    for name in ("nginx", "second"):
        assert _conditions(_hpa(api, name))["ScalingActive"] == ("False", "AmbiguousSelector", message)
    assert ("Warning", "FailedComputeMetricsReplicas", message, "horizontal-pod-autoscaler") in _events(api)
    assert _replicas(api) == 2


def test_a_new_process_catches_up_at_once(tmp_path):
    """As each command of the embedded cluster: the HPA made by an earlier process, a period ago,
    is reconciled as soon as this one settles."""
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    store = str(tmp_path / "state.db")
    with Cluster(store, clock=FakeClock(1_767_225_600)) as first, first.http_client() as api:
        _deployment(api)
        _autoscale(first, api)
        _steer(api, CPU_ANNOTATION, "100m")
        assert _hpa(api)["status"]["desiredReplicas"] == 0
    with Cluster(store, clock=FakeClock(1_767_225_600 + 20)) as second, second.http_client() as api:
        assert second.settle()
        assert _hpa(api)["status"]["desiredReplicas"] == 2  # 100% of the request against 50%
        assert _replicas(api) == 2
