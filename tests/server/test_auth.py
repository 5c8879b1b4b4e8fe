"""Authentication: the admin token, signed service-account tokens, static token files, anonymous
requests, impersonation and the review APIs, through the in-process app of a Cluster with a token.

Expected bodies of the 401/403 cases are the recorded kube-apiserver ones
(tests/data/reference/apiserver/errors); the rest follows kube-apiserver's documented behaviour.
"""
from __future__ import annotations

import base64
import json
import pathlib

import pytest

from kubelite.server.auth.authn import TokenFileError, read_token_file
from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

ERRORS = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "errors"
ADMIN = "admin-token"
AUTHN = "/apis/authentication.k8s.io/v1"


@pytest.fixture
def cluster():
    with Cluster("memory://", clock=FakeClock(), token=ADMIN, controllers=False) as c:
        yield c


@pytest.fixture
def http(cluster):
    with cluster.http_client() as client:
        yield client


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def admin_post(http, path, body):
    r = http.post(path, headers=bearer(ADMIN), json=body)
    assert r.status_code == 201, r.text
    return r.json()


def sa_token(http, name="builder", namespace="default", **spec) -> str:
    if http.get(f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}", headers=bearer(ADMIN)).status_code == 404:
        admin_post(http, f"/api/v1/namespaces/{namespace}/serviceaccounts", {"metadata": {"name": name}})
    answer = admin_post(http, f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", {"spec": spec})
    return answer["status"]["token"]


def whoami(http, headers) -> dict:
    r = http.post(f"{AUTHN}/selfsubjectreviews", headers=headers,
                  json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert r.status_code == 201, r.text
    return r.json()


def test_admin_token_is_a_cluster_admin(http):
    review = whoami(http, bearer(ADMIN))
    assert review["metadata"] == {"creationTimestamp": None}
    assert review["status"]["userInfo"] == {"username": "kubernetes-admin",
                                            "groups": ["system:masters", "system:authenticated"]}


def test_wrong_token_is_401_with_the_recorded_body(http):
    r = http.get("/api/v1/namespaces/default/configmaps", headers=bearer("not-a-valid-token"))
    assert r.status_code == 401
    assert r.content == (ERRORS / "unauthenticated-bad-token.body.json").read_bytes()


@pytest.mark.parametrize("header", ["Basic YWRtaW46YWRtaW4=", "Bearer", "Bearer a.b.c", "Bearer ..",
                                    "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."])
def test_malformed_credentials_are_401(http, header):
    r = http.get("/api/v1/namespaces", headers={"Authorization": header})
    assert r.status_code == 401, r.text


def test_no_credentials_is_anonymous_and_forbidden(http):
    r = http.get("/api/v1/namespaces/rc-errors/configmaps")
    assert r.status_code == 403
    assert r.content == (ERRORS / "unauthenticated-no-token-resource.body.json").read_bytes()
    r = http.get("/api")
    assert r.content == (ERRORS / "unauthenticated-no-token-api.body.json").read_bytes()
    assert http.get("/readyz").text == "ok"
    assert http.get("/version").json()["major"] == "1"


def test_service_account_token_authenticates_as_the_account(http):
    token = sa_token(http)
    info = whoami(http, bearer(token))["status"]["userInfo"]
    assert info["username"] == "system:serviceaccount:default:builder"
    assert info["groups"] == ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]
    assert info["uid"]
    assert info["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("JTI=")
    header, claims, _ = token.split(".")
    assert json.loads(base64.urlsafe_b64decode(header + "=="))["alg"] == "ES256"
    assert json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["sub"] == \
        "system:serviceaccount:default:builder"


def test_service_account_token_without_grants_is_forbidden(http):
    r = http.get("/api/v1/namespaces/default/pods", headers=bearer(sa_token(http)))
    assert r.status_code == 403
    assert r.json()["message"] == ('pods is forbidden: User "system:serviceaccount:default:builder" cannot list '
                                   'resource "pods" in API group "" in the namespace "default"')


def test_expired_token_is_401(cluster, http):
    token = sa_token(http, expirationSeconds=600)
    assert whoami(http, bearer(token))
    cluster.clock.advance(601)
    assert http.get("/api", headers=bearer(token)).status_code == 401


def test_other_audience_is_not_accepted_by_the_api_but_by_a_token_review_for_it(http):
    token = sa_token(http, audiences=["vault"])
    assert http.get("/api", headers=bearer(token)).status_code == 401
    review = admin_post(http, f"{AUTHN}/tokenreviews", {"spec": {"token": token, "audiences": ["vault"]}})
    assert review["status"]["authenticated"] is True
    assert review["status"]["audiences"] == ["vault"]
    assert review["status"]["user"]["username"] == "system:serviceaccount:default:builder"


def test_token_of_a_deleted_account_or_bound_object_stops_working(http):
    token = sa_token(http)
    admin_post(http, "/api/v1/namespaces/default/secrets", {"metadata": {"name": "key"}})
    bound = sa_token(http, boundObjectRef={"kind": "Secret", "apiVersion": "v1", "name": "key"})
    assert whoami(http, bearer(bound))["status"]["userInfo"]["extra"]["authentication.kubernetes.io/secret-name"] \
        == ["key"]
    assert http.delete("/api/v1/namespaces/default/secrets/key", headers=bearer(ADMIN)).status_code == 200
    assert http.get("/api", headers=bearer(bound)).status_code == 401
    assert http.delete("/api/v1/namespaces/default/serviceaccounts/builder", headers=bearer(ADMIN)).status_code == 200
    assert http.get("/api", headers=bearer(token)).status_code == 401


def test_token_signed_by_another_server_is_401():
    with Cluster("memory://", clock=FakeClock(), token=ADMIN, controllers=False) as other:
        with other.http_client() as client:
            foreign = sa_token(client)
    with Cluster("memory://", clock=FakeClock(), token=ADMIN, controllers=False) as c, c.http_client() as client:
        sa_token(client)  # the same account exists here too
        assert client.get("/api", headers=bearer(foreign)).status_code == 401


def test_token_review_of_a_bad_token(http):
    review = admin_post(http, f"{AUTHN}/tokenreviews", {"spec": {"token": "garbage"}})
    assert review["status"].get("authenticated") is None
    assert review["status"]["error"]
    r = http.post(f"{AUTHN}/tokenreviews", headers=bearer(ADMIN), json={"spec": {}})
    assert r.status_code == 422


def test_review_apis_are_create_only_and_never_stored(http):
    for path in (f"{AUTHN}/selfsubjectreviews", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"):
        assert http.get(path, headers=bearer(ADMIN)).status_code == 405
        assert http.get(path + "/x", headers=bearer(ADMIN)).status_code == 405


def test_static_token_file(tmp_path, cluster, http):
    path = tmp_path / "tokens.csv"
    path.write_text('tok-alice,alice,1001,"devs,ops"\n# a comment\ntok-bob,bob,1002\n')
    cluster.app.auth.authn.add_tokens(read_token_file(path))
    info = whoami(http, bearer("tok-alice"))["status"]["userInfo"]
    assert info == {"username": "alice", "uid": "1001", "groups": ["devs", "ops", "system:authenticated"]}
    assert whoami(http, bearer("tok-bob"))["status"]["userInfo"]["username"] == "bob"


@pytest.mark.parametrize("text", ["justatoken\n", ",alice,1\n"])
def test_bad_token_file_names_file_and_line(tmp_path, text):
    path = tmp_path / "tokens.csv"
    path.write_text(text)
    with pytest.raises(TokenFileError, match=r"tokens.csv, line 1"):
        read_token_file(path)


def test_impersonation_by_admin_then_rbac_decides(http):
    headers = {**bearer(ADMIN), "Impersonate-User": "jane"}
    r = http.get("/api/v1/namespaces/rc-errors/configmaps", headers=headers)
    assert r.status_code == 403
    assert r.content == (ERRORS / "impersonate-forbidden-user.body.json").read_bytes()
    info = whoami(http, {**bearer(ADMIN), "Impersonate-User": "jane", "Impersonate-Group": "devs"})
    assert info["status"]["userInfo"] == {"username": "jane", "groups": ["devs", "system:authenticated"]}


def test_impersonating_a_service_account_adds_its_groups(http):
    info = whoami(http, {**bearer(ADMIN), "Impersonate-User": "system:serviceaccount:ci:bot"})["status"]["userInfo"]
    assert info["groups"] == ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"]


def test_impersonation_without_permission_is_forbidden(http):
    token = sa_token(http)
    r = http.get("/api", headers={**bearer(token), "Impersonate-User": "jane"})
    assert r.status_code == 403
    assert r.json()["message"] == ('users "jane" is forbidden: User "system:serviceaccount:default:builder" cannot '
                                   'impersonate resource "users" in API group "" at the cluster scope')


def test_impersonating_groups_without_a_user_is_bad_request(http):
    r = http.get("/api", headers={**bearer(ADMIN), "Impersonate-Group": "devs"})
    assert r.status_code == 400


def test_in_process_door_is_admin_but_rbac_decides_for_impersonated_users():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as c, c.http_client() as client:
        assert client.get("/api/v1/namespaces/default/configmaps").status_code == 200
        r = client.get("/api/v1/namespaces/default/configmaps", headers={"Impersonate-User": "jane"})
        assert r.status_code == 403
        assert client.get("/api", headers={"Impersonate-User": "jane"}).status_code == 200  # system:discovery


def test_legacy_service_account_token_secret():
    with Cluster("memory://", clock=FakeClock(), token=ADMIN) as c, c.http_client() as client:
        admin_post(client, "/api/v1/namespaces/default/serviceaccounts", {"metadata": {"name": "legacy"}})
        admin_post(client, "/api/v1/namespaces/default/secrets", {
            "metadata": {"name": "legacy-token", "annotations": {"kubernetes.io/service-account.name": "legacy"}},
            "type": "kubernetes.io/service-account-token"})
        assert c.settle()
        secret = client.get("/api/v1/namespaces/default/secrets/legacy-token", headers=bearer(ADMIN)).json()
        assert base64.b64decode(secret["data"]["namespace"]) == b"default"
        assert secret["metadata"]["annotations"]["kubernetes.io/service-account.uid"]
        token = base64.b64decode(secret["data"]["token"]).decode()
        info = whoami(client, bearer(token))["status"]["userInfo"]
        assert info["username"] == "system:serviceaccount:default:legacy"
        # the account deleted: its token secret goes too, and the token stops working
        assert client.delete("/api/v1/namespaces/default/serviceaccounts/legacy",
                             headers=bearer(ADMIN)).status_code == 200
        assert c.settle()
        assert client.get("/api/v1/namespaces/default/secrets/legacy-token", headers=bearer(ADMIN)).status_code == 404
        assert client.get("/api", headers=bearer(token)).status_code == 401
