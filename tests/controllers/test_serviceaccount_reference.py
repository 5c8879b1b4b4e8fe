"""The default ServiceAccount and the kube-root-ca.crt publisher against the
serviceaccount-defaults recording: both appear in a new namespace, come back when deleted, and the
ConfigMap is restored when changed; its CA is the one the cluster serves with."""
from __future__ import annotations

import json

from replay_b import MERGE, create_namespace, recorded_cluster, recorder  # noqa: F401
from test_workloads_support import final, stream

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

CASE, NS = "serviceaccount-defaults", "pub-serviceaccount-defaults"


def _shape(resource: str, event_type: str, obj: dict) -> tuple:
    meta = obj["metadata"]
    return (resource, event_type, meta["name"], tuple(sorted((meta.get("annotations") or {}).items())),
            tuple(sorted((obj.get("data") or {}))))


def test_defaults_come_back_as_recorded(recorded_cluster):
    with recorded_cluster.http_client() as api:
        since = len(recorder(recorded_cluster).seen)
        create_namespace(api, NS)
        assert recorded_cluster.settle()
        assert api.post(f"/api/v1/namespaces/{NS}/serviceaccounts",
                        json={"metadata": {"name": "builder"}}).status_code == 201
        assert api.delete(f"/api/v1/namespaces/{NS}/serviceaccounts/default").status_code == 200
        assert recorded_cluster.settle()
        assert api.delete(f"/api/v1/namespaces/{NS}/configmaps/kube-root-ca.crt").status_code == 200
        assert recorded_cluster.settle()
        assert api.patch(f"/api/v1/namespaces/{NS}/configmaps/kube-root-ca.crt",
                         content=json.dumps({"data": {"extra": "x"}}), headers=MERGE).status_code == 200
        assert recorded_cluster.settle()
        seen = [_shape(rid, kind, obj) for rid, kind, obj in recorder(recorded_cluster).seen[since:]
                if rid in ("configmaps", "serviceaccounts") and obj["metadata"].get("namespace") == NS]
        recorded = [_shape(e["resource"], e["type"], e["object"]) for e in stream(CASE)
                    if e["resource"] in ("configmaps", "serviceaccounts")]
        assert sorted(seen[:2]) == sorted(recorded[:2])  # the two defaults, in either order
        assert seen[2:] == recorded[2:]
        for resource in ("serviceaccounts", "configmaps"):
            names = [i["metadata"]["name"] for i in api.get(f"/api/v1/namespaces/{NS}/{resource}").json()["items"]]
            assert names == [i["metadata"]["name"] for i in final(CASE, resource)]


def test_the_published_ca_is_the_cluster_ca():
    ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    with Cluster(clock=FakeClock(), ca=ca) as cluster, cluster.http_client() as api:
        assert cluster.settle()
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
            cm = api.get(f"/api/v1/namespaces/{ns}/configmaps/kube-root-ca.crt").json()
            assert cm["data"] == {"ca.crt": ca}


def test_without_tls_the_cluster_keeps_one_ca_of_its_own(tmp_path):
    path = str(tmp_path / "state.db")
    with Cluster(path, clock=FakeClock()) as cluster, cluster.http_client() as api:
        assert cluster.settle()
        first = api.get("/api/v1/namespaces/default/configmaps/kube-root-ca.crt").json()["data"]["ca.crt"]
        assert first.startswith("-----BEGIN CERTIFICATE-----")
    with Cluster(path, clock=FakeClock()) as cluster, cluster.http_client() as api:
        create_namespace(api, "later")
        assert cluster.settle()
        assert api.get("/api/v1/namespaces/later/configmaps/kube-root-ca.crt").json()["data"]["ca.crt"] == first
