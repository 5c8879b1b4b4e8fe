"""`kubelite expose (-f FILE | TYPE NAME) [--port=...]`: a Service for an existing Deployment,
ReplicaSet, ReplicationController, Pod or Service, derived as kubectl expose derives it."""
from __future__ import annotations

import argparse
import sys

from kubelite.cli import common, imperative_common

_STRING_FLAGS = ("port", "protocol", "target_port", "type", "name", "selector", "labels", "external_ip",
                 "load_balancer_ip", "session_affinity", "cluster_ip")


def build_parser() -> common.Parser:
    p = common.parser("expose", "Expose a resource as a new service.")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    common.add_filename_flags(p, "identifying the resource to expose a service")
    imperative_common.add_printing_flags(p)
    common.add_dry_run_flag(p)
    p.add_argument("--save-config", action="store_true")
    p.add_argument("--field-manager", default="")
    for flag in _STRING_FLAGS:
        names = ["--" + flag.replace("_", "-")] + (["-l"] if flag == "labels" else [])
        p.add_argument(*names, dest=flag, default="")
    p.add_argument("--overrides", default="")
    p.add_argument("--override-type", default="merge")
    from kubelite.cli.help import installed

    return installed(p, "expose")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _expose)


def _expose(args) -> int:
    from kubelite.imperative import ImperativeError
    from kubelite.imperative.expose import ExposeOptions, build_service, derive

    args._verb = "expose"
    dry_run = common.dry_run_mode(args)
    output = common.output_of(args)
    if args.override_type not in ("json", "merge", "strategic"):
        pass  # kubectl only notices a bad type when --overrides is given
    sess = common.session(args)
    found, errors = imperative_common.targets(sess, args, "expose")
    opts = ExposeOptions(**{f: getattr(args, f) for f in _STRING_FLAGS})
    printer = common.ObjectPrinter(output) if output.kind and output.kind != "json" else None
    for request, obj in found:
        name = (obj.get("metadata") or {}).get("name") or request.name or ""
        try:
            derive(opts, obj, name)
            service = build_service(opts)
            if args.overrides:
                service = _override(service, args.overrides, args.override_type)
        except ImperativeError as err:
            errors.append(common.CommandError(f"error: {err}"))
            continue
        if dry_run == "client":
            if sess.connection.namespace_explicit:
                service = imperative_common.with_namespace_in_order(service, sess.namespace)
            _print(service, output, printer, dry_run, ordered=True)
            continue
        service = imperative_common.save_config(service, args.save_config)
        try:
            created = sess.client.create(sess.discovery.resolve("services"), sess.namespace, service,
                                         imperative_common.write_params(args, "kubectl-expose", dry_run))
        except Exception as err:  # noqa: BLE001 - reported like every other failure, then the next object
            from kubelite.client.errors import ClientError

            if not isinstance(err, ClientError):
                raise
            errors.append(err)
            continue
        _print(created, output, printer, dry_run, ordered=False)
    return common.report(errors)


def _print(obj, output, printer, dry_run, *, ordered):
    if printer is not None:
        printer.print(obj)
    else:
        imperative_common.print_result(obj, output, "exposed", dry_run, ordered=ordered)


def _override(service: dict, overrides: str, override_type: str) -> dict:
    """--overrides as kubectl applies it, keeping the generated fields where Go's struct puts them."""
    import json

    from kubelite.imperative import ImperativeError
    from kubelite.patch import PatchError

    if override_type not in ("json", "merge", "strategic"):
        raise ImperativeError(f"invalid override type: {override_type}")
    try:
        patch = json.loads(overrides)
    except ValueError as err:
        raise ImperativeError(f"unable to parse overrides: {err}") from None
    try:
        if override_type == "merge":
            from kubelite.patch import merge_patch

            return merge_patch.apply(service, patch, kubectl_compat=True)
        if override_type == "json":
            from kubelite.patch import json_patch

            return json_patch.apply(service, patch, kubectl_compat=True)
        from kubelite.patch import strategic
        from kubelite.schema import for_kind

        return strategic.apply(service, patch, for_kind("v1", "Service"))
    except PatchError as err:
        raise ImperativeError(str(err)) from None
