"""`kubelite create token SA`: ask the server for a service account token (a TokenRequest), as kubectl does.

The token alone is printed (with a newline only on a terminal, so `$(...)` and pipes get it bare);
with -o the whole TokenRequest the server answered.
"""
from __future__ import annotations

import json
import re
import sys

from kubelite.cli import common

BOUND_KINDS = {"Node": "v1", "Pod": "v1", "Secret": "v1"}
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)?")


def build_parser() -> common.Parser:
    p = common.parser("create token", "Request a service account token.")
    p.add_argument("args", nargs="*", help=__import__("argparse").SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    from kubelite.cli.imperative_common import add_printing_flags

    add_printing_flags(p)
    p.add_argument("--audience", action="append", default=[])
    p.add_argument("--duration", default="0s")
    p.add_argument("--bound-object-kind", default="")
    p.add_argument("--bound-object-name", default="")
    p.add_argument("--bound-object-uid", default="")
    from kubelite.cli.help import installed

    return installed(p, "create token")


def run(argv: list[str]) -> int:
    if "--" in argv:  # kubectl counts the NAMEs before `--` (ArgsLenAtDash) and ignores the words after it
        argv = argv[:argv.index("--")]
    return common.run(build_parser(), argv, _token)


def go_duration(text: str) -> float:
    """Seconds in a Go duration such as 10m, 1h30m or 1.5s; pflag's message for anything else."""
    def invalid(why: str = "invalid duration") -> common.UsageError:
        return common.UsageError(f'Error: invalid argument "{text}" for "--duration" flag: time: {why} '
                                 f'"{text}"\nSee \'kubelite create token --help\' for usage.')

    rest, sign = text, 1.0
    if rest[:1] in ("-", "+"):
        sign, rest = (-1.0 if rest[0] == "-" else 1.0), rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise invalid()
    total = 0.0
    while rest:
        m = _PART.match(rest)
        number, unit = m.group(1), m.group(2)
        if not number or number == ".":
            raise invalid()
        if unit is None:
            raise invalid("missing unit in duration")
        total += float(number) * _UNITS[unit]
        rest = rest[m.end():]
    return sign * total


def _token(args) -> int:
    seconds = go_duration(args.duration)
    if len(args.args) != 1:
        raise common.UsageError(f"error: exactly one NAME is required, got {len(args.args)}\n"
                                "See 'kubelite create token -h' for help and examples")
    sess = common.session(args)
    name, namespace = args.args[0], sess.namespace
    output = common.output_of(args)
    _validate(args, name, namespace, seconds)
    spec: dict = {"audiences": list(args.audience) or None}
    if seconds > 0:
        spec["expirationSeconds"] = int(seconds)
    if args.bound_object_kind:
        spec["boundObjectRef"] = {"kind": args.bound_object_kind, "apiVersion": BOUND_KINDS[args.bound_object_kind],
                                  "name": args.bound_object_name}
        if args.bound_object_uid:
            spec["boundObjectRef"]["uid"] = args.bound_object_uid
    request = {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1", "metadata": {"creationTimestamp": None},
               "spec": spec, "status": {"token": "", "expirationTimestamp": None}}
    answer = _request(sess, namespace, name, request)
    token = ((answer.get("status") or {}).get("token") or "") if isinstance(answer, dict) else ""
    if not token:
        raise common.CommandError("error: failed to create token: no token in server response")
    if output.kind:
        from kubelite.cli.imperative_common import print_result

        print_result(answer, output, "", "none", ordered=False)
        return 0
    sys.stdout.write(token + ("\n" if sys.stdout.isatty() else ""))
    return 0


def _validate(args, name: str, namespace: str, seconds: float) -> None:
    def fail(text: str):
        return common.CommandError("error: " + text)

    if not name:
        raise fail("service account name is required")
    if not namespace:
        raise fail("--namespace is required")
    if seconds < 0:
        raise fail("--duration must be greater than or equal to 0")
    if abs(seconds - round(seconds)) > 1e-9:
        raise fail("--duration cannot be expressed in units less than seconds")
    if any(not audience for audience in args.audience):
        raise fail("--audience must not be an empty string")
    if not args.bound_object_kind:
        if args.bound_object_name:
            raise fail("--bound-object-name can only be set if --bound-object-kind is provided")
        if args.bound_object_uid:
            raise fail("--bound-object-uid can only be set if --bound-object-kind is provided")
    else:
        if args.bound_object_kind not in BOUND_KINDS:
            raise fail("supported --bound-object-kind values are " + ", ".join(sorted(BOUND_KINDS)))
        if not args.bound_object_name:
            raise fail("--bound-object-name is required if --bound-object-kind is provided")


def _request(sess, namespace: str, name: str, body: dict) -> dict:
    from urllib.parse import quote

    from kubelite.client.errors import ApiError

    path = f"/api/v1/namespaces/{quote(namespace, safe='')}/serviceaccounts/{quote(name, safe='')}/token"
    try:
        return sess.transport.json("POST", path, body=json.dumps(body, separators=(",", ":")).encode(),
                                   content_type="application/json", accept="application/json")
    except ApiError as err:
        raise common.CommandError(f"error: failed to create token: {err.message}") from None
