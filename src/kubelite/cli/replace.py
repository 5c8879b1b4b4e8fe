"""`kubelite replace -f`: replace objects by their configuration files, as kubectl replace does.

`--force` deletes each object (waiting until it is gone) and creates it again.
"""
from __future__ import annotations

import sys

from kubelite.cli import common
from kubelite.cli.create import _sourced

EXAMPLES = """\
  # Replace a deployment with the configuration in a file
  kubelite replace -f deployment.yaml

  # Export, edit, replace (migrating from imperative commands)
  kubelite get deployment nginx -o yaml > deployment_nginx.yaml
  kubelite replace -f deployment_nginx.yaml

  # Delete and re-create
  kubelite replace --force -f deployment.yaml
"""


def build_parser() -> common.Parser:
    p = common.parser("replace", "Replace a resource by file name or stdin.", EXAMPLES)
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "to replace")
    common.add_output_flag(p, "yaml|json|name|jsonpath=...|jsonpath-file=...")
    common.add_template_flags(p)
    common.add_dry_run_flag(p)
    common.add_write_flags(p)
    p.add_argument("--force", action="store_true", help="delete and re-create the objects")
    p.add_argument("--grace-period", type=int, default=-1, help="with --force: seconds for graceful deletion")
    p.add_argument("--cascade", default="background", help="with --force: background|foreground|orphan")
    p.add_argument("--wait", default="true", nargs="?", const="true", help="with --force: wait for deletion")
    p.add_argument("--timeout", default="0", help="with --force: how long to wait for deletion")
    p.add_argument("--subresource", default="", help="status or scale: replace a subresource")
    from kubelite.cli.raw import add_raw_flag

    add_raw_flag(p, "a server path to PUT the file to")
    from kubelite.cli.help import installed

    return installed(p, "replace")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _replace)


def _versioned(sess, request: common.Request, obj: dict, subresource: str | None) -> dict:
    """The object with the live resourceVersion when its file has none, as kubectl's replace sends it.

    kubectl GETs the object first and PUTs with that version (so a write landing in between answers
    409 as it does for kubectl), and PUTs the file as it is when the GET fails for any reason."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if meta.get("resourceVersion"):
        return obj
    try:
        live = sess.client.get(request.resource, request.name, request.namespace, subresource=subresource)
    except Exception:  # noqa: BLE001 (kubectl ignores every error of this GET)
        return obj
    version = (live.get("metadata") or {}).get("resourceVersion")
    return {**obj, "metadata": {**meta, "resourceVersion": version}} if version else obj


def _replace(args) -> int:
    args._verb = "replace"
    if not args.filename and not args.kustomize:
        raise common.CommandError("error: must specify one of -f and -k")
    if args.raw:
        from kubelite.cli import raw

        raw.check_file_flags(args)
        raw.check_output(args)
        raw.check_uri(args.raw)
        return raw.send(args, "PUT", args.filename[0])
    output = common.output_of(args)
    dry_run = common.dry_run_mode(args)
    if args.force and dry_run != "none":
        raise common.CommandError("error: --dry-run can not be used when --force is set")
    params = common.write_params(args, "kubectl-replace", dry_run)
    sess = common.session(args)
    errors: list = []
    selection = common.build(sess, args, [], verb="replace", errors=errors)
    printer = common.ObjectPrinter(output) if output.kind else None

    def show(obj: dict) -> None:
        if printer is not None:
            printer.print(obj)
        else:
            sys.stdout.write(common.success_line(obj, "replaced", dry_run))
            sys.stdout.flush()

    def replace(request: common.Request) -> None:
        obj = common.annotated(common.with_namespace(request.obj, request), args.save_config)
        if not request.name:
            from kubelite.cli.delete import empty_name

            raise empty_name("replacing", request.source)
        if dry_run == "client":
            show(obj)
            return
        obj = _versioned(sess, request, obj, args.subresource or None)
        try:
            replaced = sess.client.replace(request.resource, request.namespace, request.name, obj, params,
                                           subresource=args.subresource or None)
        except Exception as err:
            raise _sourced(err, "replacing", request.source) from None
        show(replaced)

    def force_replace(request: common.Request) -> None:
        from kubelite.cli import delete
        from kubelite.client.errors import is_not_found

        obj = common.annotated(common.with_namespace(request.obj, request), args.save_config)
        try:
            delete.delete_one(sess, request, args, dry_run="none", grace=args.grace_period)
            if str(args.wait).lower() != "false":
                waited: list = []
                delete._wait_gone(sess, [request], common.parse_duration(args.timeout), waited)
                if waited:
                    raise waited[0]
        except Exception as err:
            if not is_not_found(err):
                raise _sourced(err, "deleting", request.source) from None
        meta = dict(obj.get("metadata") or {})
        meta.pop("resourceVersion", None)
        obj = {**obj, "metadata": meta}
        try:
            created = sess.client.create(request.resource, request.namespace, obj, params)
        except Exception as err:
            raise _sourced(err, "replacing", request.source) from None
        show(created)

    common.each(selection.requests, force_replace if args.force else replace, errors)
    return common.report(errors)
