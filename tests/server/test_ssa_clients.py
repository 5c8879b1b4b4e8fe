"""Third-party clients' server-side apply against `kubelite serve`: the official `kubernetes`
client's DynamicClient.server_side_apply (create, no-op, second manager, conflict, force)."""
from __future__ import annotations

import json

import pytest

kubernetes = pytest.importorskip("kubernetes")

from test_serve_support import serving  # noqa: E402


@pytest.fixture(scope="module")
def configmaps(tmp_path_factory):
    from kubernetes.dynamic import DynamicClient

    base = tmp_path_factory.mktemp("ssaclient")
    with serving(base) as server:
        api = kubernetes.config.new_client_from_config(config_file=str(server.kubeconfig))
        yield DynamicClient(api).resources.get(api_version="v1", kind="ConfigMap")
        api.close()


def _cm(data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dyn", "namespace": "default"},
            "data": data}


def _managers(obj) -> list:
    return [(e["manager"], e["operation"], sorted(e["fieldsV1"]["f:data"]))
            for e in obj.to_dict()["metadata"]["managedFields"]]


def test_official_dynamic_client_server_side_apply(configmaps):
    created = configmaps.server_side_apply(body=_cm({"a": "1"}), field_manager="alpha")
    assert created.data.a == "1"
    assert _managers(created) == [("alpha", "Apply", ["f:a"])]
    again = configmaps.server_side_apply(body=_cm({"a": "1"}), field_manager="alpha")
    assert again.metadata.resourceVersion == created.metadata.resourceVersion
    shared = configmaps.server_side_apply(body=_cm({"b": "2"}), field_manager="beta")
    assert shared.data.to_dict() == {"a": "1", "b": "2"}
    with pytest.raises(kubernetes.client.ApiException) as caught:
        configmaps.server_side_apply(body=_cm({"a": "changed"}), field_manager="beta")
    assert caught.value.status == 409
    assert json.loads(caught.value.body)["message"] == (
        'Apply failed with 1 conflict: conflict with "alpha": .data.a')
    forced = configmaps.server_side_apply(body=_cm({"a": "changed"}), field_manager="beta", force_conflicts=True)
    assert forced.data.a == "changed"
    assert _managers(forced) == [("beta", "Apply", ["f:a"])]
