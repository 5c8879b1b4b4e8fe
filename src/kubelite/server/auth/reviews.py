"""The review APIs: create-only, answered at once, never stored.

TokenReview and SelfSubjectReview (authentication.k8s.io); SelfSubjectAccessReview,
SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview (authorization.k8s.io).
"""
from __future__ import annotations

from kubelite.server import errors
from kubelite.server.auth import user as users
from kubelite.server.handlers.http import json_response

AUTHN = "authentication.k8s.io"
AUTHZ = "authorization.k8s.io"
KINDS = {
    (AUTHN, "tokenreviews"): "TokenReview",
    (AUTHN, "selfsubjectreviews"): "SelfSubjectReview",
    (AUTHZ, "selfsubjectaccessreviews"): "SelfSubjectAccessReview",
    (AUTHZ, "subjectaccessreviews"): "SubjectAccessReview",
    (AUTHZ, "localsubjectaccessreviews"): "LocalSubjectAccessReview",
    (AUTHZ, "selfsubjectrulesreviews"): "SelfSubjectRulesReview",
}


def handles(info) -> bool:
    return info.is_resource_request and (info.api_group, info.resource) in KINDS and not info.subresource


def serve(authn, authorizer, request, info, requester: users.UserInfo):
    kind = KINDS[(info.api_group, info.resource)]
    if request.method != "POST" or info.name:
        raise errors.method_not_allowed()
    body = decode_body(request, kind, info.api_version)
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    api_version = f"{info.api_group}/{info.api_version}"
    meta = {"creationTimestamp": None}
    if isinstance(body.get("metadata"), dict) and body["metadata"].get("name"):
        meta["name"] = body["metadata"]["name"]
    if kind == "LocalSubjectAccessReview":
        meta["namespace"] = info.namespace
    out = {"kind": kind, "apiVersion": api_version, "metadata": meta}
    if kind == "SelfSubjectReview":
        out["status"] = {"userInfo": requester.to_api()}
    elif kind == "TokenReview":
        out["spec"] = spec
        out["status"] = _token_review(authn, spec)
    elif kind == "SelfSubjectRulesReview":
        out["spec"] = spec
        out["status"] = _rules_review(authorizer, requester, str(spec.get("namespace") or ""))
    else:
        subject = requester if kind == "SelfSubjectAccessReview" else _subject(kind, spec)
        attrs = _attributes(kind, subject, spec, info.namespace)
        allowed, reason = authorizer.authorize(attrs)
        status = {"allowed": allowed}
        if reason:
            status["reason"] = reason
        out["spec"] = spec
        out["status"] = status
    return json_response(out, status=201, request=request)


def decode_body(request, kind: str, version: str) -> dict:
    """The body of a create-only request (a review, a TokenRequest): JSON or protobuf."""
    from kubelite.server.handlers import decode

    if request.content_type == decode.PROTOBUF:  # kubectl's typed clients send protobuf
        from kubelite.server import protobuf

        try:
            body = protobuf.decode_body(request.body)
        except protobuf.ProtobufError as err:
            raise errors.bad_request(f"the object provided is unrecognized (must be of type {kind}): {err}") from None
    else:
        from kubelite.server.handlers import jsonbody  # (a review's body: not every request's)

        try:
            body = jsonbody.loads(request.body or b"{}")
        except ValueError:
            raise errors.bad_request(f"the object provided is unrecognized (must be of type {kind}): "
                                     "couldn't get version/kind; json parse error") from None
    if not isinstance(body, dict):
        raise errors.bad_request(f"the object provided is unrecognized (must be of type {kind})")
    if body.get("kind") not in (None, "", kind):
        raise errors.bad_request(f'{body.get("kind")} in version "{version}" cannot be handled as a {kind}')
    return body


def _invalid(kind: str, field: str, value: str, message: str) -> errors.StatusError:
    return errors.invalid(AUTHZ, kind, "", [{"reason": "FieldValueInvalid", "field": field,
                                             "message": f"Invalid value: {value}: {message}"}])


def _subject(kind: str, spec: dict) -> users.UserInfo:
    name = spec.get("user") or ""
    groups = [g for g in spec.get("groups") or () if isinstance(g, str)]
    if not name and not groups:
        raise _invalid(kind, "spec.user", '""', "at least one of user or group must be specified")
    extra = {k: tuple(v) for k, v in (spec.get("extra") or {}).items() if isinstance(v, list)}
    return users.UserInfo(str(name), str(spec.get("uid") or ""), tuple(groups), extra)


def _attributes(kind: str, subject: users.UserInfo, spec: dict, path_namespace: str) -> Attributes:
    # here: every resource request asks `handles`, only a review builds attributes
    from kubelite.server.auth.attributes import Attributes

    resource = spec.get("resourceAttributes")
    non_resource = spec.get("nonResourceAttributes")
    if bool(resource) == bool(non_resource):
        field = "spec.resourceAttributes" if not resource else "spec.nonResourceAttributes"
        raise _invalid(kind, field, '"null"' if not resource else '"{}"',
                       "exactly one of nonResourceAttributes or resourceAttributes must be specified")
    if non_resource:
        return Attributes(subject, str(non_resource.get("verb") or ""), False, path=str(non_resource.get("path") or ""))
    namespace = str(resource.get("namespace") or "")
    if kind == "LocalSubjectAccessReview" and namespace != path_namespace:
        raise _invalid(kind, "spec.resourceAttributes.namespace", f'"{namespace}"',
                       "must match metadata.namespace")
    return Attributes(subject, str(resource.get("verb") or ""), True, str(resource.get("group") or ""),
                      str(resource.get("version") or ""), namespace, str(resource.get("resource") or ""),
                      str(resource.get("subresource") or ""), str(resource.get("name") or ""))


def _token_review(authn, spec: dict) -> dict:
    token = spec.get("token")
    if not isinstance(token, str) or not token:
        raise errors.invalid(AUTHN, "TokenReview", "", [{"reason": "FieldValueRequired", "field": "spec.token",
                                                         "message": "Required value"}])
    from kubelite.server.auth.authn import API_AUDIENCES

    wanted = [a for a in spec.get("audiences") or () if isinstance(a, str)] or list(API_AUDIENCES)
    who = authn.token_user(token, wanted)
    if who is None:
        return {"user": {}, "error": "[invalid bearer token, token lookup failed]"}
    return {"authenticated": True, "user": who.to_api(), "audiences": wanted}


def _rules_review(authorizer, requester: users.UserInfo, namespace: str) -> dict:
    resource_rules, url_rules = [], []
    if requester.is_master:
        resource_rules.append({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})
        url_rules.append({"verbs": ["*"], "nonResourceURLs": ["*"]})
    for rule in authorizer.rules_for(requester, namespace):
        if rule.get("nonResourceURLs"):
            url_rules.append({"verbs": list(rule.get("verbs") or []), "nonResourceURLs": list(rule["nonResourceURLs"])})
        else:
            out = {"verbs": list(rule.get("verbs") or []), "apiGroups": list(rule.get("apiGroups") or []),
                   "resources": list(rule.get("resources") or [])}
            if rule.get("resourceNames"):
                out["resourceNames"] = list(rule["resourceNames"])
            resource_rules.append(out)
    return {"resourceRules": resource_rules, "nonResourceRules": url_rules, "incomplete": False}
