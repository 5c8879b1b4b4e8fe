"""Create with metadata.resourceVersion set, as kube-apiserver 1.32 answers it.

etcd3's store refuses a create only when the resourceVersion parses as an unsigned number other
than 0 (recorded: a plain 500 with the message below); any other text ("0", "v1", "-1") fails
that parse or is 0, and the store clears it and creates the object. A dry-run create never reaches
that check: its answer echoes the resourceVersion sent.
"""
from __future__ import annotations

import json
import pathlib

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

REF = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "errors"
URL = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with cluster.http_client() as client:
            yield client


def _configmap(name: str, rv) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "resourceVersion": rv},
            "data": {"a": "b"}}


def test_a_numeric_resource_version_is_the_recorded_500(api):
    answer = api.post(URL, json=_configmap("with-rv", "12345"))
    recorded = json.loads((REF / "create-with-resourceversion.body.json").read_text())
    assert answer.status_code == 500
    assert answer.json() == recorded
    assert api.get(f"{URL}/with-rv").status_code == 404


@pytest.mark.parametrize("rv", ["0", "00", "v1", "-1", "abc", "+5", " 5", "18446744073709551616", ""])
def test_a_resource_version_that_is_not_a_nonzero_number_is_dropped(api, rv):
    name = "rv-" + str(abs(hash(rv)))
    answer = api.post(URL, json=_configmap(name, rv))
    assert answer.status_code == 201, answer.text
    stored = api.get(f"{URL}/{name}").json()
    assert stored["metadata"]["resourceVersion"] == answer.json()["metadata"]["resourceVersion"]
    assert stored["metadata"]["resourceVersion"] not in (rv, "0")


def test_the_largest_uint64_is_still_refused(api):
    answer = api.post(URL, json=_configmap("huge-rv", str(2 ** 64 - 1)))
    assert answer.status_code == 500


def test_dry_run_echoes_the_resource_version(api):
    answer = api.post(URL, params={"dryRun": "All"}, json=_configmap("dry-rv", "12345"))
    assert answer.status_code == 201, answer.text
    assert answer.json()["metadata"]["resourceVersion"] == "12345"
    assert api.get(f"{URL}/dry-rv").status_code == 404


def test_validation_comes_before_the_storage_check(api):
    body = _configmap("Bad_Name", "12345")
    answer = api.post(URL, json=body)
    assert answer.status_code == 422
