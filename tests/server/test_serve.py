"""`kubelite serve`: TLS, token, 401s and anonymous 403s, /version, restart persistence, clean SIGTERM shutdown."""
from __future__ import annotations

import json
import pathlib
import ssl

import httpx
import pytest
import yaml

from test_serve_support import Served

REFERENCE = pathlib.Path(__file__).parent.parent / "data" / "reference"


@pytest.fixture
def served(tmp_path):
    server = Served(tmp_path / "data", tmp_path / "kubeconfig").start()
    try:
        yield server
    finally:
        server.stop()


def _client(server, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.url, verify=ssl.create_default_context(cafile=server.ca),
                        headers=headers, timeout=10)


def test_version_matches_reference_and_is_public(served):
    with _client(served) as c:
        r = c.get("/version")
    assert r.status_code == 200
    reference = json.loads((REFERENCE / "version.json").read_text())
    assert r.json()["gitVersion"] == reference["gitVersion"]
    assert set(r.json()) == set(reference)


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/livez"])
def test_health_endpoints_are_public(served, path):
    with _client(served) as c:
        r = c.get(path)
    assert (r.status_code, r.text) == (200, "ok")


def test_unauthenticated_resource_request_is_anonymous_and_forbidden(served):
    # kube-apiserver's default: no credentials make the request system:anonymous; RBAC refuses.
    expected = (REFERENCE / "apiserver/errors/unauthenticated-no-token-resource.body.json").read_bytes()
    with _client(served) as c:
        r = c.get("/api/v1/namespaces/rc-errors/configmaps")
    assert r.status_code == 403
    assert r.content == expected


def test_invalid_token_is_401_even_for_version(served):
    expected = (REFERENCE / "apiserver/errors/unauthenticated-bad-token-version.body.json").read_bytes()
    with _client(served, "not-a-valid-token") as c:
        r = c.get("/version")
    assert r.status_code == 401
    assert r.content == expected


def test_kubeconfig_has_ca_data_and_a_client_certificate(served):
    # as kind writes its kubeconfigs; --kubeconfig-auth=token writes the token instead
    config = yaml.safe_load(served.kubeconfig.read_text())
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"] == served.url
    assert "certificate-authority-data" in cluster
    user = config["users"][0]["user"]
    assert set(user) == {"client-certificate-data", "client-key-data"}


def test_kubeconfig_with_the_token(tmp_path):
    server = Served(tmp_path / "data", tmp_path / "kubeconfig", ("--kubeconfig-auth=token", "--controllers=-*"))
    server.start()
    try:
        config = yaml.safe_load(server.kubeconfig.read_text())
        assert config["users"][0]["user"] == {"token": server.token}
    finally:
        server.stop()


def test_certificate_names_localhost_and_loopback(served):
    for host in ("127.0.0.1", "localhost"):
        url = served.url.replace("127.0.0.1", host)
        with httpx.Client(verify=ssl.create_default_context(cafile=served.ca), timeout=10) as c:
            assert c.get(url + "/readyz").status_code == 200


def test_restart_keeps_objects_revision_token_and_ca(tmp_path):
    server = Served(tmp_path / "data", tmp_path / "kubeconfig").start()
    try:
        token, ca = server.token, pathlib.Path(server.ca).read_bytes()
        with _client(server, token) as c:
            r = c.post("/api/v1/namespaces/default/configmaps",
                       json={"metadata": {"name": "keep"}, "data": {"a": "1"}})
            assert r.status_code == 201
            rv = int(r.json()["metadata"]["resourceVersion"])
    finally:
        assert server.stop() == 0
    again = Served(tmp_path / "data", tmp_path / "kubeconfig").start()
    try:
        assert again.token == token
        assert pathlib.Path(again.ca).read_bytes() == ca
        with _client(again, token) as c:
            got = c.get("/api/v1/namespaces/default/configmaps/keep")
            assert got.status_code == 200
            assert got.json()["data"] == {"a": "1"}
            assert int(got.json()["metadata"]["resourceVersion"]) == rv
            listed = c.get("/api/v1/namespaces/default/configmaps").json()
            assert int(listed["metadata"]["resourceVersion"]) >= rv
            created = c.post("/api/v1/namespaces/default/configmaps", json={"metadata": {"name": "next"}})
            assert int(created.json()["metadata"]["resourceVersion"]) > rv
    finally:
        again.stop()


def test_dry_run_stores_nothing(served):
    with _client(served, served.token) as c:
        r = c.post("/api/v1/namespaces/default/configmaps?dryRun=All", json={"metadata": {"name": "dry"}})
        assert r.status_code == 201
        assert "resourceVersion" not in r.json()["metadata"]
        assert c.get("/api/v1/namespaces/default/configmaps/dry").status_code == 404


def test_a_body_larger_than_a_write_slice_arrives_whole(served):
    """Large answers go out in slices (server/app.py): a LIST of ~2.5 MB, read back over TLS by
    httpx and by kubectl, is the same list the in-process path would give, every byte there."""
    import subprocess

    from kubelite.server import app as app_module

    blob = "y" * 400_000
    with _client(served, served.token) as c:
        for i in range(6):
            r = c.post("/api/v1/namespaces/default/configmaps",
                       json={"metadata": {"name": f"big-{i}"}, "data": {"blob": blob + str(i)}})
            assert r.status_code == 201, r.text
        r = c.get("/api/v1/namespaces/default/configmaps")
    assert r.status_code == 200
    assert len(r.content) > 4 * app_module._SLICE
    assert int(r.headers["content-length"]) == len(r.content)
    items = {item["metadata"]["name"]: item["data"]["blob"] for item in r.json()["items"]
             if item["metadata"]["name"].startswith("big-")}
    assert items == {f"big-{i}": blob + str(i) for i in range(6)}
    kubectl = pathlib.Path("/usr/bin/kubectl")
    if kubectl.exists():
        out = subprocess.run([str(kubectl), "--kubeconfig", str(served.kubeconfig), "get", "configmaps",
                              "-o", "json"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert sorted(i["metadata"]["name"] for i in json.loads(out.stdout)["items"]
                      if i["metadata"]["name"].startswith("big-")) == [f"big-{i}" for i in range(6)]
