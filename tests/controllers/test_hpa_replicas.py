"""The HPA's replica calculator (src/kubelite/server/controllers/hpa_replicas.py): which pods count,
and how pods without figures or still starting change the proposal, as kube-controller-manager's
replica calculator decides."""
import pytest

from kubelite.server.clock import format_time
from kubelite.server.controllers import hpa_replicas
from kubelite.server.controllers.hpa_replicas import MetricsError, Sample

NOW = 1_767_225_600.0


def ts(t: float) -> str:
    import datetime

    return format_time(datetime.datetime.fromtimestamp(t, datetime.timezone.utc))


def _pod(name, phase="Running", ready_since=NOW - 600, started=NOW - 600, cpu="100m", deleting=False):
    status = {"phase": phase}
    if started is not None:
        status["startTime"] = ts(started)
    if ready_since is not None:
        status["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": ts(ready_since)}]
    meta = {"name": name}
    if deleting:
        meta["deletionTimestamp"] = ts(NOW)
    requests = {"requests": {"cpu": cpu}} if cpu else {}
    return {"metadata": meta, "status": status, "spec": {"containers": [{"name": "c", "resources": requests}]}}


def _samples(**values):
    return {name: Sample(value, NOW) for name, value in values.items()}


def test_pods_are_grouped_as_upstream():
    pods = [_pod("ok"), _pod("pending", phase="Pending"), _pod("failed", phase="Failed"),
            _pod("gone", deleting=True), _pod("quiet"), _pod("fresh", ready_since=NOW - 5, started=NOW - 20)]
    ready, unready, missing, ignored = hpa_replicas.group_pods(
        pods, _samples(ok=100, fresh=100, failed=1, gone=1), "cpu", NOW)
    assert (ready, unready, missing, ignored) == (1, {"pending", "fresh"}, {"quiet"}, {"failed", "gone"})
    # memory does not wait for readiness
    assert hpa_replicas.group_pods([_pod("fresh", ready_since=NOW - 5)], _samples(fresh=1), "memory", NOW)[0] == 1


def test_missing_pods_count_as_using_their_request_on_a_scale_down():
    pods = [_pod("a"), _pod("b"), _pod("c")]
    # a and b at 10% of a 50% target; c has no figures: counted at its request, the average is
    # 40% over 3 pods, and ceil(0.8 x 3) keeps 3
    assert hpa_replicas.utilization_replicas(3, 50, "cpu", "", pods, _samples(a=10, b=10), NOW) == (3, 10, 10)
    # alone, a and b would ask for ceil(0.2 x 2) = 1 pod
    assert hpa_replicas.utilization_replicas(2, 50, "cpu", "", pods[:2], _samples(a=10, b=10), NOW)[0] == 1


def test_unready_pods_count_as_idle_on_a_scale_up():
    pods = [_pod("a"), _pod("b", phase="Pending")]
    # a at 200% of 50%: ratio 4; with b at 0 the ratio is 2 over 2 pods: 4 replicas, not 4 x 1
    replicas, percent, raw = hpa_replicas.utilization_replicas(2, 50, "cpu", "", pods, _samples(a=200), NOW)
    assert (replicas, percent, raw) == (4, 200, 200)


def test_errors_carry_the_controllers_words():
    with pytest.raises(MetricsError, match="missing request for cpu in container c of Pod a"):
        hpa_replicas.utilization_replicas(1, 50, "cpu", "", [_pod("a", cpu=None)], _samples(a=10), NOW)
    with pytest.raises(MetricsError, match=r"did not receive metrics for targeted pods \(pods might be unready\)"):
        hpa_replicas.utilization_replicas(1, 50, "cpu", "", [_pod("a", phase="Pending")], _samples(a=10), NOW)
    with pytest.raises(MetricsError, match="no metrics returned from resource metrics API"):
        hpa_replicas.fetch([_pod("a", phase="Pending")], "cpu", "", NOW, ts(NOW))
