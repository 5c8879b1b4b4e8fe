"""StatusError builders reproduce recorded kube-apiserver Status bodies byte for byte."""

import json
import pathlib

import pytest

from kubelite.server import errors

REF = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver"


def _body(folder: str, name: str) -> bytes:
    return (REF / folder / f"{name}.body.json").read_bytes()


def _dump(status: dict) -> bytes:
    """Compact JSON plus newline, as Go's json.Encoder writes a response body."""
    return json.dumps(status, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


CASES = [
    ("errors", "notfound-get-configmap", lambda: errors.not_found("", "configmaps", "missing")),
    ("errors", "notfound-get-deployment", lambda: errors.not_found("apps", "deployments", "missing")),
    ("errors", "notfound-get-cr", lambda: errors.not_found("rc.example.com", "widgets", "missing")),
    ("errors", "notfound-get-namespace", lambda: errors.not_found("", "namespaces", "rc-no-such-ns")),
    ("errors", "namespace-missing-create", lambda: errors.not_found("", "namespaces", "rc-no-such-ns")),
    ("errors", "create-eviction-missing-pod", lambda: errors.not_found("", "pods", "missing")),
    ("errors", "unknown-resource", errors.not_found_path),
    ("errors", "create-cluster-scoped-under-namespace", errors.not_found_path),
    ("errors", "alreadyexists-create", lambda: errors.already_exists("", "configmaps", "existing")),
    ("errors", "alreadyexists-create-deployment-2", lambda: errors.already_exists("apps", "deployments", "dup")),
    ("errors", "alreadyexists-create-namespace", lambda: errors.already_exists("", "namespaces", "default")),
    ("errors", "alreadyexists-create-cr-2", lambda: errors.already_exists("rc.example.com", "widgets", "w1")),
    ("errors", "conflict-update-stale-rv", lambda: errors.conflict("", "configmaps", "conflict-cm")),
    ("errors", "conflict-patch-stale-rv", lambda: errors.conflict("", "configmaps", "conflict-cm")),
    (
        "errors",
        "conflict-delete-precondition-rv",
        lambda: errors.conflict(
            "",
            "ConfigMap",
            "conflict-cm",
            "the ResourceVersion in the precondition (1) does not match the ResourceVersion "
            "in record (162878). The object might have been modified",
        ),
    ),
    (
        "errors",
        "binding-pod-again",
        lambda: errors.conflict(
            "", "pods/binding", "immut-pod", 'pod immut-pod is already assigned to node "node-a"'
        ),
    ),
    (
        "errors",
        "namespace-terminating-create",
        lambda: errors.namespace_terminating("", "configmaps", "new", "rc-errors-terminating"),
    ),
    (
        "errors",
        "namespace-delete-default",
        lambda: errors.forbidden("", "namespaces", "default", "this namespace may not be deleted"),
    ),
    (
        "errors",
        "pod-without-default-serviceaccount",
        lambda: errors.forbidden(
            "",
            "pods",
            "p",
            'error looking up service account rc-errors-nosa/default: serviceaccount "default" not found',
        ),
    ),
    (
        "errors",
        "impersonate-forbidden-user",
        lambda: errors.forbidden(
            "",
            "configmaps",
            "",
            'User "jane" cannot list resource "configmaps" in API group "" in the namespace "rc-errors"',
        ),
    ),
    (
        "errors",
        "unauthenticated-no-token-api",
        lambda: errors.forbidden("", "", "", 'User "system:anonymous" cannot get path "/api"'),
    ),
    ("errors", "unauthenticated-bad-token", errors.unauthorized),
    ("errors", "method-post-on-object", errors.method_not_allowed),
    ("errors", "method-options", errors.method_not_allowed),
    ("errors", "unsupported-media-type-create", errors.unsupported_media_type),
    (
        "errors",
        "patch-strategic-on-cr",
        lambda: errors.unsupported_media_type(errors.PATCH_BODY_TYPES_CR),
    ),
    (
        "errors",
        "namespace-mismatch-create",
        lambda: errors.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        ),
    ),
    ("errors", "badrequest-request-too-large", errors.request_entity_too_large),
    (
        "errors",
        "create-with-resourceversion",
        lambda: errors.server_error("resourceVersion should not be set on objects to be created"),
    ),
    (
        "errors",
        "conflict-update-invalid-rv",
        lambda: errors.server_error('strconv.ParseUint: parsing "abc": invalid syntax'),
    ),
    (
        "errors",
        "create-no-name",
        lambda: errors.invalid(
            "",
            "ConfigMap",
            "",
            [
                {
                    "reason": "FieldValueRequired",
                    "message": "Required value: name or generateName is required",
                    "field": "metadata.name",
                }
            ],
        ),
    ),
    (
        "watch",
        "gone-list-exact-compacted",
        lambda: errors.expired("The resourceVersion for the provided list is too old."),
    ),
]


@pytest.mark.parametrize("folder,name,build", CASES, ids=[c[1] for c in CASES])
def test_status_body_matches_recording(folder, name, build):
    path = REF / folder / f"{name}.body.json"
    if not path.exists():
        pytest.skip(f"{folder}/{name} not copied")
    assert _dump(build().to_status()) == path.read_bytes()


def test_codes():
    assert errors.not_found("", "pods", "x").code == 404
    assert errors.invalid("apps", "Deployment", "x", []).code == 422
    assert errors.timeout("x").code == 504
    assert errors.gone("x").code == 410


def test_resource_version_too_large_matches_list_record():
    expected = (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
        '"Timeout: Too large resource version: 236160, current: 138096","reason":"Timeout",'
        '"details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource '
        'version"}],"retryAfterSeconds":1},"code":504}\n'
    )
    assert _dump(errors.resource_version_too_large(236160, 138096).to_status()).decode() == expected


def test_watch_too_old_status():
    expected = (
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":'
        '"too old resource version: 1 (70921)","reason":"Expired","code":410}\n'
    )
    assert _dump(errors.resource_version_too_old(1, 70921).to_status()).decode() == expected


def test_expired_continue_token_in_metadata():
    status = errors.expired("too old", continue_token="abc").to_status()
    assert status["metadata"] == {"continue": "abc"}
    assert list(status) == ["kind", "apiVersion", "metadata", "status", "message", "reason", "code"]


def test_invalid_single_and_multiple_formatting():
    one = {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.a"}
    two = {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.b"}
    assert errors.invalid("apps", "Deployment", "x", [one]).message == (
        'Deployment.apps "x" is invalid: spec.a: Required value'
    )
    err = errors.invalid("apps", "Deployment", "x", [one, two, one])
    assert err.message == 'Deployment.apps "x" is invalid: [spec.a: Required value, spec.b: Required value]'
    assert len(err.to_status()["details"]["causes"]) == 3


def test_success_status_for_delete():
    assert _dump(
        errors.success_status(kind="configmaps", name="from-yaml", uid="0a23352d-c6dd-43c6-9cd8-f7ded04046f8")
    ) == _body("errors", "delete-configmap-returns-status")
    assert _dump(errors.success_status(code=201)) == _body("errors", "binding-pod")


def test_status_error_is_exception():
    with pytest.raises(errors.StatusError) as info:
        raise errors.not_found("", "pods", "x")
    assert str(info.value) == 'pods "x" not found'


@pytest.mark.parametrize(
    "name,message",
    [
        (
            "badrequest-empty-body",
            "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; "
            "json parse error: unexpected end of JSON input (<empty>)",
        ),
        (
            "badrequest-wrong-group",
            "the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)",
        ),
    ],
)
def test_to_json_is_byte_exact(name, message):
    """Go escapes <, > and & in JSON strings."""
    assert errors.bad_request(message).to_json() == _body("errors", name)


def test_invalid_with_go_quoted_value_is_byte_exact():
    causes = [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: -1: must be greater than or equal to 0",
            "field": "spec.replicas",
        }
    ]
    err = errors.invalid("apps", "Deployment", "negreplicas", causes)
    assert err.to_json() == _body("errors", "invalid-deployment-negative-replicas")


def _options_invalid(kind, cause):
    return errors.invalid("meta.k8s.io", kind, "", [cause]).to_json()


def test_request_option_errors_are_byte_exact():
    """Query-parameter validation (the HTTP layer's) through the same builders."""
    from kubelite.server.admission import field

    assert _options_invalid(
        "CreateOptions", field.not_supported("dryRun", field.GoRepr('[]string{"Foo"}'), ["All"])
    ) == _body("errors", "badrequest-invalid-dryrun")
    assert _options_invalid(
        "DeleteOptions",
        field.not_supported("propagationPolicy", "Sometimes", ["Foreground", "Background", "Orphan", "nil"]),
    ) == _body("errors", "badrequest-invalid-propagationpolicy")
    assert _options_invalid(
        "CreateOptions", field.not_supported("fieldValidation", "Bogus", ["", "Ignore", "Strict", "Warn"])
    ) == _body("errors", "badrequest-invalid-fieldvalidation")
    assert _options_invalid("CreateOptions", field.too_long("fieldManager", 128)) == _body(
        "errors", "badrequest-fieldmanager-too-long"
    )
