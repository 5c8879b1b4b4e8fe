"""`kubelite attach`: attach to a running container (see exec.py for what kubelite can stream)."""
from __future__ import annotations

import sys

from kubelite.cli import common, podselect
from kubelite.cli.exec import add_session_flags, open_stream, running_timeout, target_pod, terminal_wanted


def build_parser() -> common.Parser:
    p = common.parser("attach", "Attach to a running container.")
    add_session_flags(p)
    from kubelite.cli.help import installed

    return installed(p, "attach")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _attach)


def _attach(args) -> int:
    if not args.args or len(args.args) > 2:
        raise common.CommandError("error: expected POD, TYPE/NAME, or TYPE NAME, (1) or (2) arguments\n"
                                  "See 'kubelite attach -h' for help and examples")
    timeout = running_timeout(args.pod_running_timeout)
    sess = common.session(args)
    target = "/".join(args.args) if len(args.args) == 2 else args.args[0]
    pod = target_pod(sess, target, timeout)
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):
        raise common.CommandError(f"error: cannot attach a container in a completed pod; current phase is {phase}")
    container = args.container or podselect.default_container(pod, quiet=args.quiet)
    spec = podselect.find_container(pod, container) or {}
    if args.tty and not spec.get("tty"):
        tty = False  # the container has no terminal to attach to
        if not args.quiet:
            print(f"error: Unable to use a TTY - container {container} did not allocate one", file=sys.stderr)
    else:
        tty = terminal_wanted(args)
    if not args.quiet:
        print("If you don't see a command prompt, try pressing enter.", file=sys.stderr, flush=True)
    query = [("container", container)]
    if args.stdin:
        query.append(("stdin", "true"))
    if not tty:
        query.append(("stderr", "true"))
    query.append(("stdout", "true"))
    if tty:
        query.append(("tty", "true"))
    open_stream(sess, pod, "attach", query, what="attach")
    return 0
