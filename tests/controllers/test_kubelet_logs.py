"""pods/log of the simulated kubelet: what a container prints (annotations, echo commands), the log
options (tail, since, timestamps, limit) on the cluster's clock, and the kubelet's and API server's
errors; exec/attach/portforward refused as by an unreachable kubelet."""
from __future__ import annotations

import pytest

from kubelite.server.podlogs import kubelet_timestamp, log_text
from tests.controllers.sim_support import pod

NS = "/api/v1/namespaces/default/pods"


def _run(cluster, api, body):
    assert api.post(NS, json=body).status_code == 201
    assert cluster.settle()


@pytest.mark.parametrize("container, text", [
    ({"name": "c", "command": ["echo", "hello", "world"]}, "hello world\n"),
    ({"name": "c", "command": ["/bin/echo"], "args": ["-n", "no newline"]}, "no newline"),
    ({"name": "c", "command": ["sh", "-c", "echo 'one two'; echo three && echo four"]}, "one two\nthree\nfour\n"),
    ({"name": "c", "command": ["sh", "-c", "echo ready; exec nginx"]}, "ready\n"),
    ({"name": "c", "command": ["nginx", "-g", "daemon off;"]}, ""),
    ({"name": "c"}, ""),
])
def test_what_a_container_prints(container, text):
    assert log_text({"metadata": {}}, container) == text


def test_annotations_win_over_commands():
    meta = {"annotations": {"sim.kubelite.io/log": "all\nof them", "sim.kubelite.io/log.b": "only b"}}
    assert log_text({"metadata": meta}, {"name": "a", "command": ["echo", "x"]}) == "all\nof them\n"
    assert log_text({"metadata": meta}, {"name": "b"}) == "only b\n"


def test_log_options(cluster, api):
    annotated = pod("web", metadata={"annotations": {"sim.kubelite.io/log": "l1\nl2\nl3"}})
    _run(cluster, api, annotated)
    log = f"{NS}/web/log"
    assert api.get(log).text == "l1\nl2\nl3\n"
    assert api.get(log, params={"tailLines": "2"}).text == "l2\nl3\n"
    assert api.get(log, params={"limitBytes": "4"}).text == "l1\nl"
    started = api.get(f"{NS}/web").json()["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
    stamped = api.get(log, params={"timestamps": "true"}).text.splitlines()
    assert stamped[0] == f"{started[:-1]}.000000000Z l1" and stamped[2].endswith(".000000002Z l3")
    cluster.advance(30)
    assert api.get(log, params={"sinceSeconds": "60"}).text == "l1\nl2\nl3\n"
    assert api.get(log, params={"sinceSeconds": "10"}).text == ""
    assert api.get(log, params={"sinceTime": started}).text == "l1\nl2\nl3\n"


@pytest.mark.parametrize("params, code, message", [
    ({"tailLines": "-1"}, 422, 'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than '
                               'or equal to 0'),
    ({"sinceSeconds": "0"}, 422, 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater '
                                 'than 0'),
    ({"previous": "true"}, 400, 'previous terminated container "c" in pod "web" not found'),
    ({"container": "zz"}, 400, "container zz is not valid for pod web"),
])
def test_log_errors(cluster, api, params, code, message):
    _run(cluster, api, pod("web"))
    got = api.get(f"{NS}/web/log", params=params)
    assert (got.status_code, got.json()["message"]) == (code, message)


def test_several_containers_need_a_name(cluster, api):
    _run(cluster, api, pod("two", containers=[{"name": "a", "image": "x"}, {"name": "b", "image": "x"}],
                           initContainers=[{"name": "i", "image": "x"}]))
    got = api.get(f"{NS}/two/log")
    assert got.json()["message"] == "a container name must be specified for pod two, choose one of: [i a b]"


def test_pending_and_unreachable_pods(cluster, api):
    _run(cluster, api, pod("pending", nodeSelector={"no": "such"}))
    assert api.get(f"{NS}/pending/log").status_code == 204  # no node: nothing to read
    _run(cluster, api, pod("lost", nodeName="node-zz"))
    assert api.get(f"{NS}/lost/log").json()["message"] == 'nodes "node-zz" not found'


def test_streams_fail_as_with_an_unreachable_kubelet(cluster, api):
    _run(cluster, api, pod("web"))
    upgrade = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1"}
    for sub in ("exec?command=ls", "attach", "portforward?ports=80"):
        got = api.post(f"{NS}/web/{sub}", headers=upgrade)
        assert (got.status_code, got.json()["message"]) == (
            500, "error dialing backend: dial tcp 127.0.0.1:10250: connect: connection refused")
        got = api.post(f"{NS}/web/{sub}")  # not an upgrade: refused before any dial
        assert (got.status_code, got.json()["message"]) == (400, "Upgrade request required")
    _run(cluster, api, pod("pending", nodeSelector={"no": "such"}))
    got = api.post(f"{NS}/pending/exec?command=ls")
    assert (got.status_code, got.json()["message"]) == (400, "pod pending does not have a host assigned")


def test_kubelet_timestamps_have_nine_digits():
    assert kubelet_timestamp(0, 5) == "1970-01-01T00:00:00.000000005Z"


def test_ephemeral_containers_are_added_and_started(cluster, api):
    _run(cluster, api, pod("web"))
    sub = f"{NS}/web/ephemeralcontainers"
    debugger = {"name": "debugger", "image": "busybox:1.36", "stdin": True}
    patch = api.patch(sub, json={"spec": {"ephemeralContainers": [debugger]}},
                      headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert patch.status_code == 200, patch.text
    assert patch.json()["spec"]["ephemeralContainers"][0]["terminationMessagePolicy"] == "File"
    cluster.settle()
    got = api.get(sub).json()
    (status,) = got["status"]["ephemeralContainerStatuses"]
    assert status["name"] == "debugger" and "running" in status["state"]
    changed = api.put(sub, json={"spec": {"ephemeralContainers": [{**debugger, "image": "other"}]}})
    assert changed.status_code == 422
    assert api.get(f"{NS}/web/log", params={"container": "debugger"}).text == ""
