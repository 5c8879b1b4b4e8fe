"""`kubelite describe`: show details of objects as kubectl describe does (the text comes from
kubelite.describe; this module fetches the objects and what is shown beside them)."""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # Describe a node, a pod, or every pod
  kubelite describe nodes kubernetes-node-emt8.c.myproject.internal
  kubelite describe pods/nginx
  kubelite describe pods

  # Describe the objects in a file
  kubelite describe -f pod.json

  # Pods whose name starts with "frontend", and pods with a label
  kubelite describe pods frontend
  kubelite describe pods -l name=myLabel
"""

# Kinds whose describer shows no events (as kubectl's).
_NO_EVENTS = {("", "Secret"), ("", "Namespace"), ("", "LimitRange"), ("", "ResourceQuota")}


def build_parser() -> common.Parser:
    p = common.parser("describe", "Show details of a specific resource or group of resources.", EXAMPLES)
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)")
    common.add_connection_flags(p)
    common.add_namespace_flags(p)
    common.add_filename_flags(p, "to describe")
    p.add_argument("-l", "--selector", help="label selector, e.g. -l key1=value1,key2=value2")
    p.add_argument("--show-events", default="true", nargs="?", const="true", help="show related events")
    p.add_argument("--chunk-size", type=int, default=500, help="list in chunks of this size (0: all at once)")
    from kubelite.cli.help import installed

    return installed(p, "describe")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _describe)


def _describe(args) -> int:
    args._verb = "describe"
    sess = common.session(args)
    errors: list = []
    objects = _objects(sess, args, errors)
    show_events = str(args.show_events).lower() not in ("false", "0")
    from kubelite.describe import describe

    first = True
    for request, obj, by_prefix in objects:
        try:
            text = describe(obj, _related(sess, request, obj, show_events))
        except Exception as err:  # noqa: BLE001 - one object's failure must not hide the others
            errors.append(common.CommandError(f"error: {err}"))
            continue
        # Objects found by name prefix are printed each with a newline, without separators.
        sys.stdout.write(text + "\n" if by_prefix else text if first else "\n\n" + text)
        sys.stdout.flush()
        first = False
    if not objects and not errors:
        from kubelite.manifest.table import no_resources_message

        namespaced = not args.all_namespaces  # kubectl names the namespace even for cluster-scoped types
        sys.stdout.flush()
        sys.stderr.write(no_resources_message(sess.namespace if namespaced else None))
    return common.report(errors)


def _objects(sess, args, errors: list) -> list:
    """(request, object, found by name prefix) for each object selected: names (with kubectl's name-prefix fallback),
    TYPE/NAME, lists with -l, or the objects of -f as they are on the server."""
    from kubelite.client.errors import ClientError, is_not_found

    selection = common.build(sess, args, args.args, verb="describe", errors=errors)
    found: list = []
    for request in selection.requests:
        try:
            if request.name is not None:
                try:
                    found.append((request, sess.client.get(request.resource, request.name, request.namespace),
                                  False))
                except ClientError as err:
                    if not is_not_found(err) or request.obj is not None:
                        raise
                    matches = [o for o in _list(sess, request, args) if
                               (o.get("metadata") or {}).get("name", "").startswith(request.name)]
                    if not matches:
                        raise
                    found.extend((request, o, True) for o in matches)
            else:
                found.extend((request, o, False) for o in _list(sess, request, args))
        except (ClientError, common.CommandError) as err:
            errors.append(err)
    return found


def _list(sess, request, args) -> list[dict]:
    items: list[dict] = []
    for page in sess.client.list_pages(request.resource, request.namespace, chunk_size=args.chunk_size,
                                       label_selector=args.selector):
        items.extend(common.with_type(item, request.resource) for item in page.get("items") or ())
    return items


def _related(sess, request, obj: dict, show_events: bool) -> dict:
    info = request.resource
    meta = obj.get("metadata") or {}
    related: dict = {}
    if show_events and (info.group, info.kind) not in _NO_EVENTS:
        related["events"] = _events(sess, obj)
    if (info.group, info.kind) == ("", "Service"):
        related["endpointslices"] = _items(sess, "endpointslices.discovery.k8s.io", meta.get("namespace"),
                                           f"kubernetes.io/service-name={meta.get('name', '')}")
    elif (info.group, info.kind) == ("", "Namespace"):
        related["quotas"] = _items(sess, "resourcequotas", meta.get("name"))
        related["limitranges"] = _items(sess, "limitranges", meta.get("name"))
    elif (info.group, info.kind) == ("apps", "ReplicaSet"):
        related["pod_phases"] = _pod_phases(sess, obj)
    elif (info.group, info.kind) == ("apps", "Deployment"):
        replica_sets = _replica_sets(sess, obj)
        if replica_sets is not None:
            related["replicasets"] = replica_sets
    return related


def _replica_sets(sess, deployment: dict) -> tuple[list[dict], dict | None] | None:
    """(old, new) ReplicaSets of a deployment as kubectl's deployment utilities find them: those
    its selector matches that it controls (owner reference uid); the new one is the oldest whose
    pod template equals the deployment's but for the pod-template-hash label; every other is
    old (even when scaled to zero), in creation order. None when there is none."""
    from kubelite.server.printers.formats import selector_string

    meta = deployment.get("metadata") or {}
    spec = deployment.get("spec") or {}
    try:
        selector = selector_string(spec.get("selector"))
    except ValueError:
        return None
    owned = [rs for rs in _items(sess, "replicasets.apps", meta.get("namespace"), selector or None)
             if any(isinstance(ref, dict) and ref.get("controller") is True and ref.get("uid") == meta.get("uid")
                    for ref in (rs.get("metadata") or {}).get("ownerReferences") or ())]
    if not owned:
        return None
    owned.sort(key=lambda rs: ((rs.get("metadata") or {}).get("creationTimestamp") or "",
                               (rs.get("metadata") or {}).get("name") or ""))
    wanted = _without_hash(spec.get("template"))
    new = next((rs for rs in owned if _without_hash((rs.get("spec") or {}).get("template")) == wanted), None)
    return [rs for rs in owned if rs is not new], new


def _without_hash(template) -> dict:
    import copy

    template = copy.deepcopy(template) if isinstance(template, dict) else {}
    labels = (template.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop("pod-template-hash", None)
    return template


def _items(sess, resource: str, namespace: str | None, selector: str | None = None) -> list[dict]:
    from kubelite.client.errors import ClientError

    try:
        info = sess.discovery.resolve(resource)
        return list(sess.client.list(info, namespace, label_selector=selector).get("items") or [])
    except ClientError:
        return []


def _events(sess, obj: dict) -> list[dict]:
    """Events about the object: matched on the involved object's name, kind and uid."""
    meta = obj.get("metadata") or {}
    events = _items(sess, "events", meta.get("namespace") or "default")
    mine = []
    for event in events:
        involved = event.get("involvedObject") or {}
        if involved.get("name") != meta.get("name") or involved.get("kind") != obj.get("kind"):
            continue
        if involved.get("uid") and meta.get("uid") and involved["uid"] != meta["uid"]:
            continue
        mine.append(event)
    return mine


def _pod_phases(sess, obj: dict) -> tuple[int, int, int, int]:
    from kubelite.server.printers.formats import selector_string

    try:
        selector = selector_string((obj.get("spec") or {}).get("selector"))
    except ValueError:
        return 0, 0, 0, 0
    pods = _items(sess, "pods", (obj.get("metadata") or {}).get("namespace"), selector or None)
    phases = [((p.get("status") or {}).get("phase")) for p in pods]
    return (phases.count("Running"), phases.count("Pending"), phases.count("Succeeded"), phases.count("Failed"))
