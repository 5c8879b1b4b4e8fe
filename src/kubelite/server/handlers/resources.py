"""REST verbs on resources: HTTP request -> APIServer call -> HTTP response."""
from __future__ import annotations

import json
import threading
import time

from kubelite.server import conversion, errors
from kubelite.server.core import DeleteOptions, ListOptions, WriteOptions
from kubelite.server.handlers import decode, negotiate, table  # (table loads negotiate anyway)
from kubelite.server.handlers.http import Request, Response, json_response, loop_running, stored_as_served
from kubelite.server.routing import RequestInfo
from kubelite.server.selectors import parse_field_selector, parse_label_selector

_BODY_TYPES = ("application/json", "application/yaml", "")
_CRD_BODY_TYPES = ("application/json", "application/yaml")
_SUBRESOURCE_VERBS = ("get", "update", "patch")


async def serve(api, request: Request, info: RequestInfo, stopping):
    r = api.registry.lookup(info.api_group, info.api_version, info.resource)
    if r is None or "/" in info.resource:
        raise errors.not_found_path()
    if r.aggregated:  # metrics.k8s.io: computed, never stored
        from kubelite.server.handlers import metrics

        return await metrics.serve(api, request, info, r)
    namespace = info.namespace if r.namespaced else ""
    if not r.namespaced and info.namespace and info.resource != "namespaces":
        raise errors.not_found_path()
    if r.resource == "namespaces":
        namespace = ""
    verb = info.verb
    if verb in ("update", "patch") and not info.name:
        raise errors.method_not_allowed()
    if r.group == "" and r.resource == "pods" and info.subresource:
        from kubelite.server.handlers import pods  # (with the simulated logs: a pod subresource's request only)

        if info.subresource in pods.SUBRESOURCES:
            return pods.serve(api, request, info, r, namespace)
    if r.group == "" and r.resource == "serviceaccounts" and info.subresource == "token" and info.name:
        from kubelite.server.handlers import tokens

        return tokens.serve(api, request, info, r, namespace)
    if info.subresource == "finalize" and r.subresource("finalize") is not None:
        if verb != "update":  # a namespace's finalize takes only PUT
            raise errors.method_not_allowed()
    elif info.subresource:
        if r.subresource(info.subresource) is None or info.subresource not in ("status", "scale", "approval"):
            if r.crd and info.name:
                # apiextensions answers an undeclared subresource as a missing object.
                raise errors.not_found(r.group, r.resource, info.name)
            raise errors.not_found_path()
        if verb not in _SUBRESOURCE_VERBS:
            raise errors.method_not_allowed()
    elif verb not in r.verbs and not (verb == "watch" and "watch" in r.verbs):
        raise errors.method_not_allowed()
    if r.namespaced and not namespace and verb in ("create", "get", "update", "patch", "delete"):
        raise errors.not_found_path()

    _check_storable(r, verb, namespace, info.name)
    negotiate.check_acceptable(request, r, verb)
    if verb in ("get", "list"):
        _check_resource_version(request.query.get("resourceVersion"))
    api = conversion.served(api, r)  # kinds stored in another version than the one asked for
    handler = _VERBS[verb]
    if verb == "list":
        await wait_for_revision(api, request.query.get("resourceVersion"),
                                request.query.get("resourceVersionMatch"), request.query.get("continue"))
    elif verb == "get":
        # A GET at a resourceVersion is served by the watch cache, which ignores resourceVersionMatch.
        await wait_for_revision(api, request.query.get("resourceVersion"), None, None)
    if verb == "watch":
        from kubelite.server.handlers import watch

        return await watch.serve(api, request, r, namespace, stopping)
    if verb in ("get", "list") or verb in _WRITE_VERBS:
        # Storage work can take a while (and a 3 MiB object takes a while to decode and encode):
        # off the event loop, so open watch streams and other requests go on meanwhile. Writes
        # run one at a time (allocators such as cluster IPs and node ports read then write),
        # each answered once it is on disk; reads run beside them.
        # A request whose loop serves it alone (the in-process door) does it right here: a write
        # under the same lock as the writer thread's. Work done here cannot be cut short, so a
        # request with a deadline of its own (?timeout=) still goes to a thread, to be answered
        # 504 when that deadline passes.
        # A small request on a server's loop is done there too when it can start at once (a
        # read, or a write with the lock free): handing it to a thread and back cost more than
        # most such requests' own work. The wait for the disk still goes to a thread.
        writes = verb in _WRITE_VERBS
        if request.inline and not request.query.get("timeout"):
            return _one_writer(handler, api, request, info, r, namespace) if writes else \
                handler(api, request, info, r, namespace)
        import asyncio

        loop = asyncio.get_running_loop()
        if _on_loop(api, request, verb):
            # (the first storage request on this loop readies its way to wait for the disk: a first
            # write then does not share the CPU with its start)
            api.store.prepare_when_durable(loop)
            if not writes:
                return _timed(handler, api, request, info, r, namespace)
            if _WRITE_LOCK.acquire(blocking=False):
                try:
                    answer = _timed(handler, api, request, info, r, namespace)
                finally:
                    _WRITE_LOCK.release()
                if api.store.unsynced():
                    await _durable(api.store, loop)
                return answer
        if writes:
            return await loop.run_in_executor(_writer(), _one_writer, handler, api, request, info, r, namespace)
        return await loop.run_in_executor(None, handler, api, request, info, r, namespace)
    return handler(api, request, info, r, namespace)


def _durable(store, loop):
    """A future done when every write committed so far is on disk (failed as the sync failed)."""
    done = loop.create_future()

    def settle(failure: BaseException | None) -> None:
        if done.done():
            return
        if failure is None:
            done.set_result(None)
        else:
            done.set_exception(failure)

    store.when_durable(settle, loop)  # settled on the loop's thread
    return done


_WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
_WRITER = None
_WRITE_LOCK = threading.Lock()
_WRITER_THREADS = 4  # one writes, the others wait for the disk (or for the lock)


def _writer():
    global _WRITER
    if _WRITER is None:
        from concurrent.futures import ThreadPoolExecutor

        _WRITER = ThreadPoolExecutor(max_workers=_WRITER_THREADS, thread_name_prefix="kubelite-writes")
    return _WRITER


def _one_writer(handler, *args):
    """A write, one at a time, answered once it is on disk. The wait for the disk is outside the
    lock: the next write goes on meanwhile and the writes that end together share one sync."""
    with _WRITE_LOCK:
        answer = handler(*args)
    args[0].store.durable()
    return answer


# A request body at least this large, or a request for a large object (one answered with at
# least _LOOP_ANSWER bytes, or that took more than _SLOW seconds of CPU on the loop twice: the
# first time may have been the modules its verb loads) is served on a thread: the loop meanwhile
# goes on with the others. (CPU, not wall time: a busy machine's pauses say nothing of the object.)
_LOOP_BODY = 64 * 1024
_COLLECTION_VERBS = ("list", "deletecollection")
_LOOP_ANSWER = 256 * 1024
_SLOW = 0.02
_SLOW_ONCE: set[str] = set()
_SLOW_PATHS: set[str] = set()
_SLOW_PATHS_KEPT = 1024


def _on_loop(api, request: Request, verb: str) -> bool:
    """Whether the event loop's own thread may serve this storage request. Not a collection's
    (a list, a deletecollection: as long as the collection), nor with a deadline of its own
    (?timeout=: work done on the loop cannot be cut short), nor a store across the network,
    nor a write that admission webhooks may be called for (a call out, up to 30 s)."""
    if verb in _COLLECTION_VERBS or request.query.get("timeout") or len(request.body) >= _LOOP_BODY:
        return False
    if request.path in _SLOW_PATHS or api.store.remote:
        return False
    if verb == "get":
        return True
    # Not loaded yet: the first write loads them, after admission (loading them first, from
    # here, met admission's modules half-loaded by their circular imports). As the last write
    # saw them rather than a look at the store for each (a configuration made since means one
    # write whose webhook calls hold the loop up, still called as they must be).
    webhooks = api._webhooks
    return webhooks is not None and webhooks.admission.configurations.none_as_last_read()


def _timed(handler, api, request, info, r, namespace):
    """`handler` run here; a large object goes to threads from then on (a create's work is
    bounded by its body's size: its collection is not remembered)."""
    start = time.thread_time()
    try:
        answer = handler(api, request, info, r, namespace)
    finally:
        if info.name and time.thread_time() - start > _SLOW:
            _remember(_SLOW_PATHS if request.path in _SLOW_ONCE else _SLOW_ONCE, request.path)
    if info.name and len(answer.body) >= _LOOP_ANSWER:
        _remember(_SLOW_PATHS, request.path)
    return answer


def _remember(paths: set[str], path: str) -> None:
    if len(paths) >= _SLOW_PATHS_KEPT:
        paths.clear()
    paths.add(path)


def _check_storable(r, verb: str, namespace: str, name: str | None) -> None:
    """No stored object has NUL in its name or namespace (validation refuses them), and storage
    keys cannot hold one: such a request is about something that does not exist."""
    if "\x00" in namespace and verb in ("create", "get", "update", "patch", "delete"):
        raise errors.not_found("", "namespaces", namespace)
    if name and "\x00" in name and verb in ("get", "update", "patch", "delete"):
        raise errors.not_found(r.group, r.resource, name)


FUTURE_RV_WAIT = 3.0  # seconds kube-apiserver's watch cache waits for a future resourceVersion


async def wait_for_revision(api, rv: str | None, match: str | None, cont: str | None) -> None:
    """A read "not older than" a revision the store has not reached waits for it, then 504."""
    if not rv or rv == "0" or match == "Exact" or cont or not rv.isdigit():
        return
    wanted = int(rv)
    deadline = time.monotonic() + FUTURE_RV_WAIT
    while api.store.current_revision() < wanted:
        if time.monotonic() >= deadline:
            raise errors.resource_version_too_large(wanted, api.store.current_revision())
        if loop_running():
            import asyncio

            await asyncio.sleep(0.05)
        else:  # the in-process door's own request, on the caller's thread: nothing else to serve
            time.sleep(0.05)


def _check_resource_version(text: str | None) -> None:
    """strconv.ParseUint(rv, 10, 64)'s refusal, which kube-apiserver answers with a plain 500."""
    if not text:
        return
    if not (text.isascii() and text.isdigit()):
        problem = "invalid syntax"
    elif len(text) > 20 or int(text) >= 1 << 64:
        problem = "value out of range"
    else:
        return
    raise errors.server_error(f'resourceVersion: Invalid value: "{text}": strconv.ParseUint: parsing '
                              f'"{text}": {problem}')


def _get(api, request, info, r, namespace):
    if info.subresource == "scale":
        return _respond(request, r, api.get_scale(r, namespace, info.name))
    return _respond(request, r, api.get(r, namespace, info.name))


def list_options(request: Request, r) -> ListOptions:
    q = request.query
    limit_text = q.get("limit")
    limit = decode.parse_int64(limit_text) if limit_text else 0
    rv = q.get("resourceVersion")
    match = q.get("resourceVersionMatch")
    cont = q.get("continue")
    # Selectors are decoded with the query; the options are validated after.
    label_selector = parse_label_selector(q.get("labelSelector"))
    field_selector = parse_field_selector(q.get("fieldSelector"), r.group, r.resource, crd=bool(r.crd),
                                          namespaced=r.namespaced, selectable=r.selectable_fields)
    problems = _list_option_problems(rv, match, cont)
    if problems:
        raise _list_invalid(problems)
    return ListOptions(
        label_selector=label_selector,
        field_selector=field_selector,
        limit=limit,
        continue_token=cont or None,
        resource_version=rv,
        resource_version_match=match,
    )


def _list_option_problems(rv: str | None, match: str | None, cont: str | None) -> list[tuple[str, str]]:
    """(cause reason, message) for each of kube's ListOptions rules a list request breaks."""
    if not match:
        return []
    problems = []
    if not rv:
        problems.append(("FieldValueForbidden",
                         "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"))
    if cont:
        problems.append(("FieldValueForbidden",
                         "Forbidden: resourceVersionMatch is forbidden when continue is provided"))
    if match not in ("Exact", "NotOlderThan"):
        problems.append(("FieldValueNotSupported",
                         f'Unsupported value: "{match}": supported values: "Exact", "NotOlderThan", ""'))
    if match == "Exact" and rv == "0":
        problems.append(("FieldValueForbidden",
                         'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    return problems


def _list_invalid(problems: list[tuple[str, str]]):
    lines = [f"resourceVersionMatch: {message}" for _, message in problems]
    summary = lines[0] if len(lines) == 1 else "[" + ", ".join(lines) + "]"
    return errors.StatusError(422, "Invalid", f'ListOptions.meta.k8s.io "" is invalid: {summary}',
                              group="meta.k8s.io", kind="ListOptions",
                              causes=[{"reason": reason, "message": message, "field": "resourceVersionMatch"}
                                      for reason, message in problems])


def _list(api, request, info, r, namespace):
    opts = list_options(request, r)
    if partial_target(request, r) is not None:
        return _respond(request, r, api.list(r, namespace, opts))
    from kubelite.server.handlers import encodedlist

    encoded = encodedlist.respond(api, request, r, namespace, opts)  # the same bytes, reused items
    if encoded is not None:
        return encoded
    return _respond(request, r, api.list(r, namespace, opts))


def _write_options(request: Request, options_kind: str) -> WriteOptions:
    q = request.query
    from kubelite.server.fieldmanager import options

    return WriteOptions(
        dry_run=decode.check_dry_run(q.get_all("dryRun"), options_kind),
        field_validation=decode.check_field_validation(q.get("fieldValidation"), options_kind),
        field_manager=decode.check_field_manager(q.get("fieldManager") or "", options_kind)
        or options.default_manager(q, request.header("user-agent")),
        force=options.parse_force(q.get("force")),
        user=request.user,
    )


def _body_object(request: Request, r, opts: WriteOptions) -> tuple[dict, list[str]]:
    if request.content_type == decode.PROTOBUF and r.crd:
        raise errors.unsupported_media_type(_CRD_BODY_TYPES)
    if request.content_type not in _BODY_TYPES + (decode.PROTOBUF,):
        raise errors.unsupported_media_type()
    obj, unknown, duplicates = decode.decode_object(request.body, request.content_type, r)
    warnings = decode.enforce(opts.field_validation, r, decode.field_problems(unknown, duplicates))
    return obj, warnings


def _create(api, request, info, r, namespace):
    if info.name:
        raise errors.method_not_allowed()
    opts = _write_options(request, "CreateOptions")
    obj, warnings = _body_object(request, r, opts)
    # A body decoded from this request is not copied: no one else has it.
    result = api.create(r, namespace, obj, opts, owned=decode.claim(obj))
    warnings += result.warnings
    return _created_as_stored(request, r, result, warnings) or \
        _respond(request, r, result.obj, status=201, warnings=warnings)


def _created_as_stored(request: Request, r, result, warnings) -> Response | None:
    """A create's answer (a POST's, or an apply patch's that created the object) as the bytes just
    stored (in the order it is served in) with their resourceVersion, when the client asks for
    the object itself in compact JSON: decoding them, ordering and encoding again cost ~40-80 us
    a create, a twentieth of its work in the server. None: answer the long way."""
    kv = result.stored
    if kv is None or request.pretty or partial_target(request, r) is not None or table.wants_table(request):
        return None
    body = stored_as_served(kv.value, r.kind, r.api_version, result.written_meta["uid"], kv.mod_revision)
    return None if body is None else Response(status=201, body=body, headers=_warning_headers(warnings))


def _update(api, request, info, r, namespace):
    opts = _write_options(request, "UpdateOptions")
    if info.subresource == "scale":
        if request.content_type not in _BODY_TYPES:
            raise errors.unsupported_media_type()
        try:
            body = decode.loads_tracking(request.body)
        except ValueError:
            raise errors.bad_request("error decoding the Scale body") from None
        result = api.update(r, namespace, info.name, body, opts, subresource="scale")
        return _respond(request, r, result.obj)
    obj, warnings = _body_object(request, r, opts)
    result = api.update(r, namespace, info.name, obj, opts, subresource=info.subresource)
    return _respond(request, r, result.obj, status=201 if result.created else 200,
                    warnings=warnings + result.warnings)


def _patch(api, request, info, r, namespace):
    opts = _write_options(request, "PatchOptions")
    from kubelite.server import patching

    patching.check_patch_type(request.content_type, r if info.subresource != "scale" else None)
    from kubelite.server.fieldmanager import options

    options.check_patch(request.query, request.content_type, opts)
    result = api.patch(r, namespace, info.name, request.content_type, request.body, opts,
                       subresource=info.subresource)
    # (an apply patch that created the object is answered as a create is)
    return _created_as_stored(request, r, result, result.warnings) or \
        _respond(request, r, result.obj, status=201 if result.created else 200, warnings=result.warnings)


def _delete_options(request: Request) -> DeleteOptions:
    q = request.query
    body = decode.delete_options_body(request.body)
    policy = q.get("propagationPolicy") or body.get("propagationPolicy")
    if policy is not None and policy not in ("Foreground", "Background", "Orphan"):
        message = (f'Unsupported value: "{policy}": supported values: "Foreground", "Background", '
                   '"Orphan", "nil"')
        raise errors.StatusError(
            422, "Invalid", f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: {message}',
            group="meta.k8s.io", kind="DeleteOptions",
            causes=[{"reason": "FieldValueNotSupported", "message": message, "field": "propagationPolicy"}])
    grace = q.get("gracePeriodSeconds")
    grace = body.get("gracePeriodSeconds") if grace is None else decode.parse_int64(grace) if grace else None
    preconditions = body.get("preconditions") or {}
    dry_run = q.get_all("dryRun") or body.get("dryRun") or []
    return DeleteOptions(
        dry_run=decode.check_dry_run(list(dry_run), "DeleteOptions"),
        propagation_policy=policy,
        grace_period_seconds=grace,
        precondition_uid=preconditions.get("uid"),
        precondition_resource_version=preconditions.get("resourceVersion"),
        user=request.user,
    )


def _delete(api, request, info, r, namespace):
    status, body = api.delete(r, namespace, info.name, _delete_options(request))
    return _respond(request, r, body, status=status)


def _deletecollection(api, request, info, r, namespace):
    return _respond(request, r, api.delete_collection(r, namespace, list_options(request, r),
                                                      _delete_options(request)))


def _warning_headers(warnings) -> list[tuple[str, str]]:
    return [("Warning", '299 - ' + json.dumps(w)) for w in warnings]


def _respond(request: Request, r, body: dict, status: int = 200, warnings=()):
    headers = _warning_headers(warnings)
    metadata = partial_target(request, r)
    if metadata is not None:
        from kubelite.server.handlers import partialmeta

        body = partialmeta.transform(body, r, metadata)
    elif table.wants_table(request) and body.get("kind") != "Status":
        body = table.to_table(r, body, request)
    return json_response(body, status=status, request=request, headers=headers)


def partial_target(request: Request, r):
    """The metadata-only form (PartialObjectMetadata[List]) the Accept header negotiates, or None."""
    chosen = negotiate.target(request, r)
    return chosen if chosen is not None and chosen.kind != negotiate.TABLE else None


_VERBS = {
    "get": _get,
    "list": _list,
    "watch": None,
    "create": _create,
    "update": _update,
    "patch": _patch,
    "delete": _delete,
    "deletecollection": _deletecollection,
}
