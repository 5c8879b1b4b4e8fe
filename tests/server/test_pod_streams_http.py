"""exec, attach and portforward over HTTP on `kubelite serve`, as kube-apiserver answers them for a
pod whose kubelet cannot be reached.

kube-apiserver (pkg/registry/core/pod/strategy.go streamLocation, apimachinery's
UpgradeAwareHandler) first resolves the pod (404), its container (400) and its node (400 "pod X
does not have a host assigned"); then a request that is not an upgrade (no `Connection: Upgrade`)
is a 400 "Upgrade request required", and an upgrade whose dial of the kubelet fails is a 500
"error dialing backend: ...". A WebSocket handshake is declined with that same JSON answer.
"""
from __future__ import annotations

import ssl
import time

import pytest

from tests.server.test_serve_support import serving

httpx = pytest.importorskip("httpx")

PODS = "/api/v1/namespaces/default/pods"
SPDY = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io"}
WEBSOCKET = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "v5.channel.k8s.io"}
DIAL = "error dialing backend: dial tcp 127.0.0.1:10250: connect: connection refused"
SUBRESOURCES = ["exec?command=ls&stdout=true", "attach?stdout=true", "portforward?ports=80"]


def _pod(name: str, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("streams")) as server:
        with httpx.Client(base_url=server.url, verify=ssl.create_default_context(cafile=server.ca),
                          headers={"Authorization": f"Bearer {server.token}"}) as client:
            _wait_for_node(client, "node-a")  # made by the cluster's node controller at start
            client.post(PODS, json=_pod("bound", nodeName="node-a"))
            client.post(PODS, json=_pod("pending", nodeSelector={"no": "such"}))
            yield client


def _wait_for_node(client, name: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while client.get(f"/api/v1/nodes/{name}").status_code != 200:
        assert time.monotonic() < deadline, f"node {name} never appeared"
        time.sleep(0.1)


def _answer(api, method, path, headers):
    # each handshake on its own connection: a declined upgrade closes it
    got = api.request(method, path, headers={**headers, "Connection": headers.get("Connection", "close")})
    return got.status_code, got.json()


@pytest.mark.parametrize("sub", SUBRESOURCES)
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_upgrade_fails_to_dial_the_kubelet(api, sub, method):
    status, body = _answer(api, method, f"{PODS}/bound/{sub}", SPDY)
    assert (status, body["message"], body.get("reason")) == (500, DIAL, None)


@pytest.mark.parametrize("sub", SUBRESOURCES)
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_plain_request_asks_for_an_upgrade(api, sub, method):
    status, body = _answer(api, method, f"{PODS}/bound/{sub}", {})
    assert (status, body["reason"], body["message"]) == (400, "BadRequest", "Upgrade request required")


@pytest.mark.parametrize("sub", SUBRESOURCES)
def test_a_websocket_handshake_is_declined_with_the_status(api, sub):
    status, body = _answer(api, "GET", f"{PODS}/bound/{sub}", WEBSOCKET)
    assert (status, body["message"]) == (500, DIAL)
    status, body = _answer(api, "GET", f"{PODS}/missing/{sub}", WEBSOCKET)
    assert (status, body["reason"]) == (404, "NotFound")


@pytest.mark.parametrize("headers", [{}, SPDY], ids=["plain", "upgrade"])
def test_pod_checks_come_first(api, headers):
    assert _answer(api, "POST", f"{PODS}/missing/exec?command=ls", headers) == (404, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "missing" not found', "reason": "NotFound",
        "details": {"name": "missing", "kind": "pods"}, "code": 404})
    status, body = _answer(api, "POST", f"{PODS}/pending/exec?command=ls", headers)
    assert (status, body["message"]) == (400, "pod pending does not have a host assigned")
    status, body = _answer(api, "POST", f"{PODS}/bound/exec?command=ls&container=zz", headers)
    assert (status, body["message"]) == (400, "container zz is not valid for pod bound")
