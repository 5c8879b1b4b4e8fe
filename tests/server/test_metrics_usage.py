"""The simulated usage rule behind metrics.k8s.io (src/kubelite/server/metrics.py)."""
from kubelite.server import metrics

TS = "2026-01-01T00:00:00Z"


def _pod(name, containers, annotations=None, phase="Running", node="node-1", labels=None):
    return {"metadata": {"name": name, "namespace": "default", "annotations": annotations or {},
                         "labels": labels or {}},
            "spec": {"nodeName": node, "containers": containers},
            "status": {"phase": phase}}


def _container(name, cpu=None, memory=None):
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    return {"name": name, "resources": {"requests": requests} if requests else {}}


def test_usage_is_steered_by_the_annotations_in_metrics_server_units():
    pod = _pod("web", [_container("app", cpu="100m", memory="32Mi")], labels={"app": "web"},
               annotations={metrics.CPU_ANNOTATION: "250m", metrics.MEMORY_ANNOTATION: "64Mi"})
    got = metrics.pod_metrics(pod, TS)
    assert got["containers"] == [{"name": "app", "usage": {"cpu": "250m", "memory": "64Mi"}}]
    assert got["metadata"] == {"name": "web", "namespace": "default", "creationTimestamp": TS,
                               "labels": {"app": "web"}}
    assert (got["kind"], got["timestamp"], got["window"]) == ("PodMetrics", TS, "10s")


def test_a_container_left_alone_is_idle_whatever_it_requests():
    got = metrics.pod_metrics(_pod("bare", [_container("c"), _container("d", cpu="2", memory="1Gi")]), TS)
    assert [c["usage"] for c in got["containers"]] == [{"cpu": "1m", "memory": "4Mi"}] * 2


def test_annotations_steer_usage_split_over_containers():
    pod = _pod("hot", [_container("a", cpu="100m"), _container("b", cpu="100m")],
               annotations={metrics.CPU_ANNOTATION: "1", metrics.MEMORY_ANNOTATION: "128Mi"})
    usages = [c["usage"] for c in metrics.pod_metrics(pod, TS)["containers"]]
    assert usages == [{"cpu": "500m", "memory": "64Mi"}] * 2


def test_node_sums_its_running_pods_only():
    node = {"metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}}}
    pods = [_pod("a", [_container("c")], annotations={metrics.CPU_ANNOTATION: "100m", metrics.MEMORY_ANNOTATION: "10Mi"}),
            _pod("b", [_container("c")], annotations={metrics.CPU_ANNOTATION: "200m", metrics.MEMORY_ANNOTATION: "20Mi"}),
            _pod("pending", [_container("c", cpu="1", memory="1Gi")], phase="Pending"),
            _pod("elsewhere", [_container("c", cpu="1", memory="1Gi")], node="node-2")]
    got = metrics.node_metrics(node, pods, TS)
    assert got["usage"] == {"cpu": "300m", "memory": "30Mi"}
    assert "namespace" not in got["metadata"] and got["kind"] == "NodeMetrics"
    assert not metrics.is_running(pods[2])


def test_figures_that_are_not_round_keep_nanocores_and_kibibytes():
    # Go's Quantity canonical form: trailing zeros fold into the next suffix, others stay.
    assert metrics.format_usage("cpu", metrics.quantity_value("1500001n")) == "1500001n"
    assert metrics.format_usage("memory", metrics.quantity_value("1025Ki")) == "1025Ki"
    assert metrics.format_usage("memory", metrics.quantity_value("1000")) == "1Ki"  # rounded up to a page
    assert metrics.format_usage("cpu", metrics.quantity_value("0")) == "0"
