"""RBAC: rules, bindings, aggregation, the bootstrap policy, kube-apiserver's 403 texts for every
verb, and the access-review APIs (whose answers never touch the store).

The 403 sentence is kube-apiserver's (responsewriters' forbiddenMessage, checked against the
recorded bodies in tests/data/reference/apiserver/errors by tests/server/test_auth.py); the
reasons of allowed reviews follow the RBAC authorizer's wording.
"""
from __future__ import annotations

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster

ADMIN = {"Authorization": "Bearer admin-token"}
RBAC = "/apis/rbac.authorization.k8s.io/v1"
AUTHZ = "/apis/authorization.k8s.io/v1"


@pytest.fixture
def http():
    with Cluster("memory://", clock=FakeClock(), token="admin-token", controllers=False) as c:
        with c.http_client() as client:
            yield client


def create(http, path, body):
    r = http.post(path, headers=ADMIN, json=body)
    assert r.status_code == 201, r.text
    return r.json()


def as_user(name, *groups):
    headers = {**ADMIN, "Impersonate-User": name}
    if groups:
        headers["Impersonate-Group"] = ", ".join(groups)
    return headers


def role(http, name, rules, namespace="default"):
    return create(http, f"{RBAC}/namespaces/{namespace}/roles", {"metadata": {"name": name}, "rules": rules})


def bind(http, name, role_name, subjects, namespace="default", kind="Role"):
    body = {"metadata": {"name": name}, "subjects": subjects,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role_name}}
    path = f"{RBAC}/namespaces/{namespace}/rolebindings" if namespace else f"{RBAC}/clusterrolebindings"
    return create(http, path, body)


def user(name):
    return {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": name}


def test_bootstrap_policy_is_created(http):
    names = {i["metadata"]["name"] for i in http.get(f"{RBAC}/clusterroles", headers=ADMIN).json()["items"]}
    assert {"cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user",
            "system:public-info-viewer", "system:aggregate-to-view"} <= names
    binding = http.get(f"{RBAC}/clusterrolebindings/cluster-admin", headers=ADMIN).json()
    assert binding["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                                    "name": "system:masters"}]


def test_bootstrap_policy_is_reconciled_at_start():
    """What kube-apiserver's bootstrap reconciliation does to an edited policy at its next start:
    lost rules and subjects come back, additions stay, a changed roleRef is made again, and
    objects annotated autoupdate=false are left as they are."""
    from kubelite.server.auth.bootstrap import ensure_policy, objects

    expected = {o["metadata"]["name"]: o for o in objects("clusterroles")}
    with Cluster("memory://", clock=FakeClock(), token="admin-token", controllers=False) as c, \
            c.http_client() as http:
        controller = f"{RBAC}/clusterroles/system:controller:deployment-controller"
        role = http.get(controller, headers=ADMIN).json()
        extra = {"verbs": ["get"], "apiGroups": ["example.com"], "resources": ["widgets"]}
        role["rules"] = role["rules"][:1] + [extra]
        assert http.put(controller, headers=ADMIN, json=role).status_code == 200
        discovery = f"{RBAC}/clusterrolebindings/system:discovery"
        binding = http.get(discovery, headers=ADMIN).json()
        binding["subjects"] = [user("someone")]
        assert http.put(discovery, headers=ADMIN, json=binding).status_code == 200
        basic = f"{RBAC}/clusterrolebindings/system:basic-user"
        before = http.get(basic, headers=ADMIN).json()
        assert http.delete(basic, headers=ADMIN).status_code == 200
        bind(http, "system:basic-user", "view", [user("someone")], namespace="", kind="ClusterRole")
        kept = f"{RBAC}/clusterroles/system:public-info-viewer"
        opted_out = http.get(kept, headers=ADMIN).json()
        opted_out["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = "false"
        opted_out["rules"] = []
        assert http.put(kept, headers=ADMIN, json=opted_out).status_code == 200

        ensure_policy(c.api)  # what the next start of the server does

        rules = http.get(controller, headers=ADMIN).json()["rules"]
        assert extra in rules
        wanted = expected["system:controller:deployment-controller"]["rules"]
        held = {(g, res, v) for r in rules for g in r.get("apiGroups") or []
                for res in r.get("resources") or [] for v in r["verbs"]}
        for rule in wanted:  # every (group, resource, verb) of the bootstrap rules is held again
            for group in rule.get("apiGroups") or []:
                for resource in rule.get("resources") or []:
                    for verb in rule["verbs"]:
                        assert (group, resource, verb) in held, (group, resource, verb)
        subjects = http.get(discovery, headers=ADMIN).json()["subjects"]
        assert user("someone") in subjects
        assert {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"} in subjects
        remade = http.get(basic, headers=ADMIN).json()
        assert remade["roleRef"] == before["roleRef"] and remade["subjects"] == before["subjects"]
        assert http.get(kept, headers=ADMIN).json().get("rules") is None


@pytest.mark.parametrize("method,path,message", [
    ("GET", "/api/v1/namespaces/default/secrets/s",
     'secrets "s" is forbidden: User "jane" cannot get resource "secrets" in API group "" in the namespace "default"'),
    ("GET", "/api/v1/namespaces/default/secrets?watch=true",
     'secrets is forbidden: User "jane" cannot watch resource "secrets" in API group "" in the namespace "default"'),
    ("DELETE", "/api/v1/namespaces/default/secrets",
     'secrets is forbidden: User "jane" cannot deletecollection resource "secrets" in API group "" in the '
     'namespace "default"'),
    ("GET", "/api/v1/nodes",
     'nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope'),
    ("GET", "/apis/apps/v1/namespaces/default/deployments/d/scale",
     'deployments.apps "d" is forbidden: User "jane" cannot get resource "deployments/scale" in API group "apps" '
     'in the namespace "default"'),
    ("GET", "/metrics", 'forbidden: User "jane" cannot get path "/metrics"'),
])
def test_forbidden_messages(http, method, path, message):
    r = http.request(method, path, headers=as_user("jane"))
    assert r.status_code == 403
    assert r.json()["message"] == message
    assert r.json()["reason"] == "Forbidden"


def test_dry_run_create_is_authorized_like_a_create(http):
    r = http.post("/api/v1/namespaces/default/configmaps?dryRun=All", headers=as_user("jane"),
                  json={"metadata": {"name": "x"}})
    assert r.status_code == 403
    assert "cannot create resource" in r.json()["message"]


def test_role_rules_verbs_resource_names_and_subresources(http):
    role(http, "cm-reader", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"],
                              "resourceNames": ["allowed"]},
                             {"apiGroups": ["apps"], "resources": ["deployments/scale"], "verbs": ["get"]}])
    bind(http, "jane-cm", "cm-reader", [user("jane")])
    create(http, "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "allowed"}})
    create(http, "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "other"}})
    assert http.get("/api/v1/namespaces/default/configmaps/allowed", headers=as_user("jane")).status_code == 200
    assert http.get("/api/v1/namespaces/default/configmaps/other", headers=as_user("jane")).status_code == 403
    assert http.get("/api/v1/namespaces/default/configmaps", headers=as_user("jane")).status_code == 403
    assert http.get("/api/v1/namespaces/other/configmaps/allowed", headers=as_user("jane")).status_code == 403
    assert http.get("/apis/apps/v1/namespaces/default/deployments/d", headers=as_user("jane")).status_code == 403
    # the subresource is allowed: the request goes through (404: no such deployment)
    assert http.get("/apis/apps/v1/namespaces/default/deployments/d/scale",
                    headers=as_user("jane")).status_code == 404


def test_group_subjects_and_cluster_role_in_a_namespace(http):
    bind(http, "devs-edit", "edit", [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"}],
         kind="ClusterRole")
    headers = as_user("bob", "devs")
    r = http.post("/api/v1/namespaces/default/configmaps", headers=headers, json={"metadata": {"name": "c"}})
    assert r.status_code == 201, r.text
    assert http.get("/api/v1/namespaces/kube-system/configmaps", headers=headers).status_code == 403
    assert http.get("/api/v1/namespaces/default/configmaps", headers=as_user("bob")).status_code == 403


def test_service_account_subject_and_wildcards(http):
    create(http, f"{RBAC}/clusterroles", {"metadata": {"name": "all-apps"},
                                          "rules": [{"apiGroups": ["apps"], "resources": ["*"], "verbs": ["*"]},
                                                    {"nonResourceURLs": ["/metrics*"], "verbs": ["get"]}]})
    bind(http, "bot-apps", "all-apps", [{"kind": "ServiceAccount", "name": "bot", "namespace": "ci"}],
         namespace="", kind="ClusterRole")
    headers = as_user("system:serviceaccount:ci:bot")
    assert http.get("/apis/apps/v1/statefulsets", headers=headers).status_code == 200
    assert http.get("/api/v1/pods", headers=headers).status_code == 403
    assert http.get("/metrics/x", headers=headers).status_code != 403


def test_aggregated_cluster_role_picks_up_labelled_roles(http):
    create(http, f"{RBAC}/clusterroles", {"metadata": {"name": "widgets-view", "labels": {
        "rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["list"]}]})
    bind(http, "jane-admin", "admin", [user("jane")], kind="ClusterRole")
    attrs = {"namespace": "default", "verb": "list", "group": "example.com", "resource": "widgets"}
    r = http.post(f"{AUTHZ}/selfsubjectaccessreviews", headers=as_user("jane"),
                  json={"spec": {"resourceAttributes": attrs}})
    assert r.json()["status"]["allowed"] is True  # admin aggregates edit, edit view, view the new role
    attrs["namespace"] = "other"
    r = http.post(f"{AUTHZ}/selfsubjectaccessreviews", headers=as_user("jane"),
                  json={"spec": {"resourceAttributes": attrs}})
    assert r.json()["status"]["allowed"] is False
    assert http.get("/apis/apps/v1/namespaces/default/deployments", headers=as_user("jane")).status_code == 200


def test_self_subject_access_review_answers_with_the_rbac_reason(http):
    role(http, "pod-reader", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}])
    bind(http, "jane-pods", "pod-reader", [user("jane")])
    spec = {"resourceAttributes": {"namespace": "default", "verb": "list", "resource": "pods"}}
    r = http.post(f"{AUTHZ}/selfsubjectaccessreviews", headers=as_user("jane"), json={"spec": spec})
    assert r.status_code == 201
    assert r.json()["status"] == {"allowed": True, "reason": 'RBAC: allowed by RoleBinding "jane-pods/default" of '
                                                            'Role "pod-reader" to User "jane"'}
    spec["resourceAttributes"]["verb"] = "delete"
    assert http.post(f"{AUTHZ}/selfsubjectaccessreviews", headers=as_user("jane"),
                     json={"spec": spec}).json()["status"] == {"allowed": False}
    # masters are allowed before RBAC is asked: no reason
    assert create(http, f"{AUTHZ}/selfsubjectaccessreviews", {"spec": spec})["status"] == {"allowed": True}


def test_subject_access_reviews(http):
    bind(http, "jane-view", "view", [user("jane")], kind="ClusterRole")
    attrs = {"namespace": "default", "verb": "get", "resource": "configmaps"}
    sar = create(http, f"{AUTHZ}/subjectaccessreviews", {"spec": {"user": "jane", "resourceAttributes": attrs}})
    assert sar["status"]["allowed"] is True
    assert sar["status"]["reason"] == ('RBAC: allowed by RoleBinding "jane-view/default" of ClusterRole "view" '
                                       'to User "jane"')
    lsar = create(http, f"{AUTHZ}/namespaces/default/localsubjectaccessreviews",
                  {"spec": {"user": "jane", "resourceAttributes": attrs}})
    assert lsar["metadata"]["namespace"] == "default" and lsar["status"]["allowed"] is True
    r = http.post(f"{AUTHZ}/namespaces/other/localsubjectaccessreviews", headers=ADMIN,
                  json={"spec": {"user": "jane", "resourceAttributes": attrs}})
    assert r.status_code == 422
    r = http.post(f"{AUTHZ}/subjectaccessreviews", headers=ADMIN, json={"spec": {"resourceAttributes": attrs}})
    assert r.status_code == 422
    assert "at least one of user or group must be specified" in r.json()["message"]
    r = http.post(f"{AUTHZ}/selfsubjectaccessreviews", headers=ADMIN, json={"spec": {}})
    assert r.status_code == 422
    # a user without a grant may not ask about others
    r = http.post(f"{AUTHZ}/subjectaccessreviews", headers=as_user("jane"),
                  json={"spec": {"user": "bob", "resourceAttributes": attrs}})
    assert r.status_code == 403
    stored = http.get(f"{RBAC}/clusterroles", headers=ADMIN).json()["metadata"]["resourceVersion"]
    create(http, f"{AUTHZ}/subjectaccessreviews", {"spec": {"user": "jane", "resourceAttributes": attrs}})
    assert http.get(f"{RBAC}/clusterroles", headers=ADMIN).json()["metadata"]["resourceVersion"] == stored


def test_self_subject_rules_review(http):
    role(http, "pod-reader", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], "resourceNames": ["p"]}])
    bind(http, "jane-pods", "pod-reader", [user("jane")])
    r = http.post(f"{AUTHZ}/selfsubjectrulesreviews", headers=as_user("jane"), json={"spec": {"namespace": "default"}})
    status = r.json()["status"]
    assert {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["p"]} \
        in status["resourceRules"]
    assert {"verbs": ["create"], "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"]} \
        in status["resourceRules"]
    assert status["incomplete"] is False
    other = http.post(f"{AUTHZ}/selfsubjectrulesreviews", headers=as_user("jane"),
                      json={"spec": {"namespace": "other"}}).json()["status"]["resourceRules"]
    assert not any(rule["resources"] == ["pods"] for rule in other)


def test_binding_takes_effect_on_the_next_request_and_removal_too(http):
    path = "/api/v1/namespaces/default/configmaps"
    assert http.get(path, headers=as_user("jane")).status_code == 403
    bind(http, "jane-view", "view", [user("jane")], kind="ClusterRole")
    assert http.get(path, headers=as_user("jane")).status_code == 200
    assert http.delete(f"{RBAC}/namespaces/default/rolebindings/jane-view", headers=ADMIN).status_code == 200
    assert http.get(path, headers=as_user("jane")).status_code == 403


# -- escalation prevention ----------------------------------------------------------------------------


def grant_rbac_writes(http, who):
    role(http, "rbac-writer", [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"],
                                "verbs": ["create", "update"]},
                               {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}])
    bind(http, "rbac-writer", "rbac-writer", [who])


def escalation_message(kind, name, user_name, groups, missing):
    quoted = " ".join(f'"{g}"' for g in groups)
    return (f'{kind}.rbac.authorization.k8s.io "{name}" is forbidden: user "{user_name}" (groups=[{quoted}]) is '
            f'attempting to grant RBAC permissions not currently held:\n' + "\n".join(missing))


def test_creating_a_role_with_permissions_not_held_is_forbidden(http):
    grant_rbac_writes(http, {"kind": "ServiceAccount", "name": "privesc", "namespace": "default"})
    sa = "system:serviceaccount:default:privesc"
    rules = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete"]},
             {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["list"]}]
    r = http.post(f"{RBAC}/namespaces/default/roles", headers=as_user(sa),
                  json={"metadata": {"name": "more"}, "rules": rules})
    assert r.status_code == 403
    assert r.json()["message"] == escalation_message(
        "roles", "more", sa, ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
        ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
         '{APIGroups:["apps"], Resources:["deployments"], Verbs:["list"]}'])
    r = http.post(f"{RBAC}/namespaces/default/roles", headers=as_user(sa),
                  json={"metadata": {"name": "same"}, "rules": [{"apiGroups": [""], "resources": ["pods"],
                                                                 "verbs": ["get"], "resourceNames": ["p"]}]})
    assert r.status_code == 201, r.text


def test_binding_a_role_with_permissions_not_held_needs_bind(http):
    grant_rbac_writes(http, user("jane"))
    role(http, "delete-pod", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]}])
    body = {"metadata": {"name": "delete-pod"}, "subjects": [user("jane")],
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "delete-pod"}}
    r = http.post(f"{RBAC}/namespaces/default/rolebindings", headers=as_user("jane"), json=body)
    assert r.status_code == 403
    assert r.json()["message"] == escalation_message(
        "rolebindings", "delete-pod", "jane", ["system:authenticated"],
        ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'])
    role(http, "binder", [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"], "verbs": ["bind"],
                           "resourceNames": ["delete-pod"]}])
    bind(http, "jane-binder", "binder", [user("jane")])
    r = http.post(f"{RBAC}/namespaces/default/rolebindings", headers=as_user("jane"), json=body)
    assert r.status_code == 201, r.text


def test_escalate_verb_allows_any_role(http):
    grant_rbac_writes(http, user("jane"))
    role(http, "escalator", [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"],
                              "verbs": ["escalate"]}])
    bind(http, "jane-escalate", "escalator", [user("jane")])
    r = http.post(f"{RBAC}/namespaces/default/roles", headers=as_user("jane"),
                  json={"metadata": {"name": "all"}, "rules": [{"apiGroups": ["*"], "resources": ["*"],
                                                                "verbs": ["*"]}]})
    assert r.status_code == 201, r.text


def test_binding_a_missing_role_and_aggregation_rules(http):
    grant_rbac_writes(http, user("jane"))
    body = {"metadata": {"name": "b"}, "subjects": [user("jane")],
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "nope"}}
    r = http.post(f"{RBAC}/namespaces/default/rolebindings", headers=as_user("jane"), json=body)
    assert r.status_code == 403
    assert r.json()["message"] == ('rolebindings.rbac.authorization.k8s.io "b" is forbidden: '
                                   'role.rbac.authorization.k8s.io "nope" not found')
    create(http, f"{RBAC}/clusterroles", {"metadata": {"name": "cr-writer"}, "rules": [
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["create"]}]})
    bind(http, "jane-cr", "cr-writer", [user("jane")], namespace="", kind="ClusterRole")
    r = http.post(f"{RBAC}/clusterroles", headers=as_user("jane"), json={
        "metadata": {"name": "agg"}, "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"a": "b"}}]}})
    assert r.status_code == 403
    assert r.json()["message"] == ('clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have '
                                   'cluster-admin privileges to use the aggregationRule')


def test_aggregation_controller_writes_the_rules_into_aggregated_roles():
    with Cluster("memory://", clock=FakeClock(), token="admin-token") as c, c.http_client() as client:
        assert c.settle()
        view = client.get(f"{RBAC}/clusterroles/view", headers=ADMIN).json()
        edit = client.get(f"{RBAC}/clusterroles/edit", headers=ADMIN).json()
        admin = client.get(f"{RBAC}/clusterroles/admin", headers=ADMIN).json()
        assert {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "list", "watch"]} in view["rules"]
        assert all(rule in edit["rules"] for rule in view["rules"])
        assert all(rule in admin["rules"] for rule in edit["rules"])
        assert "clusterrole-aggregation-controller" in {f["manager"] for f in admin["metadata"]["managedFields"]}
        widgets = {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}
        create(client, f"{RBAC}/clusterroles", {"metadata": {"name": "widgets-view", "labels": {
            "rbac.authorization.k8s.io/aggregate-to-view": "true"}}, "rules": [widgets]})
        assert c.settle()
        for name in ("view", "edit", "admin"):
            assert widgets in client.get(f"{RBAC}/clusterroles/{name}", headers=ADMIN).json()["rules"], name
        assert client.delete(f"{RBAC}/clusterroles/widgets-view", headers=ADMIN).status_code == 200
        assert c.settle()
        assert widgets not in client.get(f"{RBAC}/clusterroles/admin", headers=ADMIN).json()["rules"]


def test_patching_a_role_to_hold_more_is_forbidden(http):
    role(http, "rbac-patcher", [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"],
                                 "verbs": ["patch"]},
                                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}])
    bind(http, "jane-patch", "rbac-patcher", [user("jane")])
    role(http, "target", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}])
    path = f"{RBAC}/namespaces/default/roles/target"
    more = {"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete"]}]}
    r = http.patch(path, headers={**as_user("jane"), "Content-Type": "application/merge-patch+json"}, json=more)
    assert r.status_code == 403
    assert r.json()["message"] == escalation_message("roles", "target", "jane", ["system:authenticated"],
                                                     ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'])
    assert http.get(path, headers=ADMIN).json()["rules"][0]["verbs"] == ["get"]
    less = {"metadata": {"labels": {"a": "b"}}}
    r = http.patch(path, headers={**as_user("jane"), "Content-Type": "application/merge-patch+json"}, json=less)
    assert r.status_code == 200, r.text
