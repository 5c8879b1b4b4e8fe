"""snapshot()/restore(): every stored object of every kind comes back exactly as it was."""
from __future__ import annotations

import json

import kubelite
from api_support import ROOT

CONTROLLER_FILES = ROOT / "tests" / "data" / "controllers"
SCENARIOS = ["cronjob", "daemonset", "statefulset", "service-endpoints", "replicationcontroller", "job-basic",
             "replicaset-standalone"]
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "x-kubernetes-preserve-unknown-fields": True}}}]},
}
EXTRA = """\
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: extra}
stringData: {key: value}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: extra}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: extra}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: ServiceAccount, name: default, namespace: extra}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: extra}
spec: {podSelector: {}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


def populate(kube) -> None:
    for scenario in SCENARIOS:
        kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": scenario}})
        kube.apply(str(CONTROLLER_FILES / scenario / "files"), namespace=scenario)
    kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "extra"}})
    kube.apply(EXTRA)
    kube.apply(CRD)
    kube.apply({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "extra"},
                "spec": {"size": 3}})


def decoded(snapshot) -> dict:
    return {key: json.loads(value) for key, value in snapshot.entries}


def test_restore_brings_back_every_kind_exactly():
    with kubelite.Cluster(fake_clock=True) as kube:
        populate(kube)
        before = kube.snapshot()
        kinds = {obj.get("kind") for obj in decoded(before).values()}
        assert {"Deployment", "ReplicaSet", "Pod", "StatefulSet", "DaemonSet", "CronJob", "Job", "Service",
                "Endpoints", "EndpointSlice", "ReplicationController", "Secret", "Role", "RoleBinding",
                "NetworkPolicy", "PriorityClass", "CustomResourceDefinition", "Widget", "Namespace",
                "ServiceAccount", "ConfigMap", "Node", "Lease"} <= kinds

        # change, delete and add objects of several kinds, and let the controllers react
        kube.patch("deployments", "web", {"spec": {"replicas": 5}}, namespace="service-endpoints", type="merge")
        kube.delete("statefulsets", "web", namespace="statefulset", cascade="foreground")
        kube.delete("widgets", "w", namespace="extra")
        kube.delete("customresourcedefinitions", "widgets.example.com")
        kube.delete("secrets", "token", namespace="extra")
        kube.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "later", "namespace": "extra"}})
        assert kube.snapshot().entries != before.entries

        kube.restore(before)
        after = kube.snapshot()
        assert decoded(after) == decoded(before)
        # the restored custom resource is served again
        assert kube.get("widgets", "w", namespace="extra")["spec"] == {"size": 3}
        assert len(kube.list("pods", namespace="service-endpoints")) == 2


def test_a_snapshot_outlives_further_changes(kube):
    kube.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"v": "1"}})
    snap = kube.snapshot()
    kube.patch("configmaps", "a", {"data": {"v": "2"}}, type="merge")
    kube.restore(snap)
    assert kube.get("configmaps", "a")["data"] == {"v": "1"}
    kube.delete("configmaps", "a")
    kube.restore(snap)  # the same snapshot again
    assert kube.get("configmaps", "a")["data"] == {"v": "1"}


def test_a_cluster_in_sqlite_keeps_its_objects_across_opens(tmp_path):
    path = tmp_path / "state.db"
    with kubelite.Cluster(path) as kube:
        kube.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}, "data": {"v": "1"}})
        uid = kube.get("configmaps", "kept")["metadata"]["uid"]
    assert path.exists()
    with kubelite.Cluster(str(path)) as again:
        assert again.get("configmaps", "kept")["metadata"]["uid"] == uid
        assert [r.action for r in again.apply({"apiVersion": "v1", "kind": "ConfigMap",
                                               "metadata": {"name": "kept"}, "data": {"v": "1"}})] == ["unchanged"]
