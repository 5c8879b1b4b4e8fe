"""Cell rules of server-side Tables outside what the recorded cluster showed (no controllers
ran there: every pod was Pending, every status empty).

Expected values follow kube-apiserver 1.32's printers and apimachinery's HumanDuration, as
documented by their behaviour: e.g. `kubectl get pods` shows `1/1 Running 3 (5m ago)` for a
restarted container, `Completed` for a finished one, `Init:1/2` while init containers run.
"""
from __future__ import annotations

import datetime

import pytest

from kubelite.server.tables import TableError, build_table, human_duration

NOW = datetime.datetime(2026, 1, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)
PODS = {"group": "", "resource": "pods", "kind": "Pod", "version": "v1"}


@pytest.mark.parametrize("seconds,text", [
    (-2, "<invalid>"), (-1.5, "0s"), (-0.5, "0s"), (0, "0s"), (59, "59s"), (119, "119s"),
    (120, "2m"), (121, "2m1s"), (599, "9m59s"), (600, "10m"), (3 * 3600 - 1, "179m"),
    (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"), (8 * 3600 - 1, "7h59m"), (8 * 3600, "8h"),
    (48 * 3600 - 1, "47h"), (48 * 3600, "2d"), (50 * 3600, "2d2h"), (8 * 86400 - 1, "7d23h"),
    (8 * 86400, "8d"), (730 * 86400 - 1, "729d"), (730 * 86400, "2y"), (770 * 86400, "2y40d"),
    (8 * 365 * 86400, "8y"), (20 * 365 * 86400, "20y"),
])
def test_human_duration(seconds, text):
    assert human_duration(seconds) == text


def _pod(status=None, spec=None, **meta):
    metadata = {"name": "p", "namespace": "default", "creationTimestamp": "2026-01-01T11:00:00Z", **meta}
    return {"metadata": metadata, "spec": {"containers": [{"name": "c", "image": "nginx"}], **(spec or {})},
            "status": status or {}}


def _cells(obj, info=PODS):
    return build_table(info, [obj], now=NOW)["rows"][0]["cells"]


def test_running_pod_with_restarts_shows_last_restart_age():
    pod = _pod({"phase": "Running", "podIPs": [{"ip": "10.1.2.3"}], "containerStatuses": [{
        "name": "c", "ready": True, "restartCount": 3, "state": {"running": {}},
        "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T11:55:00Z"}}}]},
        {"nodeName": "n1"})
    assert _cells(pod) == ["p", "1/1", "Running", "3 (5m ago)", "60m", "10.1.2.3", "n1", "<none>", "<none>"]


def test_completed_pod_row_has_completed_condition():
    pod = _pod({"phase": "Succeeded", "containerStatuses": [{
        "name": "c", "ready": False, "restartCount": 0,
        "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]})
    row = build_table(PODS, [pod], now=NOW)["rows"][0]
    assert row["cells"][1:4] == ["0/1", "Completed", "0"]
    assert row["conditions"] == [{"type": "Completed", "status": "True", "reason": "Succeeded",
                                  "message": "The pod has completed successfully."}]


def test_waiting_reason_and_init_progress():
    crash = _pod({"phase": "Running", "containerStatuses": [{
        "name": "c", "restartCount": 7, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]})
    assert _cells(crash)[2:4] == ["CrashLoopBackOff", "7"]
    init = _pod({"phase": "Pending", "initContainerStatuses": [
        {"name": "i1", "state": {"terminated": {"exitCode": 0}}},
        {"name": "i2", "state": {"running": {}}}]},
        {"initContainers": [{"name": "i1"}, {"name": "i2"}]})
    assert _cells(init)[2] == "Init:1/2"


def test_deleting_pod_is_terminating_and_readiness_gates_count():
    pod = _pod({"phase": "Running", "conditions": [{"type": "www.example.com/gate", "status": "True"}]},
               {"readinessGates": [{"conditionType": "www.example.com/gate"},
                                   {"conditionType": "other"}]},
               deletionTimestamp="2026-01-01T12:00:30Z")
    cells = _cells(pod)
    assert cells[2] == "Terminating"
    assert cells[-1] == "1/2"


def test_service_load_balancer_ingress_and_external_ips():
    svc = {"metadata": {"name": "s", "creationTimestamp": "2026-01-01T11:59:00Z"},
           "spec": {"type": "LoadBalancer", "clusterIPs": ["10.0.0.9"], "externalIPs": ["192.0.2.1"],
                    "ports": [{"port": 80, "nodePort": 30001, "protocol": "TCP"}]},
           "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}, {"ip": "198.51.100.7"}]}}}
    cells = _cells(svc, {"group": "", "resource": "services"})
    assert cells == ["s", "LoadBalancer", "10.0.0.9", "198.51.100.7,lb.example.com,192.0.2.1",
                     "80:30001/TCP", "60s", "<none>"]


def test_job_complete_with_duration():
    job = {"metadata": {"name": "j", "creationTimestamp": "2026-01-01T11:00:00Z"},
           "spec": {"completions": 3, "template": {"spec": {"containers": [{"name": "c", "image": "b"}]}},
                    "selector": {"matchLabels": {"x": "y"}}},
           "status": {"succeeded": 3, "startTime": "2026-01-01T11:00:05Z",
                      "completionTime": "2026-01-01T11:02:10Z",
                      "conditions": [{"type": "Complete", "status": "True"}]}}
    assert _cells(job, {"group": "batch", "resource": "jobs"}) == [
        "j", "Complete", "3/3", "2m5s", "60m", "c", "b", "x=y"]


def test_node_printer():
    node = {"metadata": {"name": "n", "creationTimestamp": "2025-12-30T12:00:00Z",
                         "labels": {"node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "edge"}},
            "spec": {"unschedulable": True},
            "status": {"conditions": [{"type": "Ready", "status": "False"}],
                       "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}],
                       "nodeInfo": {"kubeletVersion": "v1.32.0", "osImage": "Linux"}}}
    table = build_table({"group": "", "resource": "nodes"}, [node], now=NOW)
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image",
        "Kernel-Version", "Container-Runtime"]
    assert table["rows"][0]["cells"] == ["n", "NotReady,SchedulingDisabled", "control-plane,edge", "2d",
                                         "v1.32.0", "10.0.0.5", "<none>", "Linux", "<unknown>", "<unknown>"]


def test_custom_resource_cells_follow_column_types():
    info = {"group": "ex.com", "resource": "things", "crd": "things.ex.com", "printer_columns": [
        {"name": "Count", "type": "integer", "jsonPath": ".spec.count"},
        {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio"},
        {"name": "On", "type": "boolean", "jsonPath": ".spec.on"},
        {"name": "Tags", "type": "string", "jsonPath": ".spec.tags"},
        {"name": "Seen", "type": "date", "jsonPath": ".status.seen"},
        {"name": "Bad", "type": "date", "jsonPath": ".spec.bad"},
        {"name": "Missing", "type": "string", "jsonPath": ".spec.nothing", "priority": 1},
    ]}
    obj = {"metadata": {"name": "t"}, "spec": {"count": 2.9, "ratio": 0.5, "on": "yes", "tags": ["a", "b"],
                                                "bad": "yesterday"},
           "status": {"seen": "2026-01-01T11:58:00Z"}}
    table = build_table(info, [obj], now=NOW)
    assert table["rows"][0]["cells"] == ["t", 2, 0.5, None, '["a","b"]', "2m", "<invalid>", None]
    assert table["columnDefinitions"][-1]["priority"] == 1
    assert table["columnDefinitions"][1]["description"] == (
        "Custom resource definition column (in JSONPath format): .spec.count")


def test_kinds_without_printer_get_name_and_created_at():
    table = build_table({"group": "rbac.authorization.k8s.io", "resource": "roles"},
                        [{"metadata": {"name": "r", "creationTimestamp": "2026-01-01T10:00:00Z"}}], now=NOW)
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [("Name", "string"),
                                                                            ("Created At", "date")]
    assert table["rows"][0]["cells"] == ["r", "2026-01-01T10:00:00Z"]


def test_list_metadata_continue_and_remaining_count():
    table = build_table(PODS, [], list_meta={"resourceVersion": "7", "continue": "abc",
                                             "remainingItemCount": 4}, now=NOW)
    assert table["metadata"] == {"resourceVersion": "7", "continue": "abc", "remainingItemCount": 4}
    assert table["rows"] == []


def test_missing_creation_timestamp_is_unknown_age():
    assert _cells({"metadata": {"name": "x"}}, {"group": "", "resource": "configmaps"}) == ["x", 0, "<unknown>"]


@pytest.mark.parametrize("kwargs,objects,message", [
    ({"include_object": "Everything"}, [], "includeObject"),
    ({"table_version": "v2"}, [], "table_version"),
    ({}, ["not an object"], "objects[0]"),
    ({}, 42, "objects"),
])
def test_bad_arguments_raise_clear_errors(kwargs, objects, message):
    with pytest.raises(TableError, match=message.replace("[", r"\[")):
        build_table(PODS, objects, now=NOW, **kwargs)


def test_resource_info_attributes_are_accepted():
    class Info:
        group, version, resource, kind, crd, printer_columns = "apps", "v1", "statefulsets", "StatefulSet", None, ()

    table = build_table(Info(), [{"metadata": {"name": "s"}, "spec": {"replicas": 2}}], now=NOW)
    assert table["rows"][0]["cells"][:2] == ["s", "0/2"]


def test_each_builtin_printer_is_found_in_the_module_its_resource_names():
    # printers.table loads one module of printers per Table: its list of the workloads' resources
    # must be what printers.workloads builds, and none of printers.cluster's.
    from kubelite.server.printers import BUILTIN_PRINTERS, cluster, table, workloads

    assert set(workloads.PRINTERS) == table.WORKLOAD_RESOURCES
    assert not set(cluster.PRINTERS) & table.WORKLOAD_RESOURCES
    assert BUILTIN_PRINTERS == {**workloads.PRINTERS, **cluster.PRINTERS}
    for key, printer in BUILTIN_PRINTERS.items():
        assert table.printer_for({"group": key[0], "resource": key[1]}) is printer
