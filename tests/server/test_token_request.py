"""serviceaccounts/NAME/token (TokenRequest) against `kubelite serve`, driven by /usr/bin/kubectl
(`kubectl create token`, which posts a protobuf TokenRequest) and a plain JSON request."""
from __future__ import annotations

import base64
import datetime
import json
import shutil

import httpx
import pytest

from test_serve_support import KUBECTL, kubectl_at, serving



@pytest.fixture(scope="module")
def served(tmp_path_factory):
    base = tmp_path_factory.mktemp("token")
    with serving(base) as server:
        yield server


def _kubectl(served, tmp_path, *args):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    return kubectl_at(served, tmp_path / "c", *args)


def _claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


@pytest.mark.kubectl
def test_kubectl_create_token(served, tmp_path):
    done = _kubectl(served, tmp_path, "create", "token", "default", "--audience", "api", "--duration", "2h")
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert token.count(".") == 2 and "\n" not in token
    claims = _claims(token)
    assert claims["sub"] == "system:serviceaccount:default:default"
    assert claims["aud"] == ["api"] and claims["exp"] - claims["iat"] == 7200


@pytest.mark.kubectl
def test_kubectl_create_token_errors(served, tmp_path):
    done = _kubectl(served, tmp_path, "create", "token", "missing")
    assert (done.returncode, done.stderr) == (1, 'error: failed to create token: serviceaccounts "missing" not found\n')
    done = _kubectl(served, tmp_path, "create", "token", "default", "--bound-object-kind", "Pod",
                    "--bound-object-name", "nopod")
    assert (done.returncode, done.stderr) == (1, 'error: failed to create token: pods "nopod" not found\n')
    done = _kubectl(served, tmp_path, "create", "token", "default", "--duration", "1m")
    assert done.returncode == 1 and "may not specify a duration less than 10 minutes" in done.stderr


def test_json_token_request_defaults(served):
    import ssl

    context = ssl.create_default_context(cafile=served.ca)
    with httpx.Client(verify=context, headers={"Authorization": f"Bearer {served.token}"}) as client:
        response = client.post(served.url + "/api/v1/namespaces/kube-system/serviceaccounts/default/token",
                               json={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
        assert response.status_code == 201, response.text
        body = response.json()
        assert body["kind"] == "TokenRequest" and body["apiVersion"] == "authentication.k8s.io/v1"
        assert body["metadata"]["name"] == "default" and body["metadata"]["namespace"] == "kube-system"
        assert body["spec"]["expirationSeconds"] == 3600
        expires = datetime.datetime.strptime(body["status"]["expirationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")
        created = datetime.datetime.strptime(body["metadata"]["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")
        assert (expires - created).total_seconds() == 3600
        assert client.get(served.url + "/api/v1/namespaces/kube-system/serviceaccounts/default/token").status_code == 405
