"""expose and autoscale on live objects: real kubectl and kubelite against one `kubelite serve`.

kubectl's autoscale creates through a typed client (protobuf bodies), so for autoscale the oracle
is `kubectl autoscale ... --dry-run=client` (which only reads the target); kubelite's live result is
then read back through kubectl. expose creates through the dynamic client and is compared live.
"""
import copy
import json
from pathlib import Path

import pytest

from imperative_support import kubelite, needs_kubectl, normalize, run_kubectl

pytestmark = [pytest.mark.kubectl, needs_kubectl]
TARGETS = Path(__file__).parent / "data" / "expose_targets.yaml"

DRY_RUN_CASES = [
    "expose deployment web", "expose deployment web -o yaml", "expose deploy/web --port=8080 --target-port=http",
    "expose deployment web --port=8080 --target-port=80 --type=NodePort --protocol=UDP -o json",
    "expose deployment web --selector=a=b,c=d --labels=x=y --external-ip=1.2.3.4 --type=LoadBalancer "
    "--load-balancer-ip=5.6.7.8 --session-affinity=ClientIP --cluster-ip=10.0.0.99 -o json",
    "expose deployment web --session-affinity=Sticky -o json",
    "expose deployment web --selector=bad -o json", "expose deployment web --port=abc -o json",
    "expose deployment noports", "expose deployment noports --cluster-ip=None -o json",
    "expose deployment noports --port=9 -o json", "expose deployment expr",
    "expose deployment expr --selector=app=e -o json",
    "expose pod mp -o json", "expose pod mp --protocol=TCP -o json", "expose pod mp --target-port=8080 -o json",
    "expose pod nolabels", "expose pod nolabels --selector=a=b -o json",
    "expose service svc1 -o json", "expose svc/svc1 --name=other -o yaml", "expose service noselector",
    "expose rc rc1 -o json", "expose replicaset rs1 -o json", "expose statefulset ss1", "expose configmap cm1",
    "expose deployment missing", "expose deployment web -n default -o json",
    "expose deployment web --overrides={\"spec\":{\"type\":\"NodePort\"}} -o json",
    "expose deployment web --overrides={\"metadata\":{\"labels\":{\"extra\":\"1\"}}} --override-type=strategic -o json",
    "expose deployment web --overrides=[{\"op\":\"add\",\"path\":\"/spec/type\",\"value\":\"NodePort\"}] "
    "--override-type=json -o json",
    "expose deployment web --overrides={} --override-type=bogus",
    "expose -f " + str(TARGETS) + " -o yaml",
    "expose deployment web pod mp",
    "autoscale deployment web --max=5 -o json", "autoscale deployment web --min=2 --max=5 --cpu-percent=80 -o json",
    "autoscale deploy/web --max=3 --name=h2 -o yaml", "autoscale rs rs1 --max=2", "autoscale rc rc1 --max=2 -o json",
    "autoscale statefulset ss1 --max=4 --cpu-percent=0 -o json", "autoscale pod mp --max=3",
    "autoscale deployment web", "autoscale deployment web --max=0", "autoscale deployment web --max=2 --min=3",
    "autoscale deployment web --max=x", "autoscale configmap cm1 --max=2", "autoscale deployment missing --max=2",
    "autoscale deployment web --max=2 -o name",
]

LIVE_EXPOSE = ["deployment web", "deployment web --port=8080 --target-port=80 --type=NodePort",
               "pod mp", "service svc1 --type=LoadBalancer", "rc rc1", "rs rs1 --cluster-ip=None",
               "deployment noports --cluster-ip=None"]


@pytest.fixture
def env(served_env):
    assert kubelite(["apply", "-f", str(TARGETS)])[0] == 0
    return served_env


def _kubectl(argv, env, tmp_path):
    p = run_kubectl(argv, env, cache_dir=tmp_path / "kc")
    return p.returncode, p.stdout, normalize(p.stderr)


def test_dry_run_objects_and_errors_match_kubectl(env, tmp_path):
    mismatches = []
    for case in DRY_RUN_CASES:
        argv = case.split(" ") + ["--dry-run=client"]
        expected = _kubectl(argv, env, tmp_path)
        got = kubelite(argv)
        if got != expected:
            mismatches.append((case, expected, got))
    for m in mismatches:
        print("MISMATCH", m)
    assert not mismatches, f"{len(mismatches)}/{len(DRY_RUN_CASES)}"


def _masked(obj: dict, name: str) -> dict:
    obj = copy.deepcopy(obj)
    meta = obj["metadata"]
    for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
        meta.pop(key, None)
    meta["name"] = name
    spec = obj.get("spec", {})
    if spec.get("clusterIP") not in (None, "None"):
        spec["clusterIP"] = spec["clusterIPs"] = "masked"
    for port in spec.get("ports") or []:
        if "nodePort" in port:
            port["nodePort"] = "masked"
    return obj


def test_live_expose_creates_the_same_services(env, tmp_path):
    mismatches = []
    for i, case in enumerate(LIVE_EXPOSE):
        rc_k, out_k, err_k = _kubectl(["expose", *case.split(" "), f"--name=k{i}", "-o", "json"], env, tmp_path)
        rc_l, out_l, err_l = kubelite(["expose", *case.split(" "), f"--name=l{i}", "-o", "json"])
        if rc_k != 0:  # the server refuses what kubectl derived (pod mp: one port twice); kubelite must too
            if (rc_l, out_l, err_l.replace(f"l{i}", "X")) != (rc_k, out_k, err_k.replace(f"k{i}", "X")):
                mismatches.append((case, err_k, err_l))
            continue
        ours, theirs = _masked(json.loads(out_l), "x"), _masked(json.loads(out_k), "x")
        # (key order is the printer's business, not expose's: compared as values)
        if ours != theirs or rc_l != rc_k:
            mismatches.append((case, theirs, ours, err_l))
        # and the name lines
    rc_k, out_k, _ = _kubectl(["expose", "deployment", "web", "--name=kline"], env, tmp_path)
    rc_l, out_l, _ = kubelite(["expose", "deployment", "web", "--name=lline"])
    assert (rc_k, out_k.replace("kline", "X")) == (rc_l, out_l.replace("lline", "X")) == (0, "service/X exposed\n")
    for m in mismatches:
        print("MISMATCH", m)
    assert not mismatches


def test_live_autoscale_sends_what_kubectl_would_send(env, tmp_path, monkeypatch):
    from kubelite.client.dynamic import DynamicClient

    sent = []
    original = DynamicClient.create

    def spy(self, r, namespace, obj, params=None):
        sent.append((r.group, r.version, r.resource, namespace, obj))
        return original(self, r, namespace, obj, params)

    monkeypatch.setattr(DynamicClient, "create", spy)
    for i, case in enumerate(["deployment web --max=5", "deploy/web --min=2 --max=7 --cpu-percent=60",
                              "statefulset ss1 --max=3", "rc rc1 --max=2 --min=1 --save-config"]):
        argv = ["autoscale", *case.split(" "), f"--name=sent{i}"]
        rc_k, planned, err_k = _kubectl(argv + ["--dry-run=client", "-o", "json"], env, tmp_path)
        assert rc_k == 0, err_k
        assert kubelite(argv) == (0, f"horizontalpodautoscaler.autoscaling/sent{i} autoscaled\n", "")
        group, version, resource, namespace, body = sent.pop()
        assert (group, version, resource, namespace) == ("autoscaling", "v1", "horizontalpodautoscalers", "default")
        annotations = body["metadata"].pop("annotations", {})
        assert json.loads(planned) == body
        if "--save-config" in case:
            assert json.loads(annotations["kubectl.kubernetes.io/last-applied-configuration"]) == body


def test_live_autoscale_stores_what_kubectl_would_send(env, tmp_path):
    for i, case in enumerate(["deployment web --max=5", "deployment web --min=2 --max=7 --cpu-percent=60",
                              "statefulset ss1 --max=3", "rc rc1 --max=2 --min=1"]):
        argv = ["autoscale", *case.split(" "), f"--name=hpa{i}"]
        rc_k, planned, err_k = _kubectl(argv + ["--dry-run=client", "-o", "json"], env, tmp_path)
        assert rc_k == 0, err_k
        assert kubelite(argv) == (0, f"horizontalpodautoscaler.autoscaling/hpa{i} autoscaled\n", "")
        # read back as autoscaling/v2 (kubectl's preferred version): the v1 CPU target becomes a metric,
        # and the server defaults minReplicas to 1 and the target to 80%
        rc, stored, err = _kubectl(["get", "hpa", f"hpa{i}", "-o", "json"], env, tmp_path)
        assert rc == 0, err
        stored = json.loads(stored)
        planned = json.loads(planned)["spec"]
        cpu = {"type": "Utilization", "averageUtilization": planned.get("targetCPUUtilizationPercentage", 80)}
        assert stored["spec"] == {"scaleTargetRef": planned["scaleTargetRef"],
                                  "minReplicas": planned.get("minReplicas", 1), "maxReplicas": planned["maxReplicas"],
                                  "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": cpu}}]}
        assert stored["metadata"]["name"] == f"hpa{i}"
