"""The Pod subresources that are not status: binding, eviction and log.

No scheduler or kubelet runs, so these are what a kube-apiserver alone answers: binding sets
`spec.nodeName` once (409 afterwards), eviction deletes the Pod, and the log of a Pod that no
node runs is empty (204 No Content).
"""
from __future__ import annotations

import json

from kubelite.server import errors
from kubelite.server.core import DeleteOptions
from kubelite.server.handlers.http import Response, json_response

SUBRESOURCES = ("binding", "eviction", "log")
_METHODS = {"binding": "POST", "eviction": "POST", "log": "GET"}


def serve(api, request, info, r, namespace: str):
    if request.method != _METHODS[info.subresource]:
        raise errors.method_not_allowed()
    if info.subresource == "log":
        pod = api.get(r, namespace, info.name)
        if not (pod.get("spec") or {}).get("nodeName"):
            return Response(status=204, body=b"", content_type="")
        # Nothing runs the containers: an empty log.
        return Response(status=200, body=b"", content_type="text/plain")
    body = _body(request)
    if info.subresource == "binding":
        return _bind(api, request, r, namespace, info.name, body)
    return _evict(api, request, r, namespace, info.name, body)


def _body(request) -> dict:
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        raise errors.bad_request("error decoding the request body") from None
    if not isinstance(body, dict):
        raise errors.bad_request("the request body must be an object")
    return body


def _bind(api, request, r, namespace: str, name: str, body: dict):
    target = body.get("target") or {}
    node = target.get("name") if isinstance(target, dict) else None
    if not node:
        raise errors.invalid("", "Binding", name, [{"reason": "FieldValueRequired",
                                                     "message": "Required value", "field": "target.name"}])
    uid = (body.get("metadata") or {}).get("uid") if isinstance(body.get("metadata"), dict) else None
    bind(api, namespace, name, node, uid=uid, r=r)
    return json_response(errors.success_status(code=201), status=201, request=request)


def bind(api, namespace: str, name: str, node: str, *, uid: str | None = None, r=None) -> dict:
    """Assign the Pod to `node` as the binding REST does: once only, never a terminating Pod, and
    the PodScheduled condition set True."""
    r = r or api.registry.lookup("", "v1", "pods")
    pod = api.get(r, namespace, name)
    meta = pod.get("metadata") or {}
    if uid and meta.get("uid") != uid:
        raise errors.conflict("", "pods/binding", name,
                              f"Precondition failed: UID in precondition: {uid}, UID in object meta: {meta.get('uid')}")
    current = (pod.get("spec") or {}).get("nodeName")
    if current:
        raise errors.conflict("", "pods/binding", name,
                              f'pod {name} is already assigned to node "{current}"')
    if meta.get("deletionTimestamp"):
        raise errors.conflict("", "pods/binding", name, f"pod {name} is being deleted, cannot be assigned to a host")
    _set_scheduled(pod, api.clock.rfc3339())
    return api.set_node_name(r, pod, node)


def _set_scheduled(pod: dict, now: str) -> None:
    conditions = pod.setdefault("status", {}).setdefault("conditions", [])
    for cond in conditions:
        if cond.get("type") == "PodScheduled":
            if cond.get("status") != "True":
                cond.update(status="True", lastTransitionTime=now)
            cond.pop("reason", None)
            cond.pop("message", None)
            return
    conditions.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": now})


def _evict(api, request, r, namespace: str, name: str, body: dict):
    options = body.get("deleteOptions") or {}
    api.get(r, namespace, name)  # 404 for a missing Pod, as the eviction REST does
    grace = options.get("gracePeriodSeconds") if isinstance(options, dict) else None
    api.delete(r, namespace, name, DeleteOptions(grace_period_seconds=grace))
    return json_response(errors.success_status(code=201), status=201, request=request)
