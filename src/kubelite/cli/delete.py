"""`kubelite delete`: delete resources by name, selector, --all or configuration file, as kubectl does."""
from __future__ import annotations

import sys
import time

from kubelite.cli import common

EXAMPLES = """\
  # Delete the objects described in a file (or a directory, with -R)
  kubelite delete -f deployment.yaml

  # Delete by type and name, or TYPE/NAME
  kubelite delete deployment nginx
  kubelite delete deploy/nginx svc/nginx

  # Delete by label, or everything of a type in the namespace
  kubelite delete pods -l app=web
  kubelite delete configmaps --all

  # Leave the dependents alone / delete at once
  kubelite delete deployment nginx --cascade=orphan
  kubelite delete pod web-0 --now
"""

_CASCADE = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan",
            "true": "Background", "false": "Orphan"}


def build_parser() -> common.Parser:
    p = common.parser("delete", "Delete resources by file names, stdin, resources and names, or by resources "
                                "and label selector.", EXAMPLES)
    p.add_argument("args", nargs="*", metavar="TYPE [NAME...] | TYPE/NAME")
    common.add_connection_flags(p)
    common.add_namespace_flags(p)
    common.add_filename_flags(p, "to delete")
    common.add_selector_flags(p)
    common.add_dry_run_flag(p)
    p.add_argument("-o", "--output", default="", help="name: print TYPE/NAME lines only")
    p.add_argument("--all", action="store_true", help="delete every object of the types in the namespace")
    p.add_argument("--cascade", default="background", nargs="?", const="background",
                   help="background|foreground|orphan: what happens to dependents")
    p.add_argument("--grace-period", type=int, default=-1, help="seconds for graceful termination (-1: default)")
    p.add_argument("--now", action="store_true", help="terminate at once (grace period 1)")
    p.add_argument("--force", action="store_true", help="remove at once without waiting for termination")
    p.add_argument("--wait", default="true", nargs="?", const="true", help="wait until the objects are gone")
    p.add_argument("--timeout", default="0", help="how long to wait (0: no limit)")
    p.add_argument("--ignore-not-found", action="store_true", help="treat NotFound as success")
    p.add_argument("-i", "--interactive", action="store_true", help="not supported")
    from kubelite.cli.raw import add_raw_flag

    add_raw_flag(p, "a server path to send the DELETE to")
    from kubelite.cli.help import installed

    return installed(p, "delete")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _delete)


def _grace(args) -> int:
    grace = args.grace_period
    if getattr(args, "now", False):
        if grace != -1:
            raise common.CommandError("error: --now and --grace-period cannot be specified together")
        grace = 1
    if getattr(args, "force", False) and grace < 0:
        grace = 0
    return grace


def _validate(args) -> None:
    if str(args.cascade).lower() not in _CASCADE:
        raise common.CommandError(f'error: invalid cascade value ({args.cascade}). Must be "background", '
                                  '"foreground", or "orphan".')
    if args.output not in ("", "name"):
        raise common.CommandError(f"error: unexpected -o output mode: {args.output}. We only support '-o name'")
    if args.all and args.selector:
        raise common.CommandError("error: cannot set --all and --selector at the same time")
    if args.interactive:
        raise common.CommandError("error: --interactive is not supported by kubelite")


def _delete(args) -> int:
    args._verb = "delete"
    _validate(args)
    if args.raw:
        return _raw(args)
    dry_run = common.dry_run_mode(args)
    grace = _grace(args)
    if grace == 0 and args.force:
        sys.stderr.write("Warning: Immediate deletion does not wait for confirmation that the running resource "
                         "has been terminated. The resource may continue to run on the cluster indefinitely.\n")
    sess = common.session(args)
    errors: list = []
    names_given = len(args.args) > 1 or any("/" in a for a in args.args)
    if args.args and not args.filename and not names_given and not (args.all or args.selector or args.field_selector):
        raise common.CommandError("error: resource(s) were provided, but no name was specified")
    selection = common.build(sess, args, args.args, verb="delete", errors=errors)
    targets = _targets(sess, args, selection, errors)
    if not targets and not errors:
        if not args.ignore_not_found:
            sys.stdout.write("No resources found\n")
        return 0
    uids: dict[int, str] = {}  # id(request) -> uid of what was deleted (a namesake made later is not it)
    deleted = _delete_all(sess, targets, args, dry_run, grace, uids, errors)
    if _wants_wait(args, dry_run, grace):
        _wait_gone(sess, deleted, common.parse_duration(args.timeout), errors, uids)
    return common.report(errors)


def _delete_all(sess, targets: list, args, dry_run: str, grace: int, uids: dict, errors: list) -> list:
    """Delete each target, saying so (or collecting its error) in order; the requests deleted. Over
    HTTP, a few objects of the kinds nothing else depends on are deleted at a time."""
    from kubelite.client.errors import ClientError
    from kubelite.client.inorder import SaidAside, in_order, independent, workers_for

    transport, aside = sess.client.transport, SaidAside()
    workers = workers_for(transport) if dry_run != "client" else 1

    def remove(request: common.Request):
        try:
            return delete_one(sess, request, args, dry_run=dry_run, grace=grace, uids=uids, quiet=True)
        except (ClientError, common.CommandError) as err:
            return err

    deleted = []
    with aside.over(transport, "on_warning"):
        for request, future in in_order(targets, lambda request: aside.run(remove, request), workers=workers,
                                        alone=lambda r: not independent(r.resource.api_version, r.resource.kind),
                                        key=lambda r: (r.resource.kind, r.name)):
            outcome, said = future.result()
            aside.replay(said)
            if isinstance(outcome, Exception):
                errors.append(outcome)
            elif outcome:
                say_deleted(request, args, grace, dry_run)
                deleted.append(request)
    return deleted


def _raw(args) -> int:
    """kubectl delete --raw: one DELETE (with the file given, if any, as its body); arguments and
    selectors are not looked at."""
    from kubelite.cli import raw

    raw.check_file_flags(args, need_file=False)
    raw.check_output(args)
    raw.check_uri(args.raw)
    return raw.send(args, "DELETE", args.filename[0] if args.filename else None)


def _targets(sess, args, selection, errors) -> list[common.Request]:
    """Named requests stay; list requests (-l, --all) become one request per listed object."""
    out = []
    for request in selection.requests:
        if request.name is not None:
            if request.obj is not None and not request.name:
                errors.append(empty_name("deleting", request.source))
                continue
            out.append(request)
            continue
        if request.obj is not None:  # a file object without a name (generateName)
            errors.append(empty_name("deleting", request.source))
            continue
        try:
            for page in sess.client.list_pages(request.resource, request.namespace, chunk_size=500,
                                               label_selector=args.selector, field_selector=args.field_selector):
                for item in page.get("items") or ():
                    meta = item.get("metadata") or {}
                    out.append(common.Request(request.resource, meta.get("namespace") or request.namespace,
                                              meta.get("name")))
        except Exception as err:  # noqa: BLE001 - reported with the others
            errors.append(err)
    return out


def empty_name(verb: str, source: str | None) -> Exception:
    """The request builder's refusal of an object without a name, with its source (AddSourceToErr)."""
    where = f'error when {verb} "{source}": ' if source else ""
    return common.CommandError(f"error: {where}resource name may not be empty")


def _kind_string(info) -> str:
    kind = info.kind.lower()
    return f"{kind}.{info.group}" if info.group else kind


def delete_one(sess, request: common.Request, args, *, dry_run: str, grace: int | None = None,
               quiet: bool = False, uids: dict | None = None) -> bool:
    """Delete one object and print kubectl's line; False if it was not found and that is fine."""
    from kubelite.client.errors import ApiError, is_not_found

    grace = _grace(args) if grace is None else grace
    try:
        if dry_run == "client":
            sess.client.get(request.resource, request.name, request.namespace)
        else:
            answer = sess.client.delete(request.resource, request.namespace, request.name,
                                        propagation_policy=_CASCADE[str(args.cascade).lower()],
                                        grace_period_seconds=grace if grace >= 0 else None,
                                        dry_run=dry_run == "server")
            if uids is not None:
                uids[id(request)] = _deleted_uid(answer)
    except ApiError as err:
        if getattr(args, "ignore_not_found", False) and is_not_found(err):
            return False
        raise err.with_source("deleting", request.source) if request.source else err
    if not quiet:
        say_deleted(request, args, grace, dry_run)
    return True


def say_deleted(request: common.Request, args, grace: int, dry_run: str) -> None:
    kind = _kind_string(request.resource)
    if getattr(args, "output", "") == "name":
        sys.stdout.write(f"{kind}/{request.name}\n")
    else:
        operation = "force deleted" if grace == 0 else "deleted"
        sys.stdout.write(f'{kind} "{request.name}" {operation}{common.dry_run_suffix(dry_run)}\n')
    sys.stdout.flush()


def _wants_wait(args, dry_run: str, grace: int) -> bool:
    return str(args.wait).lower() != "false" and dry_run == "none" and grace != 0


# From this many objects of one kind in one namespace, one LIST tells which are still there (kubectl
# reads each one: 500 GETs after deleting 500 objects).
LIST_FROM = 10


def _still_there(sess, pending: list[common.Request], errors: list, uids: dict) -> list[common.Request]:
    """The requests whose object (the one deleted: same uid) still exists."""
    from kubelite.client.errors import ApiError, is_not_found

    groups: dict = {}
    for request in pending:
        r = request.resource
        groups.setdefault((r.group, r.version, r.resource, request.namespace), []).append(request)
    still = []
    for group in groups.values():
        r, namespace = group[0].resource, group[0].namespace
        listable = len(group) >= LIST_FROM and (namespace or not r.namespaced)
        listed = _listed(sess, group[0]) if listable else None
        for request in group:
            try:
                current = (listed.get(request.name) if listed is not None
                           else sess.client.get(request.resource, request.name, request.namespace))
            except ApiError as err:
                if not is_not_found(err):
                    errors.append(err)
                continue
            uid = uids.get(id(request))
            if current is not None and (not uid or (current.get("metadata") or {}).get("uid") == uid):
                still.append(request)
    return still


def _listed(sess, request: common.Request) -> dict | None:
    """{name: object} of the request's kind in its namespace; None if the LIST is refused (then
    each object is read alone, as GETs may be allowed where a LIST is not)."""
    from kubelite.client.errors import ApiError

    try:
        pages = list(sess.client.list_pages(request.resource, request.namespace))
    except ApiError:
        return None
    return {str((obj.get("metadata") or {}).get("name")): obj for page in pages for obj in page.get("items") or ()}


def _deleted_uid(answer) -> str:
    """The uid of what a DELETE removed: the object answered, or the Status's details."""
    if not isinstance(answer, dict):
        return ""
    if answer.get("kind") == "Status":
        return str((answer.get("details") or {}).get("uid") or "")
    return str((answer.get("metadata") or {}).get("uid") or "")


def _wait_gone(sess, requests: list[common.Request], timeout: float | None, errors: list,
               uids: dict | None = None) -> None:
    """Poll until each deleted object is gone (finalizers may keep it a while); as kubectl, an
    object of the same name with another uid (recreated meanwhile) counts as gone."""
    deadline = time.monotonic() + timeout if timeout else None
    pending = list(requests)
    delay = 0.05
    while pending:
        pending = _still_there(sess, pending, errors, uids or {})
        if not pending:
            return
        if deadline is not None and time.monotonic() > deadline:
            for request in pending:
                errors.append(common.CommandError(
                    f"error: timed out waiting for the condition on {request.resource.resource}/{request.name}"))
            return
        time.sleep(delay)
        delay = min(delay * 2, 1.0)
