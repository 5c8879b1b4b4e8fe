"""Discovery against servers without aggregated discovery v2: the legacy documents (APIVersions,
APIGroupList, one APIResourceList per group-version) and servers speaking only v2beta1.

The tiny HTTP server serves documents generated from the 1.32 resource table (checked against a
recorded kube-apiserver in tests/server/test_discovery.py); the expected `api-resources -o wide`
output is kubectl's, recorded against a real kube-apiserver 1.32.13, and `api-versions` /
`get` outputs are compared with /usr/bin/kubectl reading the same server.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from loopback import LoopbackServer, QuietHandler, reply

from kubelite.server import discovery
from kubelite.server.discovery import Discovery
from kubelite.server.resources import Registry

REF = pathlib.Path(__file__).resolve().parent.parent / "data" / "reference"
KUBECTL = "/usr/bin/kubectl"
needs_kubectl = pytest.mark.skipif(not shutil.which(KUBECTL), reason="no kubectl")

NAMESPACE = {"kind": "Namespace", "apiVersion": "v1",
             "metadata": {"name": "default", "uid": "5b0c6b5e-0000-4000-8000-000000000001",
                          "resourceVersion": "7", "creationTimestamp": "2024-01-01T00:00:00Z",
                          "labels": {"kubernetes.io/metadata.name": "default"}},
             "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
CONFIGMAPS = {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"},
              "items": [{"metadata": {"name": "a", "namespace": "default", "resourceVersion": "8",
                                      "creationTimestamp": "2024-01-01T00:00:00Z"}, "data": {"k": "v"}},
                        {"metadata": {"name": "b", "namespace": "default", "resourceVersion": "9",
                                      "creationTimestamp": "2024-01-01T00:00:00Z"}}]}


class OldServer(LoopbackServer):
    """An API server that knows only legacy discovery (`mode="legacy"`) or only aggregated
    discovery v2beta1 (`mode="v2beta1"`), plus two read-only objects."""

    def __init__(self, mode: str):
        docs = Discovery(Registry())
        self.requests: list[str] = []
        requests = self.requests
        objects = {"/api/v1/namespaces/default": NAMESPACE, "/api/v1/namespaces/default/configmaps": CONFIGMAPS}

        class Handler(QuietHandler):
            def do_GET(self):
                requests.append(self.path.split("?", 1)[0])
                path = self.path.split("?", 1)[0].rstrip("/")
                accept = self.headers.get("Accept") or ""
                ctype, body = "application/json", None
                if path in ("/api", "/apis") and mode == "v2beta1" and "v=v2beta1" in accept:
                    body = docs.aggregated(legacy=path == "/api", version="v2beta1")
                    ctype = discovery.aggregated_content_type("v2beta1")
                elif path == "/api":
                    body = docs.api()
                elif path == "/apis":
                    body = docs.apis()
                elif path == "/version":
                    body = docs.version()
                elif path in objects:
                    body = json.dumps(objects[path]).encode()
                elif mode == "legacy" and path == "/api/v1":
                    body = docs.resources("", "v1")
                elif mode == "legacy" and path.startswith("/apis/") and path.count("/") == 3:
                    _, _, group, version = path.split("/")
                    body = docs.resources(group, version)
                if body is None:
                    reply(self, 404, (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                            b'"message":"the server could not find the requested resource","reason":"NotFound",'
                            b'"details":{},"code":404}'), ctype)
                else:
                    reply(self, 200, body, ctype)

        super().__init__(Handler)


def _env(home: pathlib.Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(home), KUBELITE_HOME=str(home / "kl"), KUBECONFIG=os.devnull)
    return env


def kubelite(home: pathlib.Path, url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kubelite", *args, "--server", url], capture_output=True,
                          text=True, env=_env(home), timeout=60)


def kubectl(home: pathlib.Path, url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([KUBECTL, *args, "--server", url, "--cache-dir", str(home / "kcache")],
                          capture_output=True, text=True, env=_env(home), timeout=60)


@pytest.mark.parametrize("mode", ["legacy", "v2beta1"])
def test_api_resources_as_recorded_from_a_real_server(mode, tmp_path):
    with OldServer(mode) as server:
        r = kubelite(tmp_path, server.url, "api-resources", "-o", "wide")
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == (REF / "api-resources.txt").read_text()
    if mode == "legacy":
        assert {"/api/v1", "/apis/apps/v1", "/apis/autoscaling/v2", "/apis/autoscaling/v1"} <= set(server.requests)
    else:
        assert not any(p.startswith("/apis/apps") for p in server.requests)


@pytest.mark.parametrize("mode", ["legacy", "v2beta1"])
def test_names_resolve_and_get_works(mode, tmp_path):
    with OldServer(mode) as server:
        ns = kubelite(tmp_path, server.url, "get", "ns", "default", "-o", "json")
        names = kubelite(tmp_path, server.url, "get", "cm", "-o", "name")
        missing = kubelite(tmp_path, server.url, "get", "nosuchthing")
        scale = kubelite(tmp_path, server.url, "api-resources", "--api-group=apps", "-o", "name")
    assert ns.returncode == 0, ns.stderr
    assert json.loads(ns.stdout) == NAMESPACE
    assert (names.returncode, names.stdout) == (0, "configmap/a\nconfigmap/b\n")
    assert (missing.returncode, missing.stderr) == (1, 'error: the server doesn\'t have a resource type "nosuchthing"\n')
    assert scale.stdout.splitlines() == ["controllerrevisions.apps", "daemonsets.apps", "deployments.apps",
                                         "replicasets.apps", "statefulsets.apps"]


def test_legacy_documents_are_cached_on_disk(tmp_path):
    with OldServer("legacy") as server:
        first = kubelite(tmp_path, server.url, "get", "ns", "default", "-o", "name")
        fetched = list(server.requests)
        server.requests.clear()
        second = kubelite(tmp_path, server.url, "get", "deploy", "-o", "name", "--ignore-not-found")
    assert first.stdout == "namespace/default\n"
    assert "/apis/apps/v1" in fetched
    assert second.returncode == 0, second.stderr
    assert not [p for p in server.requests if p in ("/api", "/apis", "/api/v1", "/apis/apps/v1")]


def test_a_failing_group_version_is_skipped_with_kubectl_error_line(tmp_path):
    """kubectl goes on with the groups it could read and logs the failed one."""
    with OldServer("legacy") as server:
        server.httpd.RequestHandlerClass.do_GET_orig = server.httpd.RequestHandlerClass.do_GET

        def failing(handler):
            if handler.path.startswith("/apis/batch/v1"):
                handler.send_response(503)
                handler.send_header("Content-Length", "0")
                handler.end_headers()
                return
            handler.do_GET_orig()

        server.httpd.RequestHandlerClass.do_GET = failing
        r = kubelite(tmp_path, server.url, "api-resources", "-o", "name")
    assert r.returncode == 0
    assert "jobs.batch" not in r.stdout.split() and "deployments.apps" in r.stdout.split()
    assert "couldn't get resource list for batch/v1: the server is currently unable to handle the request" in r.stderr


@pytest.mark.kubectl
@needs_kubectl
@pytest.mark.parametrize("mode", ["legacy", "v2beta1"])
def test_same_as_kubectl(mode, tmp_path):
    with OldServer(mode) as server:
        for args in (("api-versions",), ("api-resources", "--namespaced=false"), ("get", "cm", "-o", "yaml"),
                     ("get", "namespaces/default", "-o", "name")):
            ours, theirs = kubelite(tmp_path, server.url, *args), kubectl(tmp_path, server.url, *args)
            assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args
