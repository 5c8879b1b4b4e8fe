"""`kubelite exec` (and the other commands that need a stream to a node's kubelet: attach,
port-forward, cp; see attach.py, port_forward.py, cp.py, debug.py).

kubelite validates and resolves the target as kubectl does, then opens the request to the
API server as kubectl's SPDY fallback does (POST with the stream protocol headers). The API
server's refusal is printed as kubectl prints it — kubelite's own cluster answers as one whose
kubelets cannot be reached ("error dialing backend: ... connection refused"). When a server
accepts the upgrade, kubelite stops: it does not implement the WebSocket / SPDY streaming
protocols, so it cannot carry an interactive session.
"""
from __future__ import annotations

import sys

from kubelite.cli import common, podselect

STREAM_PROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io",
                    "channel.k8s.io")
NOT_STREAMING = ("error: kubelite does not implement the streaming protocols (SPDY/WebSocket) {what} needs; "
                 "the server accepted the connection")


class StreamRefused(common.CommandError):
    pass


def build_parser() -> common.Parser:
    p = common.parser("exec", "Run a command in a container.")
    add_session_flags(p)
    p.add_argument("-f", "--filename", action="append", default=[])
    from kubelite.cli.help import installed

    return installed(p, "exec")


def add_session_flags(p) -> None:
    """The target and flags exec and attach share: a pod, its container, stdin and a terminal."""
    p.add_argument("args", nargs="*")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    p.add_argument("-c", "--container", default="")
    p.add_argument("--pod-running-timeout", default="1m0s")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("-i", "--stdin", action="store_true")
    p.add_argument("-t", "--tty", action="store_true")


def split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """kubelite's own words, and the container's command after `--`."""
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def run(argv: list[str]) -> int:
    argv, command = split_command(argv)
    return common.run(build_parser(), argv, lambda args: _exec(args, command))


def running_timeout(text: str) -> float:
    try:
        seconds = common.parse_duration(text) or 0.0
    except common.CommandError:
        raise common.CommandError(f'error: invalid argument "{text}" for "--pod-running-timeout" flag: time: '
                                  f'invalid duration "{text}"') from None
    if seconds <= 0:
        raise common.CommandError("error: --pod-running-timeout must be higher than zero")
    return seconds


def target_pod(sess, arg: str, timeout: float) -> dict:
    return podselect.resolve_target(sess, arg, sess.namespace, timeout, note=False)


def terminal_wanted(args) -> bool:
    """-t only holds when stdin is a terminal; kubectl says so and goes on without one."""
    if args.tty and not sys.stdin.isatty():
        print("Unable to use a TTY - input is not a terminal or the right kind of file", file=sys.stderr, flush=True)
        return False
    return args.tty


def _exec(args, command: list[str]) -> int:
    positional = list(args.args)
    if not positional and not args.filename:
        raise common.CommandError("error: pod, type/name or --filename must be specified")
    if len(positional) > 1 and not command:
        command = positional[1:]  # the deprecated form without --
    if not command:
        raise common.CommandError("error: you must specify at least one command for the container")
    timeout = running_timeout(args.pod_running_timeout)
    sess = common.session(args)
    pod = target_pod(sess, positional[0], timeout)
    tty = terminal_wanted(args)
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):
        raise common.CommandError(f"error: cannot exec into a container in a completed pod; current phase is {phase}")
    container = args.container or podselect.default_container(pod, quiet=args.quiet)
    query = [("command", c) for c in command] + [("container", container)]
    if args.stdin:
        query.append(("stdin", "true"))
    if not tty:  # a terminal carries both outputs in one stream
        query.append(("stderr", "true"))
    query.append(("stdout", "true"))
    if tty:
        query.append(("tty", "true"))
    open_stream(sess, pod, "exec", query, what="exec")
    return 0


def open_stream(sess, pod: dict, subresource: str, query: list[tuple[str, str]], *, what: str,
                upgrade_prefix: str = "") -> None:
    """Ask the API server for the stream; raise kubectl's error when it refuses."""
    import httpx

    from kubelite.client import http1
    from kubelite.client.dynamic import resource_path
    from kubelite.client.errors import ApiError

    pods_r = sess.discovery.resolve("pods")
    meta = pod["metadata"]
    path = resource_path(pods_r, meta.get("namespace"), meta["name"], subresource)
    headers = [("X-Stream-Protocol-Version", p) for p in STREAM_PROTOCOLS]
    transport = sess.transport
    try:
        response = transport._client.request("POST", path, params=httpx.QueryParams(query),
                                             headers=httpx.Headers(headers + [("Connection", "Upgrade"),
                                                                              ("Upgrade", "SPDY/3.1")]))
    except (httpx.HTTPError, http1.HTTPError) as err:
        raise common.CommandError(f"error: {err}") from None
    if response.status_code >= 400:
        err = ApiError.from_response(response.status_code, response.content, "POST")
        if upgrade_prefix:
            raise StreamRefused(f"error: {upgrade_prefix}{err.message}")
        raise err
    response.close()
    raise StreamRefused(NOT_STREAMING.format(what=what))
