"""Discovery documents against the recorded kube-apiserver 1.32.13 (tests/data/reference), and
kubectl 1.32 reading them from a minimal HTTP server."""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest
from loopback import LoopbackServer, QuietHandler, reply
import yaml

from kubelite.server import discovery
from kubelite.server.discovery import Discovery, aggregated_version, encode
from kubelite.server.resources import Registry

REF = pathlib.Path(__file__).resolve().parent.parent / "data" / "reference"
KUBECTL = "/usr/bin/kubectl"
# What kubectl 1.32 sends for /api and /apis.
KUBECTL_ACCEPT = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")


def reference_bytes(name: str) -> bytes:
    return (REF / name).read_bytes().strip()


def reference_json(name: str):
    return json.loads((REF / name).read_text())


def crd_rich() -> dict:
    return yaml.safe_load((REF / "apiserver" / "defaults" / "crd-rich.in.yaml").read_text())


@pytest.fixture
def registry() -> Registry:
    return Registry()


# -- byte-for-byte with the recording -----------------------------------------------------------


def test_api_matches_recording(registry):
    assert encode(discovery.api_versions()) == reference_bytes("api.json")
    assert Discovery(registry).api() == reference_bytes("api.json")


def test_api_server_address_is_a_parameter():
    doc = discovery.api_versions("10.0.0.1:443", client_cidr="10.0.0.0/8")
    assert doc["serverAddressByClientCIDRs"] == [{"clientCIDR": "10.0.0.0/8", "serverAddress": "10.0.0.1:443"}]


def test_apis_matches_recording(registry):
    assert encode(discovery.api_group_list(registry)) == reference_bytes("apis.json")


@pytest.mark.parametrize("legacy,name", [(True, "api-aggregated-v2.json"), (False, "apis-aggregated-v2.json")])
def test_aggregated_matches_recording(registry, legacy, name):
    mine = json.loads(Discovery(registry).aggregated(legacy=legacy))
    recorded = reference_json(name)
    assert mine == recorded
    # Same field order everywhere (the recording was pretty-printed; the server sends it compact).
    assert json.dumps(mine) == json.dumps(recorded)


def test_aggregated_v2beta1_differs_only_in_api_version(registry):
    v2 = discovery.aggregated(registry, legacy=False)
    beta = discovery.aggregated(registry, legacy=False, version="v2beta1")
    assert beta["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    assert dict(beta, apiVersion=v2["apiVersion"]) == v2
    with pytest.raises(ValueError):
        discovery.aggregated(registry, legacy=False, version="v1")


def test_version_has_the_recorded_shape():
    mine = json.loads(Discovery(Registry()).version())
    recorded = reference_json("version.json")
    assert list(mine) == list(recorded)
    assert (mine["major"], mine["minor"]) == (recorded["major"], recorded["minor"])
    assert mine["gitVersion"].startswith("v1.32.")
    # The server indents /version, like the recording.
    assert Discovery(Registry()).version().startswith(b'{\n  "major": "1",')


# -- legacy per group-version lists -------------------------------------------------------------


def _aggregated_entries():
    for name, legacy in (("api-aggregated-v2.json", True), ("apis-aggregated-v2.json", False)):
        for item in reference_json(name)["items"]:
            group = "" if legacy else item["metadata"]["name"]
            for version in item["versions"]:
                yield group, version


@pytest.mark.parametrize("group,version", [(g, v) for g, v in _aggregated_entries()],
                         ids=lambda x: x if isinstance(x, str) else x["version"])
def test_resource_list_agrees_with_aggregated(registry, group, version):
    """/api/v1 and /apis/<g>/<v> carry the same facts as the recorded aggregated discovery,
    with subresources as `<resource>/<sub>` entries in path order."""
    doc = discovery.api_resource_list(registry, group, version["version"])
    assert list(doc) == ["kind", "apiVersion", "groupVersion", "resources"]
    assert doc["groupVersion"] == (f"{group}/{version['version']}" if group else "v1")
    expected = []
    for r in version["resources"]:
        entry = {"name": r["resource"], "singularName": r["singularResource"],
                 "namespaced": r["scope"] == "Namespaced", "kind": r["responseKind"]["kind"], "verbs": r["verbs"]}
        for key in ("shortNames", "categories"):
            if key in r:
                entry[key] = r[key]
        expected.append(entry)
        for s in r.get("subresources", []):
            sub = {"name": f"{r['resource']}/{s['subresource']}", "singularName": "",
                   "namespaced": r["scope"] == "Namespaced"}
            if s["responseKind"]["group"] or s["responseKind"]["version"]:
                sub.update(group=s["responseKind"]["group"], version=s["responseKind"]["version"])
            sub.update(kind=s["responseKind"]["kind"], verbs=s["verbs"])
            expected.append(sub)
    expected.sort(key=lambda e: e["name"])
    got = [{k: v for k, v in e.items() if k != "storageVersionHash"} for e in doc["resources"]]
    assert json.dumps(got) == json.dumps(expected)


def test_resource_list_storage_version_hashes(registry):
    # Values a real 1.32 server reports (hash of the storage group/version/kind).
    core = {e["name"]: e for e in discovery.api_resource_list(registry, "", "v1")["resources"]}
    assert core["pods"]["storageVersionHash"] == "xPOwRZ+Yhw8="
    assert core["configmaps"]["storageVersionHash"] == "qFsyl6wFWjQ="
    assert "storageVersionHash" not in core["bindings"]
    assert "storageVersionHash" not in core["pods/log"]
    apps = {e["name"]: e for e in discovery.api_resource_list(registry, "apps", "v1")["resources"]}
    assert apps["deployments"]["storageVersionHash"] == "8aSe+NMegvE="


def test_resource_list_subresource_entries(registry):
    core = {e["name"]: e for e in discovery.api_resource_list(registry, "", "v1")["resources"]}
    assert core["pods/log"] == {"name": "pods/log", "singularName": "", "namespaced": True, "kind": "Pod", "verbs": ["get"]}
    assert core["pods/eviction"] == {"name": "pods/eviction", "singularName": "", "namespaced": True,
                                     "group": "policy", "version": "v1", "kind": "Eviction", "verbs": ["create"]}
    apps = discovery.api_resource_list(registry, "apps", "v1")
    names = [e["name"] for e in apps["resources"]]
    assert names.index("deployments") < names.index("deployments/scale") < names.index("deployments/status") < names.index("replicasets")


def test_unknown_group_or_version(registry):
    assert discovery.api_resource_list(registry, "apps", "v1beta1") is None
    assert discovery.api_resource_list(registry, "nope.example.com", "v1") is None
    assert discovery.api_group(registry, "nope.example.com") is None
    assert discovery.api_group(registry, "") is None


def test_api_group(registry):
    doc = discovery.api_group(registry, "autoscaling")
    assert doc == {"kind": "APIGroup", "apiVersion": "v1", "name": "autoscaling",
                   "versions": [{"groupVersion": "autoscaling/v2", "version": "v2"},
                                {"groupVersion": "autoscaling/v1", "version": "v1"}],
                   "preferredVersion": {"groupVersion": "autoscaling/v2", "version": "v2"}}
    assert [g for g in reference_json("apis.json")["groups"] if g["name"] == "autoscaling"][0] == \
        {k: v for k, v in doc.items() if k not in ("kind", "apiVersion")}


# -- CRDs ---------------------------------------------------------------------------------------


def test_crd_group_appears_and_disappears(registry):
    cache = Discovery(registry)
    before = cache.apis()
    registry.register_crd(crd_rich())
    groups = json.loads(cache.apis())["groups"]
    assert groups[-1] == {"name": "rc.example.com",
                          "versions": [{"groupVersion": "rc.example.com/v1", "version": "v1"}],
                          "preferredVersion": {"groupVersion": "rc.example.com/v1", "version": "v1"}}
    agg = json.loads(cache.aggregated(legacy=False))
    item = agg["items"][-1]
    assert item["metadata"] == {"name": "rc.example.com", "creationTimestamp": None}
    (widgets,) = item["versions"][0]["resources"]
    assert widgets == {
        "resource": "widgets", "responseKind": {"group": "", "version": "", "kind": "Widget"},
        "scope": "Namespaced", "singularResource": "widget",
        "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
        "shortNames": ["wd"], "categories": ["all", "rc"],
        "subresources": [
            {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
             "verbs": ["get", "patch", "update"]},
            {"subresource": "status", "responseKind": {"group": "", "version": "", "kind": "Widget"},
             "verbs": ["get", "patch", "update"]}]}
    listing = json.loads(cache.resources("rc.example.com", "v1"))
    assert [e["name"] for e in listing["resources"]] == ["widgets", "widgets/scale", "widgets/status"]
    registry.unregister_crd("widgets.rc.example.com")
    assert cache.apis() == before
    assert cache.resources("rc.example.com", "v1") is None


# -- content negotiation ------------------------------------------------------------------------


@pytest.mark.parametrize("accept,expected", [
    (KUBECTL_ACCEPT, "v2"),
    ("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", "v2beta1"),
    ("application/json", None),
    ("application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", None),
    ("application/json;q=0.5, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "v2"),
    ("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json", None),
    ("*/*", None),
    ("", None),
    (None, None),
])
def test_aggregated_version_negotiation(accept, expected):
    assert aggregated_version(accept) == expected


def test_encode_escapes_like_go():
    assert encode({"d": "a<b>&c"}) == b'{"d":"a\\u003cb\\u003e\\u0026c"}'
    assert encode({"d": "é"}) == '{"d":"é"}'.encode()


# -- kubectl reads the documents ----------------------------------------------------------------


class _DiscoveryServer(LoopbackServer):
    """Just enough HTTP to let kubectl discover the registry's resources."""

    def __init__(self, registry: Registry, openapi=None, *, aggregated: bool = True):
        docs = Discovery(registry)
        self.requests: list[str] = []
        requests = self.requests
        # Objects GET can return and PATCH records against: path -> object.
        self.objects: dict[str, dict] = {}
        self.patches: list[tuple[str, str, bytes]] = []
        objects, patches = self.objects, self.patches

        class Handler(QuietHandler):
            def do_GET(self):
                requests.append(self.path)
                path = self.path.split("?", 1)[0].rstrip("/")
                agg = aggregated_version(self.headers.get("Accept")) if aggregated else None
                ctype = "application/json"
                body = None
                if path in ("/api", "/apis") and agg:
                    body = docs.aggregated(legacy=path == "/api", version=agg)
                    ctype = discovery.aggregated_content_type(agg)
                elif path == "/api":
                    body = docs.api()
                elif path == "/apis":
                    body = docs.apis()
                elif path == "/version":
                    body = docs.version()
                elif path == "/api/v1":
                    body = docs.resources("", "v1")
                elif path in objects:
                    body = json.dumps(objects[path]).encode()
                elif openapi is not None and path == "/openapi/v3":
                    body = openapi.v3_index_bytes()
                elif openapi is not None and path.startswith("/openapi/v3/"):
                    body = openapi.v3(path[len("/openapi/v3/"):])
                elif openapi is not None and path == "/openapi/v2":
                    body = openapi.v2()
                elif path.startswith("/apis/"):
                    parts = path.split("/")[2:]
                    if len(parts) == 2:
                        body = docs.resources(parts[0], parts[1])
                    elif len(parts) == 1:
                        body = docs.group(parts[0])
                if body is None:
                    reply(self, 404, b'{"kind":"Status","apiVersion":"v1","status":"Failure",'
                                     b'"reason":"NotFound","code":404}', ctype)
                else:
                    reply(self, 200, body, ctype)

            def do_PATCH(self):
                path = self.path.split("?", 1)[0]
                length = int(self.headers.get("Content-Length") or 0)
                patches.append((path, self.headers.get("Content-Type"), self.rfile.read(length)))
                body = json.dumps(objects.get(path, {})).encode()
                reply(self, 200 if path in objects else 404, body)

            def do_POST(self):
                requests.append("POST " + self.path)
                body = b'{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"MethodNotAllowed","code":405}'
                reply(self, 405, body)

        super().__init__(Handler)


def _kubectl(url: str, tmp_path, *args: str) -> str:
    env = dict(os.environ, KUBECONFIG=os.devnull, HOME=str(tmp_path))
    proc = subprocess.run([KUBECTL, "--server", url, "--cache-dir", str(tmp_path / "cache"), *args],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


needs_kubectl = pytest.mark.skipif(not shutil.which(KUBECTL) and not os.path.exists(KUBECTL), reason="no kubectl")


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_api_resources_matches_recording(tmp_path):
    with _DiscoveryServer(Registry()) as server:
        out = _kubectl(server.url, tmp_path, "api-resources", "-o", "wide")
    assert out == (REF / "api-resources.txt").read_text()


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_api_resources_from_legacy_lists_matches_recording(tmp_path):
    """A client without aggregated discovery reads /api/v1 and every /apis/<g>/<v>."""
    with _DiscoveryServer(Registry(), aggregated=False) as server:
        out = _kubectl(server.url, tmp_path, "api-resources", "-o", "wide")
    assert out == (REF / "api-resources.txt").read_text()
    assert "/apis/apps/v1" in [r.split("?")[0] for r in server.requests]


@pytest.mark.kubectl
@needs_kubectl
def test_kubectl_sees_crd_and_legacy_discovery(tmp_path):
    registry = Registry()
    registry.register_crd(crd_rich())
    with _DiscoveryServer(registry) as server:
        out = _kubectl(server.url, tmp_path, "api-resources", "--api-group=rc.example.com", "-o", "wide")
        versions = _kubectl(server.url, tmp_path, "api-versions")
    lines = out.splitlines()
    assert lines[1].split() == ["widgets", "wd", "rc.example.com/v1", "true", "Widget",
                                "delete,deletecollection,get,list,patch,create,update,watch", "all,rc"]
    assert "rc.example.com/v1" in versions.split()
    assert "autoscaling/v1" in versions.split() and "autoscaling/v2" in versions.split()
