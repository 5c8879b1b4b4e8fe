"""Third-party clients' server-side apply against `kubelite serve`, each used as its documentation
shows: the official `kubernetes` client's DynamicClient.server_side_apply (a ConfigMap, a
Deployment, a custom resource), lightkube's Client.apply and AsyncClient.apply, and
kubernetes_asyncio (its typed API with the apply content type, and its DynamicClient).

Each case goes through create-on-apply, a re-apply that changes nothing (same resourceVersion),
a second manager, a conflict (409 and kube-apiserver's message: the recorded ones of
reference/apiserver/ssa 04, 32 and 42 have the same form) and force. The server runs without
controllers (`--controllers=-*`, as the recording's apiserver), so nothing else writes the objects.
"""
from __future__ import annotations

import asyncio
import json

import pytest
import yaml

from replay_support import REF
from test_serve_support import serving

kubernetes = pytest.importorskip("kubernetes")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("ssaclient"), "--controllers=-*") as served:
        yield served


@pytest.fixture(scope="module")
def dynamic(server):
    from kubernetes.dynamic import DynamicClient

    api = kubernetes.config.new_client_from_config(config_file=str(server.kubeconfig))
    client = DynamicClient(api)
    # the CRD of the recorded custom-resource cases (Widget: a set, a map-list, defaults)
    crds = client.resources.get(api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    crds.create(body=yaml.safe_load((REF / "defaults" / "crd-rich.in.yaml").read_text()))
    yield client
    api.close()


def _conflict_message(*conflicts: tuple[str, str]) -> dict:
    """kube-apiserver's 409 body for an apply refused for (manager, field) conflicts: one line
    for one, else grouped by manager in sorted order (its getConflictMessage)."""
    if len(conflicts) == 1:
        message = 'Apply failed with 1 conflict: conflict with "%s": %s' % conflicts[0]
    else:
        lines = []
        for manager in sorted({m for m, _ in conflicts}):
            lines.append(f'conflicts with "{manager}":')
            lines.extend(f"- {field}" for m, field in conflicts if m == manager)
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "Conflict", "code": 409,
            "details": {"causes": [{"reason": "FieldManagerConflict", "message": f'conflict with "{manager}"',
                                   "field": field} for manager, field in conflicts]}}


def _sorted_causes(status: dict) -> dict:
    """The causes of a conflict with several managers come in Go's map order: compared sorted."""
    causes = sorted(status["details"]["causes"], key=lambda c: (c["message"], c["field"]))
    return {**status, "details": {"causes": causes}}


def _owners(managed_fields: list) -> dict:
    """manager -> (operation, fieldsV1) of each managedFields entry (as dicts)."""
    return {e["manager"]: (e["operation"], e["fieldsV1"]) for e in managed_fields}


# -- the official client: DynamicClient.server_side_apply -----------------------------------------


def _cm(name: str, data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": data}


def _data_owners(obj) -> list:
    return [(e["manager"], e["operation"], sorted(e["fieldsV1"]["f:data"]))
            for e in obj.to_dict()["metadata"]["managedFields"]]


def test_official_dynamic_client_server_side_apply(dynamic):
    configmaps = dynamic.resources.get(api_version="v1", kind="ConfigMap")
    created = configmaps.server_side_apply(body=_cm("dyn", {"a": "1"}), field_manager="alpha")
    assert created.data.a == "1"
    assert _data_owners(created) == [("alpha", "Apply", ["f:a"])]
    again = configmaps.server_side_apply(body=_cm("dyn", {"a": "1"}), field_manager="alpha")
    assert again.metadata.resourceVersion == created.metadata.resourceVersion
    shared = configmaps.server_side_apply(body=_cm("dyn", {"b": "2"}), field_manager="beta")
    assert shared.data.to_dict() == {"a": "1", "b": "2"}
    with pytest.raises(kubernetes.client.ApiException) as caught:
        configmaps.server_side_apply(body=_cm("dyn", {"a": "changed"}), field_manager="beta")
    assert caught.value.status == 409
    assert json.loads(caught.value.body) == _conflict_message(("alpha", ".data.a"))
    forced = configmaps.server_side_apply(body=_cm("dyn", {"a": "changed"}), field_manager="beta",
                                          force_conflicts=True)
    assert forced.data.a == "changed"
    assert _data_owners(forced) == [("beta", "Apply", ["f:a"])]


def _deployment(containers: list, **spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "dyn-web", "namespace": "default"},
            "spec": {**spec, "template": {"spec": {"containers": containers}}}}


def test_official_dynamic_client_server_side_apply_deployment(dynamic):
    deployments = dynamic.resources.get(api_version="apps/v1", kind="Deployment")
    alice = _deployment([{"name": "web", "image": "nginx:1.25"}], replicas=2,
                        selector={"matchLabels": {"app": "web"}})
    alice["spec"]["template"]["metadata"] = {"labels": {"app": "web"}}
    created = deployments.server_side_apply(body=alice, field_manager="alice")
    assert created.spec.replicas == 2 and created.spec.strategy.type == "RollingUpdate"  # defaulted
    owned = _owners(created.to_dict()["metadata"]["managedFields"])
    assert owned == {"alice": ("Apply", {"f:spec": {
        "f:replicas": {}, "f:selector": {},
        "f:template": {"f:metadata": {"f:labels": {"f:app": {}}},
                       "f:spec": {"f:containers": {'k:{"name":"web"}': {".": {}, "f:image": {}, "f:name": {}}}}}}})}
    again = deployments.server_side_apply(body=alice, field_manager="alice")
    assert again.metadata.resourceVersion == created.metadata.resourceVersion

    # bob's sidecar merges into the list by its key, after alice's container
    sidecar = deployments.server_side_apply(body=_deployment([{"name": "side", "image": "busybox"}]),
                                            field_manager="bob")
    assert [(c.name, c.image) for c in sidecar.spec.template.spec.containers] == [
        ("web", "nginx:1.25"), ("side", "busybox")]

    takeover = _deployment([{"name": "side", "image": "busybox"}, {"name": "web", "image": "nginx:1.27"}])
    with pytest.raises(kubernetes.client.ApiException) as caught:
        deployments.server_side_apply(body=takeover, field_manager="bob")
    assert caught.value.status == 409
    assert json.loads(caught.value.body) == _conflict_message(
        ("alice", '.spec.template.spec.containers[name="web"].image'))
    forced = deployments.server_side_apply(body=takeover, field_manager="bob", force_conflicts=True)
    # items both lists hold take the applied order (structured-merge-diff's list merge)
    assert [(c.name, c.image) for c in forced.spec.template.spec.containers] == [
        ("side", "busybox"), ("web", "nginx:1.27")]
    owned = _owners(forced.to_dict()["metadata"]["managedFields"])
    assert owned["alice"][1]["f:spec"]["f:template"]["f:spec"] == {
        "f:containers": {'k:{"name":"web"}': {".": {}, "f:name": {}}}}
    assert owned["bob"][1]["f:spec"]["f:template"]["f:spec"]["f:containers"] == {
        'k:{"name":"side"}': {".": {}, "f:image": {}, "f:name": {}},
        'k:{"name":"web"}': {".": {}, "f:image": {}, "f:name": {}}}

    # bob drops his sidecar, which he alone owned: it goes; the shared container stays
    dropped = deployments.server_side_apply(body=_deployment([{"name": "web", "image": "nginx:1.27"}]),
                                            field_manager="bob")
    assert [c.name for c in dropped.spec.template.spec.containers] == ["web"]


def _widget(spec: dict) -> dict:
    return {"apiVersion": "rc.example.com/v1", "kind": "Widget",
            "metadata": {"name": "dyn-widget", "namespace": "default"}, "spec": spec}


def test_official_dynamic_client_server_side_apply_custom_resource(dynamic):
    widgets = dynamic.resources.get(api_version="rc.example.com/v1", kind="Widget")
    alice = _widget({"size": "small", "tags": ["a"], "ports": [{"name": "http"}]})
    created = widgets.server_side_apply(body=alice, field_manager="alice")
    # the structural schema's defaults are filled and not owned by alice
    assert created.spec.to_dict() == {"size": "small", "tags": ["a"], "ports": [{"name": "http", "port": 80}],
                                      "replicas": 1, "color": "blue"}
    assert _owners(created.to_dict()["metadata"]["managedFields"]) == {"alice": ("Apply", {"f:spec": {
        "f:ports": {'k:{"name":"http"}': {".": {}, "f:name": {}}}, "f:size": {}, "f:tags": {'v:"a"': {}}}})}
    assert created.to_dict()["metadata"]["managedFields"][0]["apiVersion"] == "rc.example.com/v1"
    again = widgets.server_side_apply(body=alice, field_manager="alice")
    assert again.metadata.resourceVersion == created.metadata.resourceVersion

    # a set element and a map-list element of bob's join alice's; size is shared (same value)
    bob = widgets.server_side_apply(body=_widget({"size": "small", "tags": ["b"], "ports": [{"name": "https",
                                                                                             "port": 443}]}),
                                    field_manager="bob")
    assert bob.spec.tags == ["a", "b"]
    assert [p.to_dict() for p in bob.spec.ports] == [{"name": "http", "port": 80}, {"name": "https", "port": 443}]

    with pytest.raises(kubernetes.client.ApiException) as caught:
        widgets.server_side_apply(body=_widget({"size": "large"}), field_manager="carol")
    assert caught.value.status == 409
    assert _sorted_causes(json.loads(caught.value.body)) == _conflict_message(
        ("alice", ".spec.size"), ("bob", ".spec.size"))
    forced = widgets.server_side_apply(body=_widget({"size": "large"}), field_manager="carol", force_conflicts=True)
    assert forced.spec.size == "large"
    owned = _owners(forced.to_dict()["metadata"]["managedFields"])
    assert owned["carol"] == ("Apply", {"f:spec": {"f:size": {}}})
    assert "f:size" not in owned["alice"][1]["f:spec"] and "f:size" not in owned["bob"][1]["f:spec"]

    with pytest.raises(kubernetes.client.ApiException) as caught:
        widgets.server_side_apply(body=_widget({"size": "huge"}), field_manager="carol")
    assert caught.value.status == 422


# -- lightkube: Client.apply and AsyncClient.apply --------------------------------------------------


@pytest.fixture(scope="module")
def lightkube_config(server):
    lightkube = pytest.importorskip("lightkube")
    return lightkube.KubeConfig.from_file(str(server.kubeconfig))


def _lk_configmap(name: str, data: dict):
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap

    return ConfigMap(metadata=ObjectMeta(name=name, namespace="default"), data=data)


def _lk_owners(obj) -> list:
    return [(m.manager, m.operation, sorted(m.fieldsV1["f:data"])) for m in obj.metadata.managedFields]


def test_lightkube_client_apply(lightkube_config):
    import lightkube

    client = lightkube.Client(lightkube_config, field_manager="lk")
    created = client.apply(_lk_configmap("lk", {"a": "1"}))
    assert created.data == {"a": "1"}
    assert _lk_owners(created) == [("lk", "Apply", ["f:a"])]
    again = client.apply(_lk_configmap("lk", {"a": "1"}))
    assert again.metadata.resourceVersion == created.metadata.resourceVersion
    other = client.apply(_lk_configmap("lk", {"b": "2"}), field_manager="other")
    assert other.data == {"a": "1", "b": "2"}
    with pytest.raises(lightkube.ApiError) as caught:
        client.apply(_lk_configmap("lk", {"a": "2"}), field_manager="other")
    assert caught.value.status.code == 409
    assert caught.value.status.reason == "Conflict"
    assert caught.value.status.message == 'Apply failed with 1 conflict: conflict with "lk": .data.a'
    forced = client.apply(_lk_configmap("lk", {"a": "2"}), field_manager="other", force=True)
    assert forced.data == {"a": "2"}
    assert _lk_owners(forced) == [("other", "Apply", ["f:a"])]
    # the object as lightkube reads it back afterwards
    from lightkube.resources.core_v1 import ConfigMap

    assert client.get(ConfigMap, "lk", namespace="default").data == {"a": "2"}
    client.close()


def test_lightkube_client_apply_custom_resource(lightkube_config, dynamic):
    import lightkube
    from lightkube.generic_resource import create_namespaced_resource

    Widget = create_namespaced_resource("rc.example.com", "v1", "Widget", "widgets")
    client = lightkube.Client(lightkube_config, field_manager="lk")
    body = Widget(metadata={"name": "lk-widget", "namespace": "default"},
                  spec={"size": "medium", "tags": ["x"]})
    created = client.apply(body)
    assert created.spec == {"size": "medium", "tags": ["x"], "replicas": 1, "color": "blue"}
    assert client.apply(body).metadata.resourceVersion == created.metadata.resourceVersion
    with pytest.raises(lightkube.ApiError) as caught:
        client.apply(Widget(metadata={"name": "lk-widget", "namespace": "default"}, spec={"size": "large"}),
                     field_manager="other")
    assert caught.value.status.code == 409
    assert caught.value.status.message == 'Apply failed with 1 conflict: conflict with "lk": .spec.size'
    client.close()


def test_lightkube_async_client_apply(lightkube_config):
    import lightkube

    async def scenario():
        client = lightkube.AsyncClient(lightkube_config, field_manager="alk")
        try:
            created = await client.apply(_lk_configmap("alk", {"y": "1"}))
            again = await client.apply(_lk_configmap("alk", {"y": "1"}))
            try:
                await client.apply(_lk_configmap("alk", {"y": "2"}), field_manager="other")
            except lightkube.ApiError as e:
                conflict = e.status
            forced = await client.apply(_lk_configmap("alk", {"y": "2"}), field_manager="other", force=True)
            return created, again, conflict, forced
        finally:
            await client.close()

    created, again, conflict, forced = asyncio.run(scenario())
    assert created.data == {"y": "1"} and again.metadata.resourceVersion == created.metadata.resourceVersion
    assert (conflict.code, conflict.message) == (409, 'Apply failed with 1 conflict: conflict with "alk": .data.y')
    assert _lk_owners(forced) == [("other", "Apply", ["f:y"])]


# -- kubernetes_asyncio: the typed API with the apply content type, and its DynamicClient ---------


def test_kubernetes_asyncio_apply(server):
    ka = pytest.importorskip("kubernetes_asyncio")
    from kubernetes_asyncio.dynamic import DynamicClient

    apply = "application/apply-patch+yaml"

    async def scenario():
        config = ka.client.Configuration()
        await ka.config.load_kube_config(config_file=str(server.kubeconfig), client_configuration=config)
        async with ka.client.ApiClient(config) as api:
            core = ka.client.CoreV1Api(api)
            out = {}
            out["created"] = await core.patch_namespaced_config_map(
                "aio", "default", _cm("aio", {"a": "1"}), field_manager="aio", _content_type=apply)
            out["again"] = await core.patch_namespaced_config_map(
                "aio", "default", _cm("aio", {"a": "1"}), field_manager="aio", _content_type=apply)
            try:
                await core.patch_namespaced_config_map("aio", "default", _cm("aio", {"a": "2"}),
                                                       field_manager="other", _content_type=apply)
            except ka.client.ApiException as e:
                out["conflict"] = (e.status, json.loads(e.body))
            out["forced"] = await core.patch_namespaced_config_map(
                "aio", "default", _cm("aio", {"a": "2"}), field_manager="other", force=True, _content_type=apply)

            configmaps = await (await DynamicClient(api)).resources.get(api_version="v1", kind="ConfigMap")
            out["dyn_created"] = await configmaps.server_side_apply(body=_cm("aio-dyn", {"b": "1"}),
                                                                    field_manager="aio")
            # kubernetes_asyncio's DynamicClient reads responses unchecked (_preload_content=False):
            # a refused apply comes back as the Status object, not as an exception
            out["dyn_conflict"] = await configmaps.server_side_apply(body=_cm("aio-dyn", {"b": "2"}),
                                                                     field_manager="other")
            out["dyn_forced"] = await configmaps.server_side_apply(body=_cm("aio-dyn", {"b": "2"}),
                                                                   field_manager="other", force_conflicts=True)
            return out

    out = asyncio.run(scenario())
    assert out["created"].data == {"a": "1"}
    assert [(m.manager, m.operation) for m in out["created"].metadata.managed_fields] == [("aio", "Apply")]
    assert out["again"].metadata.resource_version == out["created"].metadata.resource_version
    assert out["conflict"] == (409, _conflict_message(("aio", ".data.a")))
    assert out["forced"].data == {"a": "2"}
    assert [(m.manager, m.fields_v1) for m in out["forced"].metadata.managed_fields] == [
        ("other", {"f:data": {"f:a": {}}})]
    assert out["dyn_created"].data.to_dict() == {"b": "1"}
    assert out["dyn_conflict"].to_dict() == _conflict_message(("aio", ".data.b"))
    assert out["dyn_forced"].data.to_dict() == {"b": "2"}
    assert _data_owners(out["dyn_forced"]) == [("other", "Apply", ["f:b"])]
