"""`kubelite autoscale (-f FILE | TYPE NAME | TYPE/NAME) --max=N [--min=N] [--cpu-percent=N]`: an
autoscaling/v1 HorizontalPodAutoscaler for a scalable object, as kubectl autoscale makes it."""
from __future__ import annotations

import argparse
import sys

from kubelite.cli import common, imperative_common


def build_parser() -> common.Parser:
    p = common.parser("autoscale", "Create an autoscaler for a scalable resource.")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    common.add_filename_flags(p, "identifying the resource to autoscale.")
    imperative_common.add_printing_flags(p)
    common.add_dry_run_flag(p)
    p.add_argument("--save-config", action="store_true")
    p.add_argument("--field-manager", default="")
    p.add_argument("--min", default="-1")
    p.add_argument("--max", default=None)
    p.add_argument("--cpu-percent", dest="cpu_percent", default="-1")
    p.add_argument("--name", default="")
    from kubelite.cli.help import installed

    return installed(p, "autoscale")


def _int32(flag: str, text: str) -> int:
    """pflag's Int32 flag; a bad value is reported the way cobra reports flag errors."""
    from kubelite.imperative.validation import go_atoi

    value = go_atoi(text)
    if value is None or not -2**31 <= value < 2**31:
        problem = "invalid syntax" if value is None else "value out of range"
        sys.stderr.write(f'Error: invalid argument "{text}" for "--{flag}" flag: strconv.ParseInt: parsing "{text}": '
                         f"{problem}\nSee 'kubelite autoscale --help' for usage.\n")
        raise common.Failed(1)
    return value


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _autoscale)


def _autoscale(args) -> int:
    from kubelite.cli.create_generators import _required_flags_message
    from kubelite.imperative import ImperativeError
    from kubelite.imperative.autoscale import create_hpa, scale_target_error, validate_bounds

    args._verb = "autoscale"
    for flag in ("min", "max", "cpu_percent"):
        if getattr(args, flag) is not None:
            setattr(args, flag, _int32(flag.replace("_", "-"), getattr(args, flag)))
    if args.max is None:
        sys.stderr.write(_required_flags_message(["max"]) + "\n")
        raise common.Failed(1)
    dry_run = common.dry_run_mode(args)
    output = common.output_of(args)
    try:
        validate_bounds(args.min, args.max)
    except ImperativeError as err:
        raise common.CommandError(f"error: {err}") from None
    sess = common.session(args)
    found, errors = imperative_common.targets(sess, args, "autoscale")
    printer = common.ObjectPrinter(output) if output.kind and output.kind != "json" else None
    count = 0
    for request, obj in found:
        info = request.resource
        if info.subresource("scale") is None:
            errors.append(common.CommandError(
                f"error: {scale_target_error(info.kind, info.group, info.version, info.resource)}"))
            continue
        target = (obj.get("metadata") or {}).get("name") or request.name or ""
        hpa = create_hpa(target, info.api_version, info.kind, max_replicas=args.max, min_replicas=args.min,
                         cpu_percent=args.cpu_percent, name=args.name)
        count += 1
        if dry_run == "client":
            _print(hpa, output, printer, "created", dry_run, ordered=True)
            continue
        hpa = imperative_common.save_config(hpa, args.save_config)
        try:
            created = sess.client.create(sess.discovery.resolve("horizontalpodautoscalers.v1.autoscaling"),
                                         sess.namespace, hpa,
                                         imperative_common.write_params(args, "kubectl-autoscale", dry_run))
        except Exception as err:  # noqa: BLE001
            from kubelite.client.errors import ClientError

            if not isinstance(err, ClientError):
                raise
            count -= 1
            errors.append(err)
            continue
        _print(created, output, printer, "autoscaled", dry_run, ordered=False)
    if errors:
        return common.report(errors)
    if count == 0:
        raise common.CommandError("error: no objects passed to autoscale")
    return 0


def _print(obj, output, printer, operation, dry_run, *, ordered):
    if printer is not None:
        printer.print(obj)
    else:
        imperative_common.print_result(obj, output, operation, dry_run, ordered=ordered)
