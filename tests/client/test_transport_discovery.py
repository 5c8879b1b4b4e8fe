"""Transport failures as kubectl words them, and discovery (names, categories, CRDs, disk cache)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "server"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))

from test_serve_support import served, serving  # noqa: E402,F401


@pytest.fixture(scope="module")
def token_served(tmp_path_factory):
    """A served cluster whose kubeconfig carries the admin token (the default is a client
    certificate, which the server authenticates before any token)."""
    with serving(tmp_path_factory.mktemp("token-served"), "--kubeconfig-auth=token") as server:
        yield server


def _kubelite(env_home, *args, kubeconfig=None):
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env.update(HOME=str(env_home), KUBELITE_HOME=str(env_home / "kl"))
    argv = [sys.executable, "-m", "kubelite", *args] + (["--kubeconfig", str(kubeconfig)] if kubeconfig else [])
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)


def test_wrong_token_is_unauthorized(token_served, tmp_path):
    text = token_served.kubeconfig.read_text().replace(token_served.token, "wrong-token")
    bad = tmp_path / "bad"
    bad.write_text(text)
    r = _kubelite(tmp_path, "get", "ns", kubeconfig=bad)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "error: You must be logged in to the server (Unauthorized)\n")


def test_token_flag_overrides(token_served, tmp_path):
    r = _kubelite(tmp_path, "get", "ns", "default", "-o", "name", "--token", "nope",
                  kubeconfig=token_served.kubeconfig)
    assert r.stderr == "error: You must be logged in to the server (Unauthorized)\n"


def test_unreachable_server_wording(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "config"
    config.write_text(f"clusters:\n- name: c\n  cluster: {{server: 'https://127.0.0.1:{port}'}}\n"
                      "contexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n")
    r = _kubelite(tmp_path, "get", "ns", kubeconfig=config)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (f"The connection to the server 127.0.0.1:{port} was refused - did you specify the right "
                        "host or port?\n")


def test_verbose_logs_requests(served, tmp_path):
    r = _kubelite(tmp_path, "get", "ns", "default", "-v", "6", kubeconfig=served.kubeconfig)
    assert r.returncode == 0
    assert "GET https://127.0.0.1:" in r.stderr and "/api/v1/namespaces/default 200 OK in" in r.stderr


def test_retries_on_429_then_succeeds():
    import httpx

    from kubelite.client.transport import Transport

    answers = [httpx.Response(429, headers={"Retry-After": "0"}, json={"kind": "Status"}),
               httpx.Response(503, json={"kind": "Status"}), httpx.Response(200, json={"ok": True})]
    seen = []

    def handler(request):
        seen.append(request.method)
        return answers.pop(0)

    t = Transport(httpx.Client(transport=httpx.MockTransport(handler), base_url="http://x"), "x:80", embedded=False)
    started = time.monotonic()
    assert t.json("GET", "/api") == {"ok": True}
    assert seen == ["GET", "GET", "GET"] and time.monotonic() - started < 2
    # POST is not idempotent: no retry, the failure surfaces as an ApiError with the status.
    answers[:] = [httpx.Response(429, json={"kind": "Status", "reason": "TooManyRequests", "message": "slow",
                                            "code": 429})]
    from kubelite.client.errors import ApiError

    with pytest.raises(ApiError) as err:
        t.json("POST", "/api", body=b"{}")
    assert err.value.reason == "TooManyRequests" and err.value.code == 429


def test_discovery_names_and_categories(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path))
    from kubelite.client.discovery import Discovery
    from kubelite.client.errors import ResourceTypeNotFound
    from kubelite.client.transport import embedded

    with embedded() as t:
        d = Discovery(t)
        for typed, expected in [("po", "pods"), ("svc", "services"), ("deploy", "deployments.apps"),
                                ("rs", "replicasets.apps"), ("sts", "statefulsets.apps"), ("ds", "daemonsets.apps"),
                                ("cm", "configmaps"), ("ns", "namespaces"), ("sa", "serviceaccounts"),
                                ("ing", "ingresses.networking.k8s.io"), ("hpa", "horizontalpodautoscalers.autoscaling"),
                                ("pvc", "persistentvolumeclaims"), ("pv", "persistentvolumes"),
                                ("crd", "customresourcedefinitions.apiextensions.k8s.io"),
                                ("Deployment", "deployments.apps"), ("deployments.v1.apps", "deployments.apps"),
                                ("deploy.apps", "deployments.apps"), ("events", "events")]:
            assert d.resolve(typed).group_resource == expected, typed
        assert not d.resolve("ns").namespaced and d.resolve("cm").namespaced
        assert [r.resource for r in d.category("all")][:3] == ["pods", "replicationcontrollers", "services"]
        with pytest.raises(ResourceTypeNotFound) as err:
            d.resolve("foo.bar")
        assert str(err.value) == 'the server doesn\'t have a resource type "foo" in group "bar"'


CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wg"]},
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": {"type": "object",
                                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}


def test_crd_appears_through_the_disk_cache(served, tmp_path):
    """The cached discovery does not know the CRD; a miss refetches and finds it."""
    r = _kubelite(tmp_path, "get", "ns", "default", "-o", "name", kubeconfig=served.kubeconfig)
    assert r.returncode == 0
    cache = list((tmp_path / "kl" / "cache" / "discovery").glob("*/apis.json"))
    assert len(cache) == 1 and json.loads(cache[0].read_text())["etag"]
    crd = tmp_path / "crd.json"
    crd.write_text(json.dumps(CRD))
    assert _kubelite(tmp_path, "create", "-f", str(crd), kubeconfig=served.kubeconfig).returncode == 0
    widget = tmp_path / "w.yaml"
    widget.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec: {size: 3}\n")
    deadline = time.monotonic() + 10
    while True:  # the CRD is served once established
        r = _kubelite(tmp_path, "create", "-f", str(widget), kubeconfig=served.kubeconfig)
        if r.returncode == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert r.stdout == "widget.example.com/w1 created\n", r.stderr
    r = _kubelite(tmp_path, "get", "wg", "-o", "name", kubeconfig=served.kubeconfig)
    assert (r.returncode, r.stdout) == (0, "widget.example.com/w1\n")
    r = _kubelite(tmp_path, "delete", "widgets.v1.example.com", "w1", kubeconfig=served.kubeconfig)
    assert r.stdout == 'widget.example.com "w1" deleted\n'
