"""ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding evaluated in the admission chain.

The policies are the kubernetes.io documentation's ("Validating Admission Policy": the
`object.spec.replicas <= 5` demo, the ReplicaLimit paramKind example, messageExpression,
variables, matchConditions); the texts are kube-apiserver 1.32's (k8s.io/apiserver
pkg/admission/plugin/policy/validating: dispatcher.go, validator.go; generic/policy_dispatcher.go
CollectParams). The last test runs real kubectl against `kubelite serve`.
"""
from __future__ import annotations

import contextlib
import re

import pytest
from test_serve_support import kubectl_at, serving

from kubelite.server.cluster import Cluster

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
DEPLOYMENT_RULES = [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                     "resources": ["deployments"]}]
CONFIGMAP_RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]


@pytest.fixture(scope="module")
def cluster():
    with Cluster("memory://", controllers=False) as c:
        yield c


@pytest.fixture
def api(cluster):
    with cluster.http_client() as client:
        yield client


def policy(name: str, validations: list[dict], rules=DEPLOYMENT_RULES, **spec) -> dict:
    body = {"matchConstraints": {"resourceRules": rules}, "validations": validations}
    body.update(spec)
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name}, "spec": body}


def binding(name: str, policy_name: str, actions=("Deny",), **spec) -> dict:
    body = {"policyName": policy_name, "validationActions": list(actions)}
    body.update(spec)
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name}, "spec": body}


@contextlib.contextmanager
def installed(api, *objects: dict):
    """Policies and bindings for the duration of a test."""
    made = []
    try:
        for obj in objects:
            resource = "validatingadmissionpolicies" if obj["kind"] == "ValidatingAdmissionPolicy" \
                else "validatingadmissionpolicybindings"
            created = api.post(f"{ADMISSION}/{resource}", json=obj)
            assert created.status_code == 201, created.text
            made.append(f"{ADMISSION}/{resource}/{obj['metadata']['name']}")
        yield
    finally:
        for path in reversed(made):
            assert api.delete(path).status_code == 200


def deployment(name: str, replicas: int, **labels) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": labels or {"app": name}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def configmap(name: str, data=None, **labels) -> dict:
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {"k": "v"}}


def refusal(group: str, resource: str, name: str, message: str, reason: str = "Invalid", code: int = 422) -> dict:
    qualified = f"{resource}.{group}" if group else resource
    details = {"name": name}
    if group:
        details["group"] = group
    details.update({"kind": resource, "causes": [{"message": message}]})
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'{qualified} "{name}" is forbidden: {message}', "reason": reason, "details": details,
            "code": code}


DEMO = policy("demo-policy.example.com", [{"expression": "object.spec.replicas <= 5"}], failurePolicy="Fail")
DEMO_BINDING = binding("demo-binding-test.example.com", "demo-policy.example.com")


def test_the_documentation_demo_denies_more_than_five_replicas(api):
    with installed(api, DEMO, DEMO_BINDING):
        refused = api.post(DEPLOYMENTS, json=deployment("nginx", 6))
        assert refused.status_code == 422
        assert refused.json() == refusal(
            "apps", "deployments", "nginx",
            "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' "
            "denied request: failed expression: object.spec.replicas <= 5")
        assert api.get(f"{DEPLOYMENTS}/nginx").status_code == 404
        assert api.post(DEPLOYMENTS, json=deployment("nginx", 5)).status_code == 201
        scaled = api.patch(f"{DEPLOYMENTS}/nginx", json={"spec": {"replicas": 7}},
                           headers={"Content-Type": "application/merge-patch+json"})
        assert scaled.status_code == 422 and "failed expression: object.spec.replicas <= 5" in scaled.json()["message"]
        # dry run is evaluated as well
        assert api.post(DEPLOYMENTS + "?dryRun=All", json=deployment("dry", 9)).status_code == 422
    # the binding is gone: nothing is checked any more
    assert api.post(DEPLOYMENTS, json=deployment("many", 9)).status_code == 201
    for name in ("nginx", "many"):
        api.delete(f"{DEPLOYMENTS}/{name}")


def test_a_policy_without_a_binding_or_a_binding_without_its_policy_does_nothing(api):
    with installed(api, DEMO):
        assert api.post(DEPLOYMENTS, json=deployment("unbound", 9)).status_code == 201
    with installed(api, DEMO_BINDING):
        assert api.post(DEPLOYMENTS, json=deployment("orphan", 9)).status_code == 201
    for name in ("unbound", "orphan"):
        api.delete(f"{DEPLOYMENTS}/{name}")


def test_message_reason_and_message_expression(api):
    limited = policy("limits.example.com", [
        {"expression": "object.spec.replicas <= 3", "reason": "Forbidden",
         "messageExpression": "'object.spec.replicas must be no greater than ' + string(3)"},
        {"expression": "object.metadata.name != 'secret-app'", "message": "  that name is reserved  ",
         "reason": "Unauthorized"},
        {"expression": "object.metadata.name != 'big-app'", "reason": "RequestEntityTooLarge",
         "messageExpression": "object.metadata.missing", "message": "fallback message"},
        {"expression": "object.metadata.name != 'blank-app'", "messageExpression": "'  '"},
    ])
    with installed(api, limited, binding("limits-binding", "limits.example.com")):
        refused = api.post(DEPLOYMENTS, json=deployment("web", 4))
        assert (refused.status_code, refused.json()["reason"]) == (403, "Forbidden")
        assert refused.json()["message"] == (
            'deployments.apps "web" is forbidden: ValidatingAdmissionPolicy \'limits.example.com\' with binding '
            "'limits-binding' denied request: object.spec.replicas must be no greater than 3")
        refused = api.post(DEPLOYMENTS, json=deployment("secret-app", 1))
        assert (refused.status_code, refused.json()["reason"]) == (401, "Unauthorized")
        assert refused.json()["message"].endswith("denied request: that name is reserved")
        refused = api.post(DEPLOYMENTS, json=deployment("big-app", 1))  # messageExpression failed: message
        assert (refused.status_code, refused.json()["reason"]) == (413, "RequestEntityTooLarge")
        assert refused.json()["message"].endswith("denied request: fallback message")
        refused = api.post(DEPLOYMENTS, json=deployment("blank-app", 1))  # blank: the expression
        assert refused.json()["message"].endswith("denied request: failed expression: object.metadata.name != 'blank-app'")


def test_warn_and_audit_actions_let_the_request_through_with_a_warning(api):
    with installed(api, DEMO, binding("warn-binding", "demo-policy.example.com", ("Warn", "Audit"))):
        created = api.post(DEPLOYMENTS, json=deployment("warned", 8))
        assert created.status_code == 201, created.text
        assert created.headers["warning"] == (
            "299 - \"Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding "
            "'warn-binding': failed expression: object.spec.replicas <= 5\"")
        quiet = api.post(DEPLOYMENTS, json=deployment("quiet", 2))
        assert quiet.status_code == 201 and "warning" not in quiet.headers
    with installed(api, DEMO, binding("audit-binding", "demo-policy.example.com", ("Audit",))):
        audited = api.post(DEPLOYMENTS, json=deployment("audited", 8))
        assert audited.status_code == 201 and "warning" not in audited.headers
    for name in ("warned", "quiet", "audited"):
        api.delete(f"{DEPLOYMENTS}/{name}")


REPLICA_LIMIT_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "replicalimits.rules.example.com"},
    "spec": {"group": "rules.example.com", "scope": "Namespaced",
             "names": {"plural": "replicalimits", "singular": "replicalimit", "kind": "ReplicaLimit",
                       "listKind": "ReplicaLimitList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"maxReplicas": {"type": "integer"}}}}}]}}


@pytest.fixture(scope="module")
def replica_limits(cluster):
    with cluster.http_client() as api:
        created = api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=REPLICA_LIMIT_CRD)
        assert created.status_code == 201, created.text
        path = "/apis/rules.example.com/v1/namespaces/default/replicalimits"
        for name, limit, env in (("replica-limit-test.example.com", 3, "test"),
                                 ("replica-limit-prod.example.com", 100, "prod")):
            made = api.post(path, json={"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit",
                                        "metadata": {"name": name, "labels": {"env": env}}, "maxReplicas": limit})
            assert made.status_code == 201, made.text
        namespace = api.patch("/api/v1/namespaces/default", json={"metadata": {"labels": {"environment": "test"}}},
                              headers={"Content-Type": "application/merge-patch+json"})
        assert namespace.status_code == 200
        yield path


def replica_policy(**spec) -> dict:
    return policy("replicalimit-policy.example.com", [
        {"expression": "object.spec.replicas <= params.maxReplicas", "reason": "Invalid",
         "messageExpression": "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)"}],
        paramKind={"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit"}, failurePolicy="Fail", **spec)


def test_param_kind_and_param_ref_from_the_documentation(api, replica_limits):
    documented = binding("replicalimit-binding-test.example.com", "replicalimit-policy.example.com",
                         paramRef={"name": "replica-limit-test.example.com", "namespace": "default",
                                   "parameterNotFoundAction": "Deny"},
                         matchResources={"namespaceSelector": {"matchLabels": {"environment": "test"}}})
    with installed(api, replica_policy(), documented):
        refused = api.post(DEPLOYMENTS, json=deployment("limited", 4))
        assert refused.status_code == 422
        assert refused.json()["message"] == (
            'deployments.apps "limited" is forbidden: ValidatingAdmissionPolicy \'replicalimit-policy.example.com\' '
            "with binding 'replicalimit-binding-test.example.com' denied request: object.spec.replicas must be no "
            "greater than 3")
        assert api.post(DEPLOYMENTS, json=deployment("limited", 3)).status_code == 201
        # another namespace is outside the binding's namespaceSelector
        assert api.post("/api/v1/namespaces", json={"metadata": {"name": "elsewhere"}}).status_code == 201
        other = api.post("/apis/apps/v1/namespaces/elsewhere/deployments", json=deployment("limited", 50))
        assert other.status_code == 201
    api.delete(f"{DEPLOYMENTS}/limited")


def test_params_by_selector_every_one_evaluated_and_not_found_actions(api, replica_limits):
    by_selector = binding("every-limit", "replicalimit-policy.example.com",
                          paramRef={"selector": {}, "parameterNotFoundAction": "Deny"})
    with installed(api, replica_policy(), by_selector):
        refused = api.post(DEPLOYMENTS, json=deployment("selected", 4))  # over the test limit only
        assert refused.json()["message"].endswith("must be no greater than 3")
    missing_deny = binding("missing-deny", "replicalimit-policy.example.com",
                           paramRef={"name": "nope", "parameterNotFoundAction": "Deny"})
    with installed(api, replica_policy(), missing_deny):
        refused = api.post(DEPLOYMENTS, json=deployment("unparameterized", 1))
        assert refused.status_code == 422
        assert refused.json()["message"] == (
            'deployments.apps "unparameterized" is forbidden: ValidatingAdmissionPolicy '
            "'replicalimit-policy.example.com' with binding 'missing-deny' denied request: failed to configure "
            "binding: no params found for policy binding with `Deny` parameterNotFoundAction")
    missing_allow = binding("missing-allow", "replicalimit-policy.example.com",
                            paramRef={"selector": {"matchLabels": {"env": "staging"}},
                                      "parameterNotFoundAction": "Allow"})
    with installed(api, replica_policy(), missing_allow):
        assert api.post(DEPLOYMENTS, json=deployment("unparameterized", 99)).status_code == 201
    api.delete(f"{DEPLOYMENTS}/unparameterized")
    unknown = policy("unknown-params", [{"expression": "true"}],
                     paramKind={"apiVersion": "rules.example.com/v1", "kind": "Nope"})
    with installed(api, unknown, binding("unknown-binding", "unknown-params", paramRef={"name": "x"})):
        refused = api.post(DEPLOYMENTS, json=deployment("unknown", 1))
        assert refused.json()["message"] == (
            'deployments.apps "unknown" is forbidden: ValidatingAdmissionPolicy \'unknown-params\' denied request: '
            "failed to configure policy: failed to find resource referenced by paramKind: "
            "'rules.example.com/v1, Kind=Nope'")


def test_variables_match_conditions_request_and_namespace_object(api):
    images = policy("image-matches-namespace.example.com", [
        {"expression": "variables.containers.all(c, c.image.startsWith(variables.registry))",
         "messageExpression": "'images must come from ' + variables.registry"},
        {"expression": "namespaceObject.metadata.name == request.namespace && request.operation in ['CREATE', 'UPDATE']"
                       " && request.kind.kind == 'Deployment' && request.userInfo.username == 'kubernetes-admin'"},
    ], variables=[{"name": "containers", "expression": "object.spec.template.spec.containers"},
                  {"name": "registry", "expression": "'registry.example.com/' + namespaceObject.metadata.name"}],
        matchConditions=[{"name": "skip-exempt", "expression": "!has(object.metadata.labels.exempt)"}])
    with installed(api, images, binding("images-binding", "image-matches-namespace.example.com")):
        refused = api.post(DEPLOYMENTS, json=deployment("docker-hub", 1))
        assert refused.json()["message"].endswith("denied request: images must come from registry.example.com/default")
        exempt = api.post(DEPLOYMENTS, json=deployment("exempt-app", 1, exempt="yes"))
        assert exempt.status_code == 201, exempt.text
        fine = deployment("local", 1)
        fine["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/default/nginx"
        assert api.post(DEPLOYMENTS, json=fine).status_code == 201
    for name in ("exempt-app", "local"):
        api.delete(f"{DEPLOYMENTS}/{name}")


def test_errors_follow_the_failure_policy(api):
    broken = [{"expression": "object.spec.missing > 1"}]
    with installed(api, policy("broken.example.com", broken), binding("broken-binding", "broken.example.com")):
        refused = api.post(DEPLOYMENTS, json=deployment("erring", 1))
        assert refused.status_code == 422
        assert refused.json()["message"] == (
            'deployments.apps "erring" is forbidden: ValidatingAdmissionPolicy \'broken.example.com\' with binding '
            "'broken-binding' denied request: expression 'object.spec.missing > 1' resulted in error: no such key: "
            "missing")
    with installed(api, policy("broken.example.com", broken, failurePolicy="Ignore"),
                   binding("broken-binding", "broken.example.com")):
        assert api.post(DEPLOYMENTS, json=deployment("erring", 1)).status_code == 201
    api.delete(f"{DEPLOYMENTS}/erring")
    # a policy whose expressions do not compile is refused when it is written
    uncompiled = api.post(f"{ADMISSION}/validatingadmissionpolicies", json=policy(
        "uncompiled.example.com", [{"expression": "object.spec.replicas <", "messageExpression": "'a' + objekt"}]))
    assert uncompiled.status_code == 422
    causes = uncompiled.json()["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.validations[0].expression", "spec.validations[0].messageExpression"]
    assert causes[1]["message"] == ("Invalid value: \"'a' + objekt\": compilation failed: ERROR: <input>:1:7: "
                                    "undeclared reference to 'objekt' (in container '')\n | 'a' + objekt\n | ......^")
    assert causes[0]["message"].startswith('Invalid value: "object.spec.replicas <": compilation failed: ERROR: '
                                           "<input>:1:")
    with installed(api, policy("variable.example.com", [{"expression": "variables.bad == 1"}],
                               variables=[{"name": "bad", "expression": "object.nothing"}]),
                   binding("variable-binding", "variable.example.com")):
        message = api.post(DEPLOYMENTS, json=deployment("variable", 1)).json()["message"]
        assert message.endswith("denied request: expression 'variables.bad == 1' resulted in error: composited "
                                'variable "bad" fails to evaluate: no such key: nothing')
    with installed(api, policy("conditions.example.com", [{"expression": "true"}],
                               matchConditions=[{"name": "c", "expression": "object.nothing == 1"}]),
                   binding("conditions-binding", "conditions.example.com")):
        message = api.post(DEPLOYMENTS, json=deployment("conditioned", 1)).json()["message"]
        assert message.endswith("denied request: expression 'object.nothing == 1' resulted in error: no such key: "
                                "nothing")


def test_matching_rules_names_exclusions_selectors_and_delete(api):
    guarded = policy("guard-configmaps.example.com",
                     [{"expression": "request.operation != 'DELETE' || oldObject.metadata.name != 'keep'",
                       "message": "keep stays"},
                      {"expression": "request.operation == 'DELETE' || object.data.k != 'forbidden'"}],
                     rules=CONFIGMAP_RULES,
                     matchConstraints={"resourceRules": CONFIGMAP_RULES,
                                       "excludeResourceRules": [{"apiGroups": [""], "apiVersions": ["*"],
                                                                 "operations": ["*"], "resources": ["configmaps"],
                                                                 "resourceNames": ["excluded"]}],
                                       "objectSelector": {"matchExpressions": [
                                           {"key": "unguarded", "operator": "DoesNotExist"}]}})
    with installed(api, guarded, binding("guard-binding", "guard-configmaps.example.com")):
        assert api.post(CONFIGMAPS, json=configmap("keep")).status_code == 201
        refused = api.delete(f"{CONFIGMAPS}/keep")
        assert refused.status_code == 422
        assert refused.json() == refusal(
            "", "configmaps", "keep",
            "ValidatingAdmissionPolicy 'guard-configmaps.example.com' with binding 'guard-binding' denied request: "
            "keep stays")
        assert api.get(f"{CONFIGMAPS}/keep").status_code == 200
        assert api.post(CONFIGMAPS, json=configmap("bad", {"k": "forbidden"})).status_code == 422
        assert api.post(CONFIGMAPS, json=configmap("excluded", {"k": "forbidden"})).status_code == 201
        assert api.post(CONFIGMAPS, json=configmap("labelled", {"k": "forbidden"}, unguarded="1")).status_code == 201
        generated = api.post(CONFIGMAPS, json={"apiVersion": "v1", "kind": "ConfigMap",
                                               "metadata": {"generateName": "gen-"}, "data": {"k": "forbidden"}})
        # validating admission runs after the name is generated: the refusal names the object by it
        assert re.match(r'configmaps "gen-[a-z0-9]{5}" is forbidden: ', generated.json()["message"])
        # policies and bindings are never subject to policies
        with installed(api, policy("deny-all.example.com", [{"expression": "false"}],
                                   rules=[{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"],
                                           "resources": ["*"]}]),
                       binding("deny-all-binding", "deny-all.example.com")):
            assert api.post(CONFIGMAPS, json=configmap("any")).status_code == 422
    assert api.delete(f"{CONFIGMAPS}/keep").status_code == 200
    for name in ("excluded", "labelled"):
        api.delete(f"{CONFIGMAPS}/{name}")


def test_binding_match_resources_narrow_and_subresources(api):
    status_only = policy("status-only.example.com", [{"expression": "object.spec.replicas < 3"}],
                         rules=[{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["UPDATE"],
                                 "resources": ["deployments/status"]}])
    with installed(api, status_only, binding("status-binding", "status-only.example.com")):
        assert api.post(DEPLOYMENTS, json=deployment("sub", 5)).status_code == 201  # not the status
        status = api.get(f"{DEPLOYMENTS}/sub").json()
        status["status"] = {"observedGeneration": 1}
        refused = api.put(f"{DEPLOYMENTS}/sub/status", json=status)
        assert refused.status_code == 422, refused.text
    narrowed = binding("narrowed", "demo-policy.example.com",
                       matchResources={"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                          "operations": ["CREATE"], "resources": ["deployments"],
                                                          "resourceNames": ["checked"]}]})
    with installed(api, DEMO, narrowed):
        assert api.post(DEPLOYMENTS, json=deployment("checked", 9)).status_code == 422
        assert api.post(DEPLOYMENTS, json=deployment("unchecked", 9)).status_code == 201
    for name in ("sub", "unchecked"):
        api.delete(f"{DEPLOYMENTS}/{name}")


@pytest.mark.kubectl
def test_kubectl_prints_the_denial(tmp_path):
    """The documentation's demo through real kubectl: its one line for a denied create."""
    import json as _json

    with serving(tmp_path, "--controllers=-*") as server:
        def kubectl(*args, stdin=None):
            return kubectl_at(server, tmp_path / "kubectl-cache", *args, stdin=stdin)

        for obj in (DEMO, DEMO_BINDING):
            made = kubectl("create", "-f", "-", stdin=_json.dumps(obj))
            assert made.returncode == 0, made.stderr
        refused = kubectl("create", "-f", "-", stdin=_json.dumps(deployment("nginx", 6)))
        assert refused.returncode == 1
        assert refused.stdout == ""
        assert refused.stderr == (
            'The deployments "nginx" is invalid: : ValidatingAdmissionPolicy \'demo-policy.example.com\' with binding '
            "'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5\n")
        created = kubectl("create", "-f", "-", stdin=_json.dumps(deployment("nginx", 5)))
        assert (created.returncode, created.stdout) == (0, "deployment.apps/nginx created\n")
