"""The Pod subresources that are not status: binding, eviction, log, and the streaming ones.

binding sets `spec.nodeName` once (409 afterwards) and the PodScheduled condition; eviction
deletes the Pod. log answers from the simulated container of a simulated node (what it prints is
described in server/podlogs.py), with the kubelet's options and errors; a pod on a node nobody
simulates fails as a kubelet that cannot be reached does. exec, attach and portforward are
validated as kube-apiserver does, then fail as it does when it cannot dial the node's kubelet:
no simulated container runs commands or forwards ports (a request that does not ask to upgrade
the connection is refused before any dial).
"""
from __future__ import annotations

import json

from kubelite.server import errors, podlogs
from kubelite.server.clock import parse_time
from kubelite.server.core import DeleteOptions
from kubelite.server.handlers import jsonbody
from kubelite.server.handlers.http import Response, StreamingResponse, json_response

SUBRESOURCES = ("binding", "eviction", "log", "exec", "attach", "portforward", "ephemeralcontainers")
_METHODS = {"binding": ("POST",), "eviction": ("POST",), "log": ("GET",), "exec": ("GET", "POST"),
            "attach": ("GET", "POST"), "portforward": ("GET", "POST"),
            "ephemeralcontainers": ("GET", "PATCH", "PUT")}
_FOLLOW_POLL = 0.25  # seconds between looks at a followed container


def serve(api, request, info, r, namespace: str):
    if request.method not in _METHODS[info.subresource]:
        raise errors.method_not_allowed()
    if info.subresource == "log":
        return _log(api, request, r, namespace, info.name)
    if info.subresource in ("exec", "attach", "portforward"):
        return _stream(api, request, r, namespace, info.name, info.subresource)
    if info.subresource == "ephemeralcontainers":
        answer = _ephemeral(api, request, r, namespace, info.name)
    elif info.subresource == "binding":
        answer = _bind(api, request, r, namespace, info.name, _body(request))
    else:
        answer = _evict(api, request, r, namespace, info.name, _body(request))
    api.store.durable()  # a write is answered once it is on disk
    return answer


# -- log ---------------------------------------------------------------------------------------

def _log_options(request, name: str) -> dict:
    q = request.query
    opts = {"container": q.get("container") or "", "follow": q.flag("follow"), "previous": q.flag("previous"),
            "timestamps": q.flag("timestamps")}
    causes = []
    for key, minimum, rule in (("tailLines", 0, "must be greater than or equal to 0"),
                               ("sinceSeconds", 1, "must be greater than 0"),
                               ("limitBytes", 1, "must be greater than 0")):
        raw = q.get(key)
        if raw is None:
            opts[key] = None
            continue
        try:
            value = int(raw)
        except ValueError:
            raise errors.bad_request(f'strconv.ParseInt: parsing "{raw}": invalid syntax') from None
        if value < minimum:
            causes.append({"reason": "FieldValueInvalid", "message": f"Invalid value: {value}: {rule}",
                           "field": key})
        opts[key] = value
    since_time = q.get("sinceTime")
    opts["sinceTime"] = parse_time(since_time) if since_time else None
    if since_time and opts["sinceTime"] is None:
        raise errors.bad_request(f'parsing time "{since_time}" as "2006-01-02T15:04:05Z07:00": cannot parse '
                                 f'"{since_time}" as "2006"')
    if since_time and opts["sinceSeconds"] is not None:
        causes.append({"reason": "FieldValueForbidden",
                       "message": "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
                       "field": ""})
    if causes:
        raise errors.invalid("", "PodLogOptions", name, causes)
    return opts


def resolve_container(pod: dict, container: str) -> str:
    """The container a log / exec request means, with kube-apiserver's errors."""
    name = pod["metadata"]["name"]
    spec = pod.get("spec") or {}
    if not container:
        containers = spec.get("containers") or []
        if len(containers) == 1:
            return containers[0].get("name")
        if not containers:
            raise errors.bad_request(f"a container name must be specified for pod {name}")
        every = [c.get("name") for group in ("initContainers", "containers", "ephemeralContainers")
                 for c in spec.get(group) or []]
        raise errors.bad_request(f"a container name must be specified for pod {name}, "
                                 f"choose one of: [{' '.join(every)}]")
    if podlogs.find_container(pod, container) is None:
        raise errors.bad_request(f"container {container} is not valid for pod {name}")
    return container


def _node_endpoint(api, node_name: str) -> tuple[dict, str]:
    """The Node and the address:port of its kubelet (as the API server's connection info)."""
    node = api.get(api.registry.lookup("", "v1", "nodes"), "", node_name)  # 404 nodes "x" not found
    status = node.get("status") or {}
    port = ((status.get("daemonEndpoints") or {}).get("kubeletEndpoint") or {}).get("Port") or 10250
    addresses = {a.get("type"): a.get("address") for a in status.get("addresses") or []}
    host = addresses.get("InternalIP") or addresses.get("ExternalIP") or addresses.get("Hostname") or node_name
    return node, f"{host}:{port}"


def _simulated(node: dict) -> bool:
    # The controllers' modules are loaded when a pod's subresource needs them: a command that
    # never asks one (most) does not load them.
    from kubelite.server.controllers.nodes import SIMULATED_ANNOTATION

    return ((node.get("metadata") or {}).get("annotations") or {}).get(SIMULATED_ANNOTATION) == "true"


def _log(api, request, r, namespace: str, name: str):
    opts = _log_options(request, name)
    pod = api.get(r, namespace, name)
    container = resolve_container(pod, opts["container"])
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        return Response(status=204, body=b"", content_type="")
    node, endpoint = _node_endpoint(api, node_name)
    if not _simulated(node):
        url = f"https://{endpoint}/containerLogs/{namespace}/{name}/{container}"
        raise errors.server_error(f'Get "{url}": dial tcp {endpoint}: connect: connection refused')
    status = podlogs.container_status(pod, container)
    state = (status or {}).get("state") or {}
    if opts["previous"]:
        raise errors.bad_request(f'previous terminated container "{container}" in pod "{name}" not found')
    if not status or not (state.get("running") or state.get("terminated")):
        reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
        raise errors.bad_request(f'container "{container}" in pod "{name}" is waiting to start: {reason}')
    since = opts["sinceTime"]
    if opts["sinceSeconds"] is not None:
        since = api.clock.time() - opts["sinceSeconds"]
    data = podlogs.render(podlogs.log_lines(pod, podlogs.find_container(pod, container)),
                          timestamps=opts["timestamps"], tail=opts["tailLines"], since=since,
                          limit_bytes=opts["limitBytes"])
    if opts["follow"] and state.get("running"):
        return StreamingResponse(_follow(api, r, pod, container, data), content_type="text/plain")
    return Response(status=200, body=data, content_type="text/plain")


async def _follow(api, r, pod: dict, container: str, first: bytes):
    """The log so far, then nothing more (a simulated container prints once) until the container
    stops running or the pod goes away — as `kubectl logs -f` of a quiet container."""
    import asyncio

    if first:
        yield first
    meta = pod["metadata"]
    while True:
        await asyncio.sleep(_FOLLOW_POLL)
        try:
            current = await asyncio.to_thread(api.get, r, meta["namespace"], meta["name"])
        except errors.StatusError:
            return
        if (current.get("metadata") or {}).get("uid") != meta.get("uid"):
            return
        state = (podlogs.container_status(current, container) or {}).get("state") or {}
        if not state.get("running"):
            return


# -- exec, attach, portforward --------------------------------------------------------------------

def _stream(api, request, r, namespace: str, name: str, kind: str):
    pod = api.get(r, namespace, name)
    if kind != "portforward":
        container = request.query.get("container") or ""
        spec = pod.get("spec") or {}
        if not container:
            containers = spec.get("containers") or []
            if len(containers) != 1:
                if not containers:
                    raise errors.bad_request(f"a container name must be specified for pod {name}")
                names = " ".join(c.get("name") for c in containers)
                message = f"a container name must be specified for pod {name}, choose one of: [{names}]"
                inits = " ".join(c.get("name") for c in spec.get("initContainers") or [])
                if inits:
                    message += f" or one of the init containers: [{inits}]"
                raise errors.bad_request(message)
        elif podlogs.find_container(pod, container) is None:
            raise errors.bad_request(f"container {container} is not valid for pod {name}")
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        raise errors.bad_request(f"pod {name} does not have a host assigned")
    _, endpoint = _node_endpoint(api, node_name)
    if not _upgrade_request(request):
        # kube-apiserver proxies these to the kubelet only as an upgraded connection.
        raise errors.bad_request("Upgrade request required")
    # No kubelet listens: the API server's dial of the node fails.
    raise errors.server_error(f"error dialing backend: dial tcp {endpoint}: connect: connection refused")


def _upgrade_request(request) -> bool:
    """httpstream.IsUpgradeRequest: a Connection header that mentions upgrade."""
    return "upgrade" in (request.header("connection") or "").lower()


# -- ephemeral containers --------------------------------------------------------------------------

def _ephemeral(api, request, r, namespace: str, name: str):
    """pods/ephemeralcontainers: only spec.ephemeralContainers changes, and only by additions."""
    from kubelite.server import patching
    from kubelite.server.storage.errors import Conflict

    pod = api.get(r, namespace, name)
    if request.method == "GET":
        return json_response(pod, request=request)
    if request.method == "PUT":
        wanted = _body(request)
    else:
        patching.check_patch_type(request.content_type, r)
        wanted = patching.apply(request.content_type, pod, request.body, r)
    before = (pod.get("spec") or {}).get("ephemeralContainers") or []
    after = ((wanted.get("spec") if isinstance(wanted, dict) else None) or {}).get("ephemeralContainers") or []
    _check_ephemeral(name, before, after)
    updated = json.loads(json.dumps(pod))
    updated.setdefault("spec", {})["ephemeralContainers"] = [_ephemeral_defaults(c) for c in after]
    try:
        kv = api.store.update(api._key(r, namespace, name), api._encode(updated),
                              int(pod["metadata"]["resourceVersion"]))
    except Conflict:
        raise errors.conflict("", "pods", name) from None
    return json_response(api._decode(r, kv), request=request)


def _check_ephemeral(name: str, before: list, after: list) -> None:
    causes = []
    if after[:len(before)] != before:
        causes.append({"reason": "FieldValueForbidden", "field": "spec.ephemeralContainers",
                       "message": "Forbidden: existing ephemeral containers may not be changed"})
    names = [c.get("name") for c in after if isinstance(c, dict)]
    for i, c in enumerate(after[len(before):], start=len(before)):
        for field in ("name", "image"):
            if not isinstance(c, dict) or not c.get(field):
                causes.append({"reason": "FieldValueRequired", "message": "Required value",
                               "field": f"spec.ephemeralContainers[{i}].{field}"})
    if len(set(names)) != len(names):
        causes.append({"reason": "FieldValueDuplicate", "field": "spec.ephemeralContainers",
                       "message": "Duplicate value: a container name is used twice"})
    if causes:
        raise errors.invalid("", "Pod", name, causes)


def _ephemeral_defaults(container: dict) -> dict:
    out = dict(container)
    out.setdefault("terminationMessagePath", "/dev/termination-log")
    out.setdefault("terminationMessagePolicy", "File")
    image = str(out.get("image") or "")
    tag = image.rsplit("/", 1)[-1]
    out.setdefault("imagePullPolicy", "Always" if ":" not in tag or tag.endswith(":latest") else "IfNotPresent")
    out.setdefault("resources", {})
    return out


# -- binding, eviction ------------------------------------------------------------------------------

def _body(request) -> dict:
    try:
        body = jsonbody.loads(request.body or b"{}")
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


def bind(api, namespace: str, name: str, node: str, *, uid: str | None = None, r=None, seen: dict | None = None):
    """Assign the Pod to `node` as the binding REST does: once only, never a terminating Pod, and
    the PodScheduled condition set True. The write's core.Result (its `obj`, the bound Pod).

    `seen` is the Pod as the caller last decoded it (the scheduler's cache; never changed here):
    when it is at the stored revision it is what the store holds, and the parts the binding
    changes are copied from it rather than the stored Pod decoded again."""
    r = r or api.registry.lookup("", "v1", "pods")
    pod = _current(api, r, namespace, name, seen)
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


def _current(api, r, namespace: str, name: str, seen: dict | None) -> dict:
    """The stored Pod, the caller's to change: `seen` with the parts a binding changes copied when
    it is at the stored revision, else the stored object decoded."""
    if seen is None:
        return api.get(r, namespace, name)
    kv = api.store.get(api.watch_prefix(r, namespace) + name)
    if kv is None:
        raise errors.not_found(r.group, r.resource, name)
    if str(kv.mod_revision) != (seen.get("metadata") or {}).get("resourceVersion"):
        return api.decode_event_object(r, kv)
    pod = dict(seen)
    for part in ("spec", "status"):
        if isinstance(pod.get(part), dict):
            pod[part] = dict(pod[part])
    conditions = (pod.get("status") or {}).get("conditions")
    if isinstance(conditions, list):
        pod["status"]["conditions"] = [dict(c) if isinstance(c, dict) else c for c in conditions]
    return pod


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
    pod = api.get(r, namespace, name)  # 404 for a missing Pod, as the eviction REST does
    grace = options.get("gracePeriodSeconds") if isinstance(options, dict) else None
    # `kubectl drain --dry-run=server` asks for it in the Eviction's deleteOptions.
    dry_run = isinstance(options, dict) and isinstance(options.get("dryRun"), list) and "All" in options["dryRun"]
    from kubelite.server.controllers.disruption import evict_check, mark_disrupted

    evict_check(api, pod, dry_run)  # PodDisruptionBudgets: 429 when the budget is spent
    if not dry_run:
        mark_disrupted(api, r, pod)
    api.delete(r, namespace, name, DeleteOptions(grace_period_seconds=grace, dry_run=dry_run))
    return json_response(errors.success_status(code=201), status=201, request=request)
