"""The published OpenAPI documents: what kubelite.schema and kubectl 1.32 read from them."""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest
import yaml

from kubelite.schema import for_kind, from_openapi
from kubelite.server.openapi import V2_PREFIX, V3_PREFIX, OpenAPI, crd_definition_name, references
from kubelite.server.resources import Registry

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_discovery import KUBECTL, _DiscoveryServer, needs_kubectl  # noqa: E402

REF = pathlib.Path(__file__).resolve().parent.parent / "data" / "reference"


def crd_rich() -> dict:
    return yaml.safe_load((REF / "apiserver" / "defaults" / "crd-rich.in.yaml").read_text())


@pytest.fixture(scope="module")
def openapi() -> OpenAPI:
    return OpenAPI(Registry())


@pytest.fixture(scope="module")
def v2(openapi) -> dict:
    return json.loads(openapi.v2())


@pytest.fixture(scope="module")
def v3_docs(openapi) -> dict[str, dict]:
    return {gv: json.loads(openapi.v3(gv)) for gv in openapi.group_versions()}


# -- shape --------------------------------------------------------------------------------------


def _walk(node):
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            yield current
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)


def test_v2_is_swagger_with_every_builtin_definition(v2):
    from kubelite.schema import builtin_definitions

    assert v2["swagger"] == "2.0"
    assert set(v2["definitions"]) == set(builtin_definitions().definitions)
    assert list(v2) == ["swagger", "info", "paths", "definitions", "securityDefinitions", "security"]


def test_v2_refs_all_resolve(v2):
    missing = {ref for node in _walk(v2) if isinstance(node.get("$ref"), str)
               for ref in [node["$ref"]] if ref[len(V2_PREFIX):] not in v2["definitions"]}
    assert missing == set()


def test_v3_every_referenced_schema_is_present(v3_docs):
    assert "api/v1" in v3_docs and "apis/apps/v1" in v3_docs and "apis/autoscaling/v1" in v3_docs
    for gv, doc in v3_docs.items():
        schemas = doc["components"]["schemas"]
        refs = set(references(doc, V3_PREFIX))
        assert refs, gv
        assert refs - set(schemas) == set(), gv
        assert all(not ref.startswith("#/definitions/") and "$defs" not in ref
                   for node in _walk(doc) for ref in [node.get("$ref")] if isinstance(ref, str)), gv


def test_types_are_single_openapi_types(v2, v3_docs):
    for doc in [v2, *v3_docs.values()]:
        schemas = doc.get("definitions") or doc["components"]["schemas"]
        for node in _walk(schemas):
            if "type" in node and not isinstance(node["type"], dict):
                # (a property *named* "type" holds a schema dict, never a list)
                assert isinstance(node["type"], str), node


def test_no_kubernetes_validate_kind_enums(v2):
    spec = v2["definitions"]["io.k8s.api.apps.v1.Deployment"]["properties"]
    assert "enum" not in spec["apiVersion"] and "enum" not in spec["kind"]
    assert v2["definitions"]["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}]


def test_int_or_string_per_version(v2, v3_docs):
    name = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
    assert {k: v for k, v in v2["definitions"][name].items() if k != "description"} == {
        "format": "int-or-string", "type": "string"}
    v3 = v3_docs["apis/apps/v1"]["components"]["schemas"][name]
    assert v3["oneOf"] == [{"type": "integer"}, {"type": "string"}]


def test_v3_wraps_refs_with_siblings_in_allof(v3_docs):
    spec = v3_docs["apis/apps/v1"]["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"]["properties"]
    assert spec["metadata"]["allOf"] == [{"$ref": V3_PREFIX + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]
    assert "$ref" not in spec["metadata"]
    items = v3_docs["apis/apps/v1"]["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentList"]["properties"]["items"]
    assert items["items"] == {"$ref": V3_PREFIX + "io.k8s.api.apps.v1.Deployment"}


def test_v3_index_hashes_address_the_documents(openapi):
    index = openapi.v3_index()
    assert set(index["paths"]) == set(openapi.group_versions())
    for gv, entry in index["paths"].items():
        url, _, query = entry["serverRelativeURL"].partition("?")
        assert url == f"/openapi/v3/{gv}"
        assert query == "hash=" + hashlib.sha512(openapi.v3(gv)).hexdigest().upper()
    assert json.loads(openapi.v3_index_bytes()) == index
    assert openapi.v3("apis/apps/v1beta1") is None and openapi.v3_document("nope") is None


def test_documents_cached_until_registry_changes():
    registry = Registry()
    api = OpenAPI(registry)
    first = api.v3("apis/apps/v1")
    assert api.v3("apis/apps/v1") is first
    registry.register_crd(crd_rich())
    assert "apis/rc.example.com/v1" in api.v3_index()["paths"]
    registry.unregister_crd("widgets.rc.example.com")
    assert "apis/rc.example.com/v1" not in api.v3_index()["paths"]


# -- paths kubectl inspects ---------------------------------------------------------------------


def _patch_ops(doc):
    for path, item in doc["paths"].items():
        if "patch" in item:
            yield path, item["patch"]


def test_every_patchable_resource_declares_field_validation(openapi, v3_docs):
    registry = openapi.registry
    for info in registry.all():
        if "patch" not in info.verbs:
            continue
        doc = v3_docs[f"apis/{info.group}/{info.version}" if info.group else "api/v1"]
        ops = [op for _, op in _patch_ops(doc)
               if op["x-kubernetes-group-version-kind"] == {"group": info.group, "kind": info.kind, "version": info.version}]
        assert ops, info.group_resource
        names = {p["name"] for p in ops[0]["parameters"] if p["in"] == "query"}
        assert {"fieldValidation", "fieldManager", "dryRun", "force"} <= names


def test_paths_of_a_namespaced_resource(v3_docs):
    paths = v3_docs["apis/apps/v1"]["paths"]
    item = paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]
    assert set(item) == {"get", "put", "patch", "delete", "parameters"}
    assert item["patch"]["operationId"] == "patchAppsV1NamespacedDeployment"
    assert item["patch"]["x-kubernetes-action"] == "patch"
    scale = paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
    assert scale["get"]["x-kubernetes-group-version-kind"] == {"group": "autoscaling", "kind": "Scale", "version": "v1"}
    assert "/apis/apps/v1/deployments" in paths
    core = v3_docs["api/v1"]["paths"]
    assert "post" in core["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]
    assert "/api/v1/namespaces/{namespace}/pods/{name}/log" not in core
    assert set(core["/api/v1/namespaces/{name}"]) == {"get", "put", "patch", "delete", "parameters"}
    assert "application/strategic-merge-patch+json" in item["patch"]["requestBody"]["content"]


def test_operation_ids_follow_the_server_naming(v3_docs):
    """Operation ids as kube-apiserver names them (and client generators rely on)."""
    ops = {op["operationId"] for doc in v3_docs.values() for item in doc["paths"].values()
           for key, op in item.items() if key != "parameters"}
    for expected in ("readCoreV1NamespacedPod", "listCoreV1PodForAllNamespaces", "deleteCoreV1CollectionNamespacedPod",
                     "createCoreV1NamespacedPodEviction", "patchCoreV1NamespacedPodStatus",
                     "replaceAppsV1NamespacedDeploymentScale", "listRbacAuthorizationV1ClusterRole",
                     "patchFlowcontrolApiserverV1FlowSchemaStatus", "createAuthorizationV1SelfSubjectAccessReview",
                     "readCoreV1Namespace", "replaceCoreV1NamespaceFinalize"):
        assert expected in ops, expected


# -- patch metadata: the same as the built-in schema --------------------------------------------


def _facts(schema):
    return (schema.patch_strategy, schema.merge_key, schema.list_type, schema.map_keys, schema.int_or_string,
            schema.map_type)


def _compare(expected, actual, path, depth, seen):
    assert _facts(actual) == _facts(expected), path
    if expected.name != "io.k8s.apimachinery.pkg.api.resource.Quantity":
        assert actual.type == expected.type, path
    key = expected.name
    if depth == 0 or (key and key in seen):
        return 1
    seen = seen | ({key} if key else set())
    count = 1
    if expected.type == "object":
        assert actual.properties == expected.properties, path
        for name in expected.properties:
            count += _compare(expected.field(name), actual.field(name), path + [name], depth - 1, seen)
    elif expected.type == "list":
        count += _compare(expected.items(), actual.items(), path + ["[]"], depth - 1, seen)
    elif expected.type == "map":
        count += _compare(expected.field("*"), actual.field("*"), path + ["*"], depth - 1, seen)
    return count


KINDS = [("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet"), ("v1", "Pod"),
         ("v1", "Service"), ("v1", "ConfigMap"), ("batch/v1", "CronJob"), ("networking.k8s.io/v1", "Ingress"),
         ("rbac.authorization.k8s.io/v1", "ClusterRole"), ("autoscaling/v2", "HorizontalPodAutoscaler"),
         ("apiextensions.k8s.io/v1", "CustomResourceDefinition"), ("v1", "Node")]


@pytest.mark.parametrize("api_version,kind", KINDS)
def test_v2_and_v3_give_builtin_patch_metadata(v2, v3_docs, api_version, kind):
    expected = for_kind(api_version, kind)
    group, _, version = api_version.rpartition("/")
    name = expected.name
    doc3 = v3_docs[f"apis/{group}/{version}" if group else f"api/{version}"]
    for doc in (v2, doc3):
        assert _compare(expected, from_openapi(doc, name), [kind], 12, frozenset()) > 20


@pytest.mark.parametrize("doc_kind", ["v2", "v3"])
def test_deployment_patch_metadata_spot_checks(v2, v3_docs, doc_kind):
    doc = v2 if doc_kind == "v2" else v3_docs["apis/apps/v1"]
    d = from_openapi(doc, "io.k8s.api.apps.v1.Deployment")
    containers = d.at(["spec", "template", "spec", "containers"])
    assert (containers.patch_strategy, containers.merge_key, containers.list_type) == (("merge",), "name", "map")
    assert d.at(["spec", "strategy"]).patch_strategy == ("retainKeys",)
    volumes = d.at(["spec", "template", "spec", "volumes"])
    assert volumes.patch_strategy == ("merge", "retainKeys") and volumes.merge_key == "name"
    ports = d.at(["spec", "template", "spec", "containers", "[]", "ports"])
    assert ports.merge_key == "containerPort" and ports.map_keys == ("containerPort", "protocol")
    assert d.at(["spec", "strategy", "rollingUpdate", "maxSurge"]).int_or_string
    assert d.at(["metadata", "finalizers"]).patch_strategy == ("merge",)


# -- custom resources ---------------------------------------------------------------------------


def test_crd_schema_published():
    registry = Registry()
    registry.register_crd(crd_rich())
    api = OpenAPI(registry)
    name = crd_definition_name("rc.example.com", "v1", "Widget")
    assert name == "com.example.rc.v1.Widget"
    v3 = json.loads(api.v3("apis/rc.example.com/v1"))
    widget = v3["components"]["schemas"][name]
    assert widget["x-kubernetes-group-version-kind"] == [{"group": "rc.example.com", "kind": "Widget", "version": "v1"}]
    assert widget["properties"]["spec"]["required"] == ["size"]
    assert widget["properties"]["metadata"] == {"allOf": [{"$ref": V3_PREFIX + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in v3["components"]["schemas"]
    assert "com.example.rc.v1.WidgetList" in v3["components"]["schemas"]
    ports = from_openapi(v3, name).at(["spec", "ports"])
    assert (ports.list_type, ports.map_keys) == ("map", ("name",))
    patch = v3["paths"]["/apis/rc.example.com/v1/namespaces/{namespace}/widgets/{name}"]["patch"]
    # kubectl only builds a strategic merge patch when the PATCH operation accepts one.
    assert set(patch["requestBody"]["content"]) == {
        "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
    v2 = json.loads(api.v2())
    assert "x-kubernetes-validations" not in v2["definitions"][name]["properties"]["spec"]
    assert v2["definitions"][name]["properties"]["metadata"] == {"$ref": V2_PREFIX + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    # The registry's copy of the CRD schema is untouched.
    assert "apiVersion" not in registry.lookup("rc.example.com", "v1", "widgets").schema["properties"]


# -- kubectl reads them -------------------------------------------------------------------------


def _kubectl(url: str, home: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, KUBECONFIG=os.devnull, HOME=home)
    return subprocess.run([KUBECTL, "--server", url, "--cache-dir", home + "/cache", *args],
                          capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture(scope="module")
def served():
    registry = Registry()
    registry.register_crd(crd_rich())
    with _DiscoveryServer(registry, OpenAPI(registry)) as server, tempfile.TemporaryDirectory() as home:
        yield server, home


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_explain_builtin(served):
    server, home = served
    proc = _kubectl(server.url, home, "explain", "deployment.spec.strategy")
    assert proc.returncode == 0, proc.stderr
    assert "KIND:       Deployment" in proc.stdout
    assert "rollingUpdate\t<RollingUpdateDeployment>" in proc.stdout
    proc = _kubectl(server.url, home, "explain", "pods.spec.containers.ports")
    assert proc.returncode == 0, proc.stderr
    assert "containerPort\t<integer> -required-" in proc.stdout


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_explain_custom_resource(served):
    server, home = served
    proc = _kubectl(server.url, home, "explain", "widgets.spec")
    assert proc.returncode == 0, proc.stderr
    assert "KIND:       Widget" in proc.stdout
    assert "size\t<string> -required-" in proc.stdout


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_trusts_server_side_field_validation(served, tmp_path):
    """kubectl checks the v3 document's PATCH parameters; when fieldValidation is there it sends
    `fieldValidation=Strict` and never falls back to fetching /openapi/v2 for client-side checks."""
    server, home = served
    manifest = tmp_path / "d.yaml"
    manifest.write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
            "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}))
    del server.requests[:]
    _kubectl(server.url, home, "create", "-f", str(manifest))
    posts = [r for r in server.requests if r.startswith("POST ")]
    assert posts and "fieldValidation=Strict" in posts[0], server.requests
    assert not [r for r in server.requests if r.startswith("/openapi/v2")]


def _deployment(image: str, extra_container: bool = False) -> dict:
    containers = [{"name": "web", "image": image}]
    if extra_container:
        containers.append({"name": "sidecar", "image": "busybox"})
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
                "metadata": {"labels": {"a": "b"}}, "spec": {"containers": containers}}}}


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_apply_builds_strategic_merge_patch_from_v3(served, tmp_path):
    """kubectl apply computes its three-way strategic merge patch from the v3 document: with
    the merge key of containers known, a changed image is patched by name (not a list swap)."""
    server, home = served
    path = "/apis/apps/v1/namespaces/default/deployments/x"
    live = _deployment("nginx:1", extra_container=True)
    live["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": json.dumps(_deployment("nginx:1"))}
    server.objects[path] = live
    manifest = tmp_path / "d.json"
    manifest.write_text(json.dumps(_deployment("nginx:2")))
    del server.patches[:]
    try:
        proc = _kubectl(server.url, home, "apply", "-f", str(manifest))
    finally:
        del server.objects[path]
    assert proc.returncode == 0, proc.stderr
    (target, content_type, body), = server.patches
    assert target == path
    assert content_type == "application/strategic-merge-patch+json"
    spec = json.loads(body)["spec"]["template"]["spec"]
    assert spec["$setElementOrder/containers"] == [{"name": "web"}]
    assert spec["containers"] == [{"image": "nginx:2", "name": "web"}]


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_apply_custom_resource_uses_merge_patch(served, tmp_path):
    server, home = served
    path = "/apis/rc.example.com/v1/namespaces/default/widgets/w"
    old = {"apiVersion": "rc.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
           "spec": {"size": "small", "tags": ["a"]}}
    live = json.loads(json.dumps(old))
    live["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(old)}
    server.objects[path] = live
    new = dict(old, spec={"size": "large", "tags": ["a"]})
    manifest = tmp_path / "w.json"
    manifest.write_text(json.dumps(new))
    del server.patches[:]
    try:
        proc = _kubectl(server.url, home, "apply", "-f", str(manifest))
    finally:
        del server.objects[path]
    assert proc.returncode == 0, proc.stderr
    (_, content_type, body), = server.patches
    assert content_type == "application/merge-patch+json"
    assert json.loads(body)["spec"] == {"size": "large"}
