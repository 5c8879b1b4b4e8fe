"""The official `kubernetes` Python client against `kubelite serve`."""
from __future__ import annotations

import threading

import pytest

kubernetes = pytest.importorskip("kubernetes")

from test_serve_support import serving  # noqa: E402


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    base = tmp_path_factory.mktemp("pyclient")
    with serving(base) as server:
        client = kubernetes.config.new_client_from_config(config_file=str(server.kubeconfig))
        yield kubernetes.client.CoreV1Api(client)
        client.close()


def _cm(name, labels):
    return kubernetes.client.V1ConfigMap(metadata=kubernetes.client.V1ObjectMeta(name=name, labels=labels),
                                         data={"k": name})


def test_create_read_list_with_selectors(core):
    for name, env in (("a", "prod"), ("b", "dev"), ("c", "prod")):
        core.create_namespaced_config_map("default", _cm(name, {"env": env}))
    assert core.read_namespaced_config_map("b", "default").data == {"k": "b"}
    prod = core.list_namespaced_config_map("default", label_selector="env=prod")
    assert sorted(i.metadata.name for i in prod.items) == ["a", "c"]
    notin = core.list_namespaced_config_map("default", label_selector="env notin (prod)")
    # `notin` also selects objects without the label: the kube-root-ca.crt every namespace has.
    assert [i.metadata.name for i in notin.items] == ["b", "kube-root-ca.crt"]
    named = core.list_namespaced_config_map("default", field_selector="metadata.name=c")
    assert [i.metadata.name for i in named.items] == ["c"]


def test_patch_and_stale_replace_conflicts(core):
    core.create_namespaced_config_map("default", _cm("p", {}))
    stale = core.read_namespaced_config_map("p", "default")
    core.patch_namespaced_config_map("p", "default", {"data": {"k": "patched"}})
    assert core.read_namespaced_config_map("p", "default").data == {"k": "patched"}
    stale.data = {"k": "stale"}
    with pytest.raises(kubernetes.client.ApiException) as caught:
        core.replace_namespaced_config_map("p", "default", stale)
    assert caught.value.status == 409
    assert "the object has been modified" in caught.value.body


def test_watch_sees_an_added_object(core):
    listed = core.list_namespaced_config_map("default")
    seen = []

    def consume():
        w = kubernetes.watch.Watch()
        for event in w.stream(core.list_namespaced_config_map, "default",
                              resource_version=listed.metadata.resource_version, timeout_seconds=10):
            seen.append((event["type"], event["object"].metadata.name))
            if event["object"].metadata.name == "watched":
                w.stop()

    thread = threading.Thread(target=consume)
    thread.start()
    core.create_namespaced_config_map("default", _cm("watched", {}))
    thread.join(timeout=20)
    assert ("ADDED", "watched") in seen


def test_delete(core):
    core.create_namespaced_config_map("default", _cm("gone", {}))
    status = core.delete_namespaced_config_map("gone", "default")
    status = status if isinstance(status, dict) else status.to_dict()
    assert status["status"] == "Success"
    with pytest.raises(kubernetes.client.ApiException) as caught:
        core.read_namespaced_config_map("gone", "default")
    assert caught.value.status == 404


def test_missing_namespace_is_not_found(core):
    with pytest.raises(kubernetes.client.ApiException) as caught:
        core.create_namespaced_config_map("nope", _cm("x", {}))
    assert caught.value.status == 404
    assert 'namespaces \\"nope\\" not found' in caught.value.body
