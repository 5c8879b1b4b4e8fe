"""`kubelite scale`: set a new size for deployments, replica sets, stateful sets or replication
controllers through their scale subresource, as kubectl scale does."""
from __future__ import annotations

import sys

from kubelite.cli import common, imperative_common

EXAMPLES = """\
  # Scale a deployment named nginx to 3
  kubelite scale --replicas=3 deployment/nginx

  # Scale the object described in a file
  kubelite scale --replicas=3 -f deployment.yaml

  # Only if the current size is 2
  kubelite scale --current-replicas=2 --replicas=3 deployment/mysql

  # Several objects at once, or every deployment matching a selector
  kubelite scale --replicas=5 deployment/foo deployment/bar
  kubelite scale --replicas=1 deployments -l app=web
"""


def build_parser() -> common.Parser:
    p = common.parser("scale", "Set a new size for a deployment, replica set, replication controller, or stateful "
                               "set.", EXAMPLES)
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE NAME)")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    common.add_filename_flags(p, "identifying the resource to set a new size")
    p.add_argument("-l", "--selector", help="label selector, e.g. -l key1=value1,key2=value2")
    common.add_dry_run_flag(p)
    common.add_output_flag(p, "json|yaml|name|jsonpath=...")
    common.add_template_flags(p)
    p.add_argument("--replicas", type=int, default=None, help="the new desired number of replicas (required)")
    p.add_argument("--current-replicas", type=int, default=-1,
                   help="precondition: the current size must be this (-1: no condition)")
    p.add_argument("--resource-version", default="", help="precondition: the current resource version")
    p.add_argument("--all", action="store_true", help="every object of the types in the namespace")
    p.add_argument("--timeout", default="0", help="accepted for kubectl compatibility (kubelite does not wait)")
    from kubelite.cli.help import installed

    return installed(p, "scale")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _scale)


class PreconditionFailed(common.CommandError):
    pass


def _scale(args) -> int:
    args._verb = "scale"
    args.field_selector = None
    if args.replicas is None:
        raise common.CommandError('error: required flag(s) "replicas" not set')
    if args.replicas < 0:
        raise common.CommandError("error: The --replicas=COUNT flag is required, and COUNT must be greater than or "
                                  "equal to 0")
    if args.current_replicas < -1:
        raise common.CommandError("error: The --current-replicas must specify an integer of -1 or greater")
    output = common.output_of(args)
    dry_run = common.dry_run_mode(args)
    sess = common.session(args)
    listing = bool(args.all or args.selector)
    found, info_errors = imperative_common.targets(sess, args, "scale", require_names=not listing and not args.filename,
                                                   label_selector=args.selector)
    if args.resource_version and len(found) > 1:
        raise common.CommandError("error: cannot use --resource-version with multiple resources")
    if not found:
        if info_errors:
            raise common.CommandError("error: no objects passed to scale " + _go_errors(info_errors))
        raise common.CommandError("error: no objects passed to scale")
    printer = common.ObjectPrinter(output) if output.kind else None
    for request, obj in found:
        if dry_run != "client":
            _scale_one(sess, request, obj, args, dry_run == "server")
        if printer is not None:
            printer.print(obj)
        else:
            sys.stdout.write(common.success_line(obj, "scaled", dry_run))
            sys.stdout.flush()
    return common.report(info_errors)


def _scale_one(sess, request, obj: dict, args, server_dry_run: bool) -> None:
    from kubelite.client.dynamic import WriteParams

    name = (obj.get("metadata") or {}).get("name") or request.name
    params = WriteParams(dry_run=server_dry_run)
    if args.current_replicas == -1 and not args.resource_version:
        sess.client.patch(request.resource, request.namespace, name, {"spec": {"replicas": args.replicas}}, "merge",
                          params, subresource="scale")
        return
    scale = sess.client.get(request.resource, name, request.namespace, subresource="scale")
    current = (scale.get("spec") or {}).get("replicas", 0)
    if args.current_replicas != -1 and current != args.current_replicas:
        raise PreconditionFailed(f"error: Expected replicas to be {args.current_replicas}, was {current}")
    version = (scale.get("metadata") or {}).get("resourceVersion", "")
    if args.resource_version and version != args.resource_version:
        raise PreconditionFailed(f"error: Expected resource version to be {args.resource_version}, was {version}")
    scale = {**scale, "spec": {**(scale.get("spec") or {}), "replicas": args.replicas}}
    sess.client.replace(request.resource, request.namespace, name, scale, params, subresource="scale")


def _go_errors(errors: list) -> str:
    """Go's text of one error, or of an aggregate of several."""
    from kubelite.client.errors import ApiError

    texts = [err.message if isinstance(err, ApiError) else str(err).removeprefix("error: ") for err in errors]
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
