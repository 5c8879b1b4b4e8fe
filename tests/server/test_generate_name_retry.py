"""A generated name another object already holds is generated again, as kube-apiserver does since
RetryGenerateName (on by default from 1.31): a Job's 1,000 pods collide with a chance in 30."""
from __future__ import annotations

import itertools

from kubelite.server import core
from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

POD = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c", "image": "i"}]}}


def test_a_generated_name_already_taken_is_generated_again(monkeypatch):
    names = itertools.chain(["p-bbbbb", "p-bbbbb"], itertools.repeat("p-ccccc"))
    monkeypatch.setattr(core, "_generated_name", lambda prefix: next(names))
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster, cluster.http_client() as api:
        url = "/api/v1/namespaces/default/pods"
        assert api.post(url, json={**POD, "metadata": {"name": "p-bbbbb"}}).status_code == 201
        made = api.post(url, json={**POD, "metadata": {"generateName": "p-"}})
        assert made.status_code == 201
        assert made.json()["metadata"]["name"] == "p-ccccc"
        # a name the client chose is never changed
        again = api.post(url, json={**POD, "metadata": {"name": "p-bbbbb"}})
        assert (again.status_code, again.json()["reason"]) == (409, "AlreadyExists")


def test_a_name_generated_taken_every_time_is_already_exists(monkeypatch):
    monkeypatch.setattr(core, "_generated_name", lambda prefix: "p-bbbbb")
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster, cluster.http_client() as api:
        url = "/api/v1/namespaces/default/pods"
        assert api.post(url, json={**POD, "metadata": {"generateName": "p-"}}).status_code == 201
        again = api.post(url, json={**POD, "metadata": {"generateName": "p-"}})
        assert (again.status_code, again.json()["message"]) == (409, 'pods "p-bbbbb" already exists')
