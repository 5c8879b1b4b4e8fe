"""`kubelite run NAME --image=IMAGE [flags] [-- COMMAND [ARGS...]]`: create a Pod as kubectl run does."""
from __future__ import annotations

import argparse
import sys

from kubelite.cli import common


def build_parser() -> common.Parser:
    p = common.parser("run", "Create and run a particular image in a pod.")
    p.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    common.add_output_flag(p)
    common.add_template_flags(p)
    common.add_dry_run_flag(p)
    common.add_write_flags(p)
    p.add_argument("--image", default="")
    p.add_argument("--image-pull-policy", default="")
    p.add_argument("--port", default="")
    p.add_argument("--hostport", default="")
    p.add_argument("--env", action="append", default=[])
    p.add_argument("-l", "--labels", default="")
    p.add_argument("--annotations", action="append", default=[])
    p.add_argument("--restart", default="")
    p.add_argument("--command", action="store_true")
    p.add_argument("--overrides", default="")
    p.add_argument("--privileged", action="store_true")
    p.add_argument("-i", "--stdin", action="store_true")
    p.add_argument("-t", "--tty", action="store_true")
    p.add_argument("--leave-stdin-open", action="store_true")
    p.add_argument("--attach", action="store_true")
    p.add_argument("--rm", action="store_true")
    p.add_argument("--expose", action="store_true")
    from kubelite.cli.help import installed

    return installed(p, "run")


def run(argv: list[str]) -> int:
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1:]
    return common.run(build_parser(), argv, lambda args: _run(args, command))


def _run(args, command: list[str]) -> int:
    from kubelite.imperative import ImperativeError, pod

    words = [*args.args, *command]  # kubectl 1.32 takes the NAME from after `--` too (`run -- p a b`)
    if not words:
        raise common.UsageError("error: NAME is required for run\nSee 'kubelite run -h' for help and examples")
    if args.tty and not args.stdin:
        raise common.UsageError("error: -i/--stdin is required for containers with -t/--tty=true\n"
                                "See 'kubelite run -h' for help and examples")
    if args.attach or args.stdin or args.rm:
        raise common.CommandError("error: attaching to containers is not available in kubelite")
    if args.expose:
        raise common.CommandError("error: --expose is not available in kubelite run yet")
    if args.restart and args.restart not in ("Always", "OnFailure", "Never"):
        raise common.CommandError(f"error: invalid restart policy: {args.restart}")
    if args.image_pull_policy and args.image_pull_policy not in ("Always", "IfNotPresent", "Never"):
        raise common.CommandError(f"error: invalid image pull policy: {args.image_pull_policy}")
    output = common.output_of(args)
    dry_run = common.dry_run_mode(args)
    try:
        pod.check_image(args.image)
        obj = pod.create_pod(words[0], args.image, args=words[1:], command=args.command, labels=args.labels,
                             annotations=args.annotations, env=args.env, port=args.port, hostport=args.hostport,
                             restart=args.restart, image_pull_policy=args.image_pull_policy,
                             privileged=args.privileged)
        if args.overrides:
            obj = _as_pod(pod.apply_overrides(obj, args.overrides))
    except ImperativeError as err:
        raise common.CommandError(f"error: {err}") from None
    sess = common.session(args)
    info = sess.discovery.resolve("pods")  # kubectl maps the kind before anything else, even for dry runs
    if dry_run == "client":
        if args.namespace:
            obj["metadata"] = {**obj["metadata"], "namespace": args.namespace}
            obj["metadata"] = _meta_order(obj["metadata"])
        result, ordered = obj, not args.overrides
    else:
        from kubelite.cli.create_generators import _save_config

        params = common.write_params(args, "kubectl-run", dry_run)
        result = sess.client.create(info, args.namespace or sess.namespace, _save_config(obj, args.save_config),
                                    params)
        ordered = False
    from kubelite.imperative.jsonorder import is_typed

    if output.kind == "json" and (ordered or is_typed(result)):  # kubectl decodes overrides/answers into a Pod
        sys.stdout.write(common.typed_json(output, result))
    elif output.kind:
        sys.stdout.write(common.render(output, result))
    else:
        sys.stdout.write(common.success_line(result, "created", dry_run))
    return 0


def _as_pod(obj: dict) -> dict:
    """kubectl decodes the overridden object into a Go Pod: zero fields appear, unknown ones go."""
    from kubelite.imperative import ImperativeError
    from kubelite.schema.typed import TypedError, roundtrip
    from kubelite.quantity import canonical_quantity

    try:
        return roundtrip(obj, "v1", "Pod", quantity=canonical_quantity)
    except TypedError as err:
        raise ImperativeError(str(err)) from None


def _meta_order(meta: dict) -> dict:
    order = ("name", "namespace", "creationTimestamp", "labels", "annotations")
    return {**{k: meta[k] for k in order if k in meta}, **{k: v for k, v in meta.items() if k not in order}}
