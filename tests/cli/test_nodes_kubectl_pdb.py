"""PodDisruptionBudgets: the disruption controller's status, and `drain` meeting a spent budget
(the eviction API answers 429; kubectl retries every 5 s until its --timeout), compared with
/usr/bin/kubectl against the same `kubelite serve`."""
from __future__ import annotations


import shutil
import sys

import pytest

from cli_support import CLI, KUBECTL, kubelite_argv

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "server"))
from test_serve_support import Served  # noqa: E402

from test_nodes_kubectl import SIDES, _compare, _fill, _report, _wait_running  # noqa: E402

pytestmark = pytest.mark.kubectl

OBJECTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {nodeName: N1, containers: [{name: c, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
"""
COMMANDS = ["get pdb web -o jsonpath={.status.disruptionsAllowed}/{.status.currentHealthy}/{.status.desiredHealthy}",
            "drain N1 --timeout=3s", "uncordon N1",
            "patch pdb web --type=merge -p '{\"spec\":{\"minAvailable\":1}}'"]


def test_drain_stops_at_the_disruption_budget(tmp_path):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    server = Served(tmp_path / "data", tmp_path / "kubeconfig", ("--nodes", "4")).start()
    try:
        kubectl = CLI(tmp_path, [KUBECTL, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(tmp_path / "c")])
        kubelite = CLI(tmp_path, kubelite_argv() + ["--kubeconfig", str(server.kubeconfig)])
        for side in SIDES.values():
            assert kubectl.run("create", "namespace", side["ns"]).returncode == 0
            made = kubectl.run("-n", side["ns"], "create", "-f", "-", stdin=_fill(OBJECTS, side))
            assert made.returncode == 0, made.stderr
            _wait_running(kubectl, side["ns"], 2)
            r = kubectl.run("-n", side["ns"], "wait", "pdb/web", "--for=jsonpath={.status.currentHealthy}=2",
                            "--timeout=30s")
            assert r.returncode == 0, r.stderr
        mismatches = _compare(kubectl, kubelite, COMMANDS, unordered=True)
        assert not mismatches, _report(mismatches)
        for side in SIDES.values():  # the budget now allows one disruption
            r = kubectl.run("-n", side["ns"], "wait", "pdb/web", "--for=jsonpath={.status.disruptionsAllowed}=1",
                            "--timeout=30s")
            assert r.returncode == 0, r.stderr
            status = kubectl.run("-n", side["ns"], "get", "pdb", "web", "-o",
                                 "jsonpath={.status.conditions[0].type}={.status.conditions[0].reason}")
            assert status.stdout == "DisruptionAllowed=SufficientPods"
    finally:
        server.stop()





def test_budget_status_and_evictions_in_process():
    """The controller's counts for a percentage maxUnavailable over a Deployment, an eviction
    spending one disruption, and the 429 once the budget is spent (fake clock, whole cluster)."""
    from kubelite.server.clock import FakeClock
    from kubelite.server.cluster import Cluster

    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
           "spec": {"maxUnavailable": "50%", "selector": {"matchLabels": {"app": "web"}}}}
    with Cluster("memory://", clock=FakeClock()) as cluster, cluster.http_client() as api:
        assert api.post("/apis/apps/v1/namespaces/default/deployments", json=deploy).is_success
        assert api.post("/apis/policy/v1/namespaces/default/poddisruptionbudgets", json=pdb).is_success
        cluster.advance(2)
        status = api.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/web").json()["status"]
        assert {k: status[k] for k in ("expectedPods", "desiredHealthy", "currentHealthy", "disruptionsAllowed")} == \
            {"expectedPods": 4, "desiredHealthy": 2, "currentHealthy": 4, "disruptionsAllowed": 2}
        assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == \
            [("DisruptionAllowed", "True", "SufficientPods")]
        pods = [p["metadata"]["name"] for p in api.get("/api/v1/namespaces/default/pods").json()["items"]]

        def evict(name):
            return api.post(f"/api/v1/namespaces/default/pods/{name}/eviction",
                            json={"apiVersion": "policy/v1", "kind": "Eviction",
                                  "metadata": {"name": name, "namespace": "default"}})
        assert evict(pods[0]).status_code == 201
        assert evict(pods[1]).status_code == 201
        denied = evict(pods[2])
        assert denied.status_code == 429
        body = denied.json()
        assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
        assert body["details"]["causes"][0]["reason"] == "DisruptionBudget"
        cluster.advance(2)  # the replacements run: the budget allows two disruptions again
        status = api.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/web").json()["status"]
        assert (status["currentHealthy"], status["disruptionsAllowed"]) == (4, 2)
