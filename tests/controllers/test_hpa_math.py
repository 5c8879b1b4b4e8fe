"""HPA arithmetic (src/kubelite/server/controllers/hpa_math.py), with the figures and rules of
kube-controller-manager 1.32's podautoscaler (milli-units, Go float64 ratios)."""
import pytest

from kubelite.server.controllers import hpa_math


def test_utilization_truncates_percent_of_requests():
    # two pods using 250m each of 100m requested: 250%, average 250m
    assert hpa_math.utilization_ratio({"a": 250, "b": 250}, {"a": 100, "b": 100}, 50) == (5.0, 250, 250)
    assert hpa_math.utilization_ratio({"a": 333}, {"a": 1000}, 50)[1] == 33
    # a metric of a pod without a request is left out; none left is an error
    assert hpa_math.utilization_ratio({"a": 100, "x": 900}, {"a": 200}, 50)[1] == 50
    with pytest.raises(ValueError, match="no metrics returned matched known pods"):
        hpa_math.utilization_ratio({"a": 100}, {}, 50)


def test_ratio_within_tolerance_keeps_replicas():
    assert hpa_math.replicas_for_ratio(3, 3, 1.1) == 3
    assert hpa_math.replicas_for_ratio(3, 3, 0.9) == 3
    assert hpa_math.replicas_for_ratio(3, 3, 110 / 100) == 3


def test_ratio_outside_tolerance_rounds_up_as_floats_do():
    assert hpa_math.replicas_for_ratio(2, 2, 250 / 50) == 10
    assert hpa_math.replicas_for_ratio(4, 4, 0.2) == 1
    # 145% of a 35% target over 7 pods: Go's float64 product is 29.000000000000004, so 30 pods
    assert hpa_math.replicas_for_ratio(7, 7, 145 / 35) == 30


def test_rules_name_the_limit():
    assert hpa_math.apply_rules(1, 12, 1, 5) == (4, "ScaleUpLimit",
                                                 "the desired replica count is increasing faster than the maximum "
                                                 "scale rate")
    assert hpa_math.apply_rules(3, 12, 1, 5)[:2] == (5, "TooManyReplicas")
    assert hpa_math.apply_rules(3, 0, 1, 5)[:2] == (1, "TooFewReplicas")
    assert hpa_math.apply_rules(3, 4, 1, 5)[:2] == (4, "DesiredWithinRange")


def test_scale_down_waits_for_the_window():
    history = hpa_math.Recommendations(5, 0.0)
    assert history.stabilize(3, 100.0) == 5
    assert history.stabilize(1, 200.0) == 5
    assert history.stabilize(1, 300.0) == 5  # a sample exactly one window old still counts
    assert history.stabilize(1, 350.0) == 3
    assert history.stabilize(1, 401.0) == 1
    assert history.stabilize(8, 402.0) == 8
    assert history.samples[0] == [1, 350.0]  # a sample out of the window is reused in place


def test_behavior_policies_limit_the_rate():
    ups, downs = hpa_math.ScaleEvents(), hpa_math.ScaleEvents()
    behavior = {"scaleUp": {"selectPolicy": "Max", "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                                                                {"type": "Percent", "value": 100,
                                                                 "periodSeconds": 15}]},
                "scaleDown": {"selectPolicy": "Max", "policies": [{"type": "Pods", "value": 1,
                                                                   "periodSeconds": 60}]}}
    assert hpa_math.apply_behavior_rate(2, 20, 1, 30, ups, downs, behavior, 0.0)[:2] == (6, "ScaleUpLimit")
    assert hpa_math.apply_behavior_rate(10, 2, 1, 30, ups, downs, behavior, 0.0)[:2] == (9, "ScaleDownLimit")
    downs.store(1, 0.0, 60.0)
    # one pod already removed within the period: no more until it ends
    assert hpa_math.apply_behavior_rate(9, 2, 1, 30, ups, downs, behavior, 30.0)[0] == 9
    assert hpa_math.apply_behavior_rate(9, 2, 1, 30, ups, downs, behavior, 61.0)[0] == 8
    disabled = {"scaleUp": {"selectPolicy": "Disabled", "policies": []}}
    assert hpa_math.apply_behavior_rate(2, 5, 1, 30, ups, downs, disabled, 0.0)[:2] == (2, "ScaleUpLimit")
