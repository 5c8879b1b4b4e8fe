"""serviceaccounts/NAME/token: TokenRequest (what `kubectl create token` posts).

The answer carries a JWT signed with the server's service-account key (server/auth/signing.py),
which the authenticator accepts as the ServiceAccount, and the expiration kube-apiserver would give:
`spec.expirationSeconds` (default 3600, at least 10 minutes) after now.
"""
from __future__ import annotations

import datetime
import secrets

from kubelite.server import errors
from kubelite.server.handlers.http import json_response

API_VERSION = "authentication.k8s.io/v1"
ISSUER = "https://kubernetes.default.svc.cluster.local"
DEFAULT_SECONDS = 3600
MIN_SECONDS = 600
MAX_SECONDS = 1 << 32
_BOUND_KINDS = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}


def serve(api, request, info, r, namespace: str):
    if request.method != "POST":
        raise errors.method_not_allowed()
    body = _decode(request)
    account = api.get(r, namespace, info.name)  # 404 for a missing ServiceAccount
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    seconds = spec.get("expirationSeconds")
    seconds = DEFAULT_SECONDS if seconds in (None, 0) else seconds
    _validate(info.name, seconds)
    audiences = [a for a in spec.get("audiences") or () if isinstance(a, str)] or [ISSUER]
    bound = spec.get("boundObjectRef")
    if isinstance(bound, dict) and bound.get("kind"):
        _check_bound(api, namespace, bound)
    now = api.clock.now().replace(microsecond=0)
    expires = now + datetime.timedelta(seconds=seconds)
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    out_meta = {"name": meta.get("name") or info.name, "namespace": meta.get("namespace") or namespace,
                "creationTimestamp": _time(now)}
    out_spec = {"audiences": audiences, "expirationSeconds": seconds,
                "boundObjectRef": bound if isinstance(bound, dict) and bound else None}
    token = _token(api, account, audiences, now, expires, bound)
    result = {"kind": "TokenRequest", "apiVersion": API_VERSION, "metadata": out_meta, "spec": out_spec,
              "status": {"token": token, "expirationTimestamp": _time(expires)}}
    return json_response(result, status=201, request=request)


def _decode(request) -> dict:
    from kubelite.server.auth.reviews import decode_body

    return decode_body(request, "TokenRequest", "v1")


def _validate(name: str, seconds) -> None:
    if isinstance(seconds, bool) or not isinstance(seconds, int):
        raise errors.bad_request("TokenRequest in version \"v1\" cannot be handled as a TokenRequest: json: cannot "
                                 "unmarshal into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64")
    message = None
    if seconds < MIN_SECONDS:
        message = f"Invalid value: {seconds}: may not specify a duration less than 10 minutes"
    elif seconds > MAX_SECONDS:
        message = f"Invalid value: {seconds}: may not specify a duration larger than 2^32 seconds"
    if message:
        raise errors.invalid("authentication.k8s.io", "TokenRequest", "",
                             [{"reason": "FieldValueInvalid", "message": message, "field": "spec.expirationSeconds"}])


def _check_bound(api, namespace: str, bound: dict) -> None:
    resource = _BOUND_KINDS.get(bound.get("kind"))
    if resource is None:
        message = f'Unsupported value: "{bound.get("kind")}": supported values: "Pod", "Secret", "Node"'
        raise errors.invalid("authentication.k8s.io", "TokenRequest", "",
                             [{"reason": "FieldValueNotSupported", "message": message,
                               "field": "spec.boundObjectRef.kind"}])
    r = api.registry.lookup("", "v1", resource)
    obj = api.get(r, namespace if r.namespaced else "", str(bound.get("name") or ""))
    uid = bound.get("uid")
    if uid and uid != obj["metadata"].get("uid"):
        raise errors.conflict("", bound["kind"], str(bound.get("name")),
                              f"the UID in the bound object reference ({uid}) does not match the UID in record. "
                              "The object might have been deleted and then recreated")


def _token(api, account: dict, audiences: list[str], now, expires, bound) -> str:
    from kubelite.server.auth.signing import signer_for

    meta = account["metadata"]
    claims = {"aud": audiences, "exp": int(expires.timestamp()), "iat": int(now.timestamp()), "iss": ISSUER,
              "jti": secrets.token_hex(16), "nbf": int(now.timestamp()),
              "sub": f"system:serviceaccount:{meta['namespace']}:{meta['name']}",
              "kubernetes.io": {"namespace": meta["namespace"],
                                "serviceaccount": {"name": meta["name"], "uid": meta.get("uid", "")}}}
    if isinstance(bound, dict) and bound.get("kind"):
        claims["kubernetes.io"][str(bound["kind"]).lower()] = {"name": bound.get("name"), "uid": bound.get("uid")}
    return signer_for(api).sign(claims)


def _time(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
