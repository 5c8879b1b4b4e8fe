"""A DELETE that loses a race to another write (a controller updating the object's status between
the server's read and its delete) is decided again on a fresh read, as kube-apiserver's storage
does: the client sees the delete succeed, or the precondition it named fail — never a 409 it did
not ask for."""
from __future__ import annotations

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

CM_URL = "/api/v1/namespaces/default/configmaps"


def _write_after_first_read(monkeypatch, store, key: str, times: int = 1):
    """The store's next `times` reads of `key` are each followed by another client's write to it."""
    real_get, left = store.get, [times]

    def get(k):
        kv = real_get(k)
        if k == key and kv is not None and left[0] > 0:
            left[0] -= 1
            store.update(k, kv.value.replace(b'"v":"1"', b'"v":"2"'), kv.mod_revision)
        return kv

    monkeypatch.setattr(store, "get", get)


def _stored_key(cluster, name: str) -> str:
    configmaps = cluster.registry.lookup("", "v1", "configmaps")
    return cluster.api._key(configmaps, "default", name)


def test_a_delete_raced_by_another_write_still_deletes(monkeypatch):
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster, cluster.http_client() as api:
        assert api.post(CM_URL, json={"metadata": {"name": "cm"}, "data": {"v": "1"}}).status_code == 201
        key = _stored_key(cluster, "cm")
        _write_after_first_read(monkeypatch, cluster.store, key, times=3)
        answer = api.delete(f"{CM_URL}/cm")
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "Success"
        assert api.get(f"{CM_URL}/cm").status_code == 404


def test_a_raced_delete_checks_its_precondition_against_the_fresh_read(monkeypatch):
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster, cluster.http_client() as api:
        made = api.post(CM_URL, json={"metadata": {"name": "cm"}, "data": {"v": "1"}}).json()
        key = _stored_key(cluster, "cm")
        _write_after_first_read(monkeypatch, cluster.store, key)
        version = made["metadata"]["resourceVersion"]
        answer = api.request("DELETE", f"{CM_URL}/cm",
                             json={"preconditions": {"resourceVersion": version}})
        assert answer.status_code == 409
        assert f"the ResourceVersion in the precondition ({version}) does not match" in answer.json()["message"]
        assert api.get(f"{CM_URL}/cm").json()["data"] == {"v": "2"}
