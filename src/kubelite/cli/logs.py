"""`kubelite logs`: print the logs of a container of a pod, as kubectl logs does.

The logs come from the server's pods/log (any API server; kubelite's own answers from its
simulated containers, see server/podlogs.py).
"""
from __future__ import annotations

import sys
import threading

from kubelite.cli import common, podselect

USAGE = "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]"
USAGE_ERROR = (f"error: expected '{USAGE}'.\nPOD or TYPE/NAME is a required argument for the logs command\n"
               "See 'kubelite logs -h' for help and examples")
SELECTOR_TAIL = 10


def build_parser() -> common.Parser:
    p = common.parser("logs", "Print the logs of a container of a pod.")
    p.add_argument("args", nargs="*")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    p.add_argument("--all-containers", action="store_true")
    p.add_argument("--all-pods", action="store_true")
    p.add_argument("-c", "--container", default=None)
    p.add_argument("-f", "--follow", action="store_true")
    p.add_argument("--ignore-errors", action="store_true")
    p.add_argument("--insecure-skip-tls-verify-backend", action="store_true")
    p.add_argument("--limit-bytes", type=int, default=0)
    p.add_argument("--max-log-requests", type=int, default=5)
    p.add_argument("--pod-running-timeout", default="20s")
    p.add_argument("--prefix", action="store_true")
    p.add_argument("-p", "--previous", action="store_true")
    p.add_argument("-l", "--selector", default="")
    p.add_argument("--since", default="0s")
    p.add_argument("--since-time", default="")
    p.add_argument("--tail", type=int, default=None)
    p.add_argument("--timestamps", action="store_true")
    from kubelite.cli.help import installed

    return installed(p, "logs")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _logs)


def _duration(text: str, flag: str) -> float:
    try:
        return common.parse_duration(text) or 0.0
    except common.CommandError:
        raise common.CommandError(f'error: invalid argument "{text}" for "{flag}" flag: time: invalid duration '
                                  f'"{text}"') from None


def _query(args, container_given: str | None) -> dict:
    """PodLogOptions as kubectl sends them."""
    query: dict = {}
    if args.follow:
        query["follow"] = "true"
    if args.previous:
        query["previous"] = "true"
    if args.timestamps:
        query["timestamps"] = "true"
    if args.since_time:
        from kubelite.server.clock import format_time, parse_time

        when = parse_time(args.since_time)
        if when is None:
            raise common.CommandError(f'error: parsing time "{args.since_time}" as "2006-01-02T15:04:05Z07:00": '
                                      f'cannot parse "{args.since_time}" as "2006"')
        import datetime

        query["sinceTime"] = format_time(datetime.datetime.fromtimestamp(when, datetime.timezone.utc))
    since = _duration(args.since, "--since")
    if since:
        query["sinceSeconds"] = str(int(since + 0.5))
    if args.limit_bytes:
        query["limitBytes"] = str(args.limit_bytes)
    if args.selector and args.tail is None:
        query["tailLines"] = str(SELECTOR_TAIL)
    elif args.tail is not None and args.tail != -1:
        query["tailLines"] = str(args.tail)
    return query


def _validate(args, container: str | None, inline_container: bool) -> None:
    if args.since_time and _duration(args.since, "--since"):
        raise common.CommandError("error: at most one of `sinceTime` or `sinceSeconds` may be specified")
    if args.all_containers and container:
        raise common.CommandError(f"error: --all-containers=true should not be specified with container name "
                                  f"{container}")
    if args.container is not None and inline_container:
        raise common.CommandError("error: only one of -c or an inline [CONTAINER] arg is allowed")
    if args.limit_bytes < 0:
        raise common.CommandError("error: --limit-bytes must be greater than 0")
    if _duration(args.since, "--since") < 0:
        raise common.CommandError("error: --since must be greater than 0")
    if args.tail is not None and args.tail < -1:
        raise common.CommandError("error: --tail must be greater than or equal to -1")


def _logs(args) -> int:
    positional = list(args.args)
    if not positional and not args.selector or len(positional) > 2:
        raise common.CommandError(USAGE_ERROR)
    if len(positional) == 1 and args.selector:
        raise common.CommandError("error: only a selector (-l) or a POD name is allowed\n"
                                  "See 'kubelite logs -h' for help and examples")
    inline = len(positional) == 2
    container = positional[1] if inline else (args.container or None)
    prefix = args.prefix or args.all_pods
    sess = common.session(args)
    namespace = sess.namespace
    timeout = _duration(args.pod_running_timeout, "--pod-running-timeout")
    query = _query(args, container)
    if args.selector:
        pods = podselect.pods_of(sess, namespace, args.selector)
        if not pods:
            print(f"No resources found in {namespace} namespace.", file=sys.stderr)
    else:
        pods = [_target(sess, positional[0], namespace, timeout, args.all_pods)]
        if args.all_pods and len(pods) == 1 and "/" in positional[0]:
            pods = _all_pods(sess, positional[0], namespace) or pods
    _validate(args, container, inline)
    requests = []
    for pod in pods:
        for name in _containers(pod, container, args.all_containers, quiet=args.all_pods):
            requests.append((pod, name))
    if args.follow and len(requests) > 1 and len(requests) > args.max_log_requests:
        raise common.CommandError(f"error: you are attempting to follow {len(requests)} log streams, but maximum "
                                  f"allowed concurrency is {args.max_log_requests}, use --max-log-requests to "
                                  f"increase the limit")
    if args.follow and len(requests) > 1:
        return _follow_all(sess, requests, query, prefix, args.ignore_errors)
    for pod, name in requests:
        _consume(sess, pod, name, query, prefix, args.follow, args.ignore_errors)
    return 0


def _consume(sess, pod: dict, name: str, query: dict, prefix: bool, follow: bool, ignore_errors: bool) -> None:
    label = f"[pod/{pod['metadata']['name']}/{name}] " if prefix else ""
    try:
        _print_log(sess, pod, name, query, label, follow)
    except Exception as err:  # noqa: BLE001 - kubectl's --ignore-errors prints and goes on
        if not ignore_errors:
            raise
        _write(f"error: {common.error_message(err).removeprefix('error: ')}\n")


def _follow_all(sess, requests, query: dict, prefix: bool, ignore_errors: bool) -> int:
    """Several followed logs at once, interleaved line by line, as kubectl follows them in parallel."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        futures = [pool.submit(_consume, sess, pod, name, query, prefix, True, ignore_errors)
                   for pod, name in requests]
        for future in futures:
            future.result()
    return 0


def _target(sess, arg: str, namespace: str, timeout: float, all_pods: bool) -> dict:
    from kubelite.client.errors import ApiError

    try:
        return podselect.resolve_target(sess, arg, namespace, timeout, note=not all_pods)
    except ApiError as err:
        if err.code == 404:
            raise common.CommandError(f"error: error from server (NotFound): {err.message} in namespace "
                                      f'"{namespace}"') from None
        raise


def _all_pods(sess, arg: str, namespace: str) -> list[dict]:
    typed, _, name = arg.partition("/")
    info = sess.discovery.resolve(typed)
    obj = sess.client.get(info, name, namespace)
    if obj.get("kind") == "Pod":
        return [obj]
    return podselect.pods_of(sess, namespace, podselect.selector_of(obj))


def _containers(pod: dict, container: str | None, every: bool, quiet: bool) -> list[str]:
    spec = pod.get("spec") or {}
    if every:
        return [c.get("name") for group in ("initContainers", "containers", "ephemeralContainers")
                for c in spec.get(group) or []]
    if container:
        if podselect.find_container(pod, container) is None:
            raise common.CommandError(f"error: container {container} is not valid for pod {pod['metadata']['name']}")
        return [container]
    return [podselect.default_container(pod, quiet=quiet)]


def _print_log(sess, pod: dict, container: str, query: dict, label: str, follow: bool) -> None:
    from kubelite.client.dynamic import resource_path

    pods_r = sess.discovery.resolve("pods")
    meta = pod["metadata"]
    path = resource_path(pods_r, meta.get("namespace"), meta["name"], "log")
    params = {**query, "container": container}
    if follow:
        for line in sess.transport.stream("GET", path, params=params):
            _write(label + (line.decode() if isinstance(line, bytes) else line) + "\n")
        return
    response = sess.transport.request("GET", path, params=params)
    text = response.content.decode("utf-8", "replace")
    if label:
        text = "".join(label + line for line in text.splitlines(keepends=True))
    _write(text)


_OUT = threading.Lock()


def _write(text: str) -> None:
    """One whole line (or log) at a time: followed logs write from several threads."""
    with _OUT:
        sys.stdout.write(text)
        sys.stdout.flush()
