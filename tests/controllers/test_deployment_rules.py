"""Deployment and ReplicaSet behaviour the recordings do not show: rollout arithmetic (upstream's
rounding of maxSurge/maxUnavailable), the pod-template hash, revision history, adoption and
release, hash collisions, revisionHistoryLimit, minReadySeconds, and kube-apiserver's validation
of bad specs. Cluster tests run every default controller on a FakeClock and settle."""
from __future__ import annotations

import json
import pathlib

import pytest

from kubelite.server.controllers import deployment_util as du

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"


def deployment(name="web", replicas=3, image="nginx:1.24", **spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": image}]}}, **spec}}


def with_strategy(replicas, surge, unavailable) -> dict:
    d = deployment(replicas=replicas)
    d["spec"]["strategy"] = {"type": "RollingUpdate",
                             "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}
    return d


# -- pure rules --------------------------------------------------------------------------------------

@pytest.mark.parametrize("replicas,surge,unavailable,want", [
    (3, "25%", "25%", (1, 0)),      # recorded: max-replicas 4 for 3 replicas; surge rounds up
    (2, "25%", "25%", (1, 0)),      # recorded in public-rollout: max=3 for 2 replicas
    (10, "25%", "25%", (3, 2)),     # unavailable rounds down
    (10, 1, 0, (1, 0)),
    (4, 0, "0%", (0, 1)),           # never both zero
    (3, 0, 1, (0, 1)),
])
def test_fenceposts_round_as_upstream(replicas, surge, unavailable, want):
    assert du.fenceposts(with_strategy(replicas, surge, unavailable)) == want


def test_recreate_has_no_surge_or_unavailability():
    d = deployment()
    d["spec"]["strategy"] = {"type": "Recreate"}
    assert (du.max_surge(d), du.max_unavailable(d)) == (0, 0)


def test_template_hash_is_stable_and_moves_with_the_collision_count():
    template = deployment()["spec"]["template"]
    first = du.template_hash(template)
    assert first == du.template_hash(json.loads(json.dumps(template)))
    assert du.template_hash(template, 1) not in (first, du.template_hash(template, 2))
    assert set(first) <= set("bcdfghjklmnpqrstvwxz2456789") and 1 <= len(first) <= 10


def test_the_hash_of_every_recorded_replica_set_template_is_reproduced():
    import glob

    recorded = []
    for path in glob.glob(str(pathlib.Path(__file__).parent.parent / "data" / "controllers" / "*" / "final" /
                              "replicasets.json")):
        for rs in json.loads(pathlib.Path(path).read_text())["items"]:
            if any(ref["kind"] == "Deployment" for ref in rs["metadata"].get("ownerReferences") or []):
                template = rs["spec"]["template"]
                labels = dict(template["metadata"]["labels"])
                want = labels.pop("pod-template-hash")
                recorded.append((want, {**template, "metadata": {**template["metadata"], "labels": labels}}))
    assert len(recorded) >= 10
    assert [du.template_hash(t) for _, t in recorded] == [want for want, _ in recorded]


def test_templates_the_upstream_hash_cannot_reproduce_still_get_a_stable_hash():
    template = deployment()["spec"]["template"]
    template["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "500m"}}
    first = du.template_hash(template)
    assert first == du.template_hash(json.loads(json.dumps(template))) != du.template_hash(template, 1)


def test_revision_history_appends_and_stays_within_2000_characters():
    rs = {"metadata": {"annotations": {du.REVISION: "3", du.REVISION_HISTORY: "1"}}}
    assert du.set_new_rs_annotations(deployment(), rs, 5, exists=True)
    assert rs["metadata"]["annotations"][du.REVISION] == "5"
    assert rs["metadata"]["annotations"][du.REVISION_HISTORY] == "1,3"
    long = ",".join(str(n) for n in range(1000, 1400))  # 1999 characters
    assert du._append_history(long, "9999").split(",")[-1] == "9999"
    assert len(du._append_history(long, "9999")) <= 2000


def test_deployment_annotations_are_copied_to_its_replica_set_but_not_the_bookkeeping_ones():
    d = deployment()
    d["metadata"]["annotations"] = {"kubernetes.io/change-cause": "why", du.REVISION: "9",
                                    du.LAST_APPLIED: "{}", "team": "a"}
    rs = {"metadata": {}}
    du.set_new_rs_annotations(d, rs, 1, exists=False)
    assert rs["metadata"]["annotations"] == {"kubernetes.io/change-cause": "why", "team": "a", du.REVISION: "1",
                                             du.DESIRED_REPLICAS: "3", du.MAX_REPLICAS: "4"}


def test_a_new_reason_keeps_the_transition_time_of_an_unchanged_status():
    status = {}
    du.set_condition(status, du.new_condition("Progressing", "True", du.NEW_RS_CREATED, "a", "T1"))
    du.set_condition(status, du.new_condition("Progressing", "True", du.RS_UPDATED, "b", "T2"))
    assert status["conditions"] == [{"type": "Progressing", "status": "True", "lastUpdateTime": "T2",
                                     "lastTransitionTime": "T1", "reason": du.RS_UPDATED, "message": "b"}]


# -- on a cluster -------------------------------------------------------------------------------------

def create(api, path, obj) -> dict:
    r = api.post(path, json=obj)
    assert r.status_code == 201, r.text
    return r.json()


def patch(api, path, body, how="application/strategic-merge-patch+json") -> dict:
    r = api.patch(path, content=json.dumps(body), headers={"content-type": how})
    assert r.status_code == 200, r.text
    return r.json()


def items(api, path) -> list[dict]:
    return api.get(path).json()["items"]


def owned_by(obj) -> list[str]:
    return [r["name"] for r in obj["metadata"].get("ownerReferences") or [] if r.get("controller")]


def test_orphan_replica_set_and_pods_are_adopted(cluster, api):
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "orphan", "labels": {"app": "web"}},
          "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                   "template": deployment()["spec"]["template"]}}
    create(api, f"{APPS}/replicasets", rs)
    cluster.settle()
    pods = items(api, f"{CORE}/pods")
    assert len(pods) == 2 and all(owned_by(p) == ["orphan"] for p in pods)
    create(api, f"{APPS}/deployments", deployment(replicas=2))
    cluster.settle()
    adopted = api.get(f"{APPS}/replicasets/orphan").json()
    assert owned_by(adopted) == ["web"]


def test_a_pod_no_longer_selected_is_released_and_replaced(cluster, api):
    create(api, f"{APPS}/deployments", deployment(replicas=1))
    cluster.settle()
    [pod] = items(api, f"{CORE}/pods")
    patch(api, f"{CORE}/pods/{pod['metadata']['name']}", {"metadata": {"labels": {"app": "elsewhere"}}},
          "application/merge-patch+json")
    cluster.settle()
    released = api.get(f"{CORE}/pods/{pod['metadata']['name']}").json()
    assert owned_by(released) == []
    assert len([p for p in items(api, f"{CORE}/pods") if p["metadata"]["labels"].get("app") == "web"]) == 1


def test_a_hash_collision_bumps_the_collision_count(cluster, api):
    # Paused from the start, the Deployment makes no ReplicaSet: its stored (defaulted) template
    # tells the name it will want, which another ReplicaSet then takes.
    stored = create(api, f"{APPS}/deployments", deployment(paused=True))
    cluster.settle()
    template = stored["spec"]["template"]
    taken = f"web-{du.template_hash(template)}"
    other = deployment(name="other", image="busybox")["spec"]["template"]
    create(api, f"{APPS}/replicasets", {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": taken},
                                        "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "other"}},
                                                 "template": other}})
    patch(api, f"{APPS}/deployments/web", {"spec": {"paused": None}}, "application/merge-patch+json")
    cluster.settle()
    got = api.get(f"{APPS}/deployments/web").json()
    assert got["status"]["collisionCount"] == 1
    names = sorted(rs["metadata"]["name"] for rs in items(api, f"{APPS}/replicasets"))
    assert names == sorted([taken, f"web-{du.template_hash(template, 1)}"])
    assert got["status"]["availableReplicas"] == 3


def test_revision_history_limit_deletes_the_oldest_empty_replica_sets(cluster, api):
    create(api, f"{APPS}/deployments", deployment(revisionHistoryLimit=1))
    cluster.settle()
    for image in ("nginx:1.25", "nginx:1.26", "nginx:1.27"):
        patch(api, f"{APPS}/deployments/web",
              {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}})
        cluster.settle()
    revisions = sorted(int(rs["metadata"]["annotations"][du.REVISION]) for rs in items(api, f"{APPS}/replicasets"))
    assert revisions == [3, 4]


def test_min_ready_seconds_holds_availability_on_the_cluster_clock(cluster, api):
    create(api, f"{APPS}/deployments", deployment(replicas=2, minReadySeconds=10))
    cluster.settle()
    status = api.get(f"{APPS}/deployments/web").json()["status"]
    assert (status.get("readyReplicas"), status.get("availableReplicas")) == (2, None)
    cluster.advance(11)
    status = api.get(f"{APPS}/deployments/web").json()["status"]
    assert (status.get("readyReplicas"), status.get("availableReplicas")) == (2, 2)
    assert {c["type"]: c["reason"] for c in status["conditions"]}["Progressing"] == du.NEW_RS_AVAILABLE


def test_scale_down_deletes_pending_pods_before_running_ones(cluster, api):
    d = deployment(replicas=2)
    create(api, f"{APPS}/deployments", d)
    cluster.settle()
    running = {p["metadata"]["name"] for p in items(api, f"{CORE}/pods")}
    # Two more that cannot be scheduled: they stay Pending, and a scale-down takes them first.
    patch(api, f"{APPS}/deployments/web", {"spec": {"paused": True}}, "application/merge-patch+json")
    cluster.settle()
    [rs] = items(api, f"{APPS}/replicasets")
    patch(api, f"{APPS}/replicasets/{rs['metadata']['name']}",
          {"spec": {"template": {"spec": {"nodeSelector": {"no": "such-node"}}}}})
    patch(api, f"{APPS}/deployments/web/scale", {"spec": {"replicas": 4}}, "application/merge-patch+json")
    cluster.settle()
    assert len(items(api, f"{CORE}/pods")) == 4
    patch(api, f"{APPS}/deployments/web/scale", {"spec": {"replicas": 2}}, "application/merge-patch+json")
    cluster.settle()
    assert {p["metadata"]["name"] for p in items(api, f"{CORE}/pods")} == running


@pytest.mark.parametrize("path,obj,message", [
    (f"{APPS}/deployments", deployment(replicas=-1),
     "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    (f"{APPS}/replicasets", {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "mis"},
                             "spec": {"selector": {"matchLabels": {"app": "x"}},
                                      "template": deployment(name="other")["spec"]["template"]}},
     'spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match '
     'template `labels`'),
])
def test_bad_specs_get_the_api_servers_validation_errors(api, path, obj, message):
    r = api.post(path, json=obj)
    assert r.status_code == 422
    assert message in r.json()["message"]


def test_a_replica_set_no_longer_selected_is_released_and_replaced(cluster, api):
    create(api, f"{APPS}/deployments", deployment(replicas=1))
    cluster.settle()
    [rs] = items(api, f"{APPS}/replicasets")
    name = rs["metadata"]["name"]
    # Relabelled, it no longer matches the Deployment's selector: the Deployment lets it go.
    patch(api, f"{APPS}/replicasets/{name}", {"metadata": {"labels": {"app": "elsewhere"}}},
          "application/merge-patch+json")
    cluster.settle()
    assert owned_by(api.get(f"{APPS}/replicasets/{name}").json()) == []
    # A new ReplicaSet for the same template: its name is taken, so the collision count moves.
    [owned] = [r for r in items(api, f"{APPS}/replicasets") if owned_by(r) == ["web"]]
    assert owned["metadata"]["name"] != name
    status = api.get(f"{APPS}/deployments/web").json()["status"]
    assert status["collisionCount"] == 1 and status["availableReplicas"] == 1
