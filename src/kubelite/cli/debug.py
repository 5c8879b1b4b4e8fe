"""`kubelite debug`: debugging sessions for pods and nodes, as kubectl debug starts them.

A node is debugged with a new pod on it (host namespaces, the node's root at /host), which
kubelite creates as kubectl does. A pod is debugged with an ephemeral container added through
the pods/ephemeralcontainers subresource (a server without it gets kubectl's "ephemeral
containers are disabled" error). With -i the container is attached to once it runs; when that
fails (kubelite's own cluster: no kubelet to dial; any cluster: kubelite does not implement the
streaming protocols, see exec.py) its log is printed instead, as kubectl falls back to.
"""
from __future__ import annotations

import random
import sys

from kubelite.cli import common

_SUFFIX = "bcdfghjklmnpqrstvwxz2456789"
PROFILES = ("legacy", "general", "baseline", "netadmin", "restricted", "sysadmin")


def build_parser() -> common.Parser:
    p = common.parser("debug", "Create debugging sessions for troubleshooting workloads and nodes.")
    p.add_argument("args", nargs="*")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    p.add_argument("--arguments-only", action="store_true")
    p.add_argument("--attach", action="store_true")  # implied by -i
    p.add_argument("-c", "--container", default="")
    p.add_argument("--copy-to", default="")
    p.add_argument("--custom", default="")
    p.add_argument("--env", action="append", default=[])
    p.add_argument("-f", "--filename", action="append", default=[])
    p.add_argument("--image", default="")
    p.add_argument("--image-pull-policy", default="")
    p.add_argument("--keep-annotations", action="store_true")
    p.add_argument("--keep-init-containers", default="true")
    p.add_argument("--keep-labels", action="store_true")
    p.add_argument("--keep-liveness", action="store_true")
    p.add_argument("--keep-readiness", action="store_true")
    p.add_argument("--keep-startup", action="store_true")
    p.add_argument("--profile", default="legacy")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--replace", action="store_true")
    p.add_argument("--same-node", action="store_true")
    p.add_argument("--set-image", action="append", default=[])
    p.add_argument("--share-processes", default="true")
    p.add_argument("-i", "--stdin", action="store_true")
    p.add_argument("--target", default="")
    p.add_argument("-t", "--tty", action="store_true")
    from kubelite.cli.help import installed

    return installed(p, "debug")


def run(argv: list[str]) -> int:
    from kubelite.cli.exec import split_command

    argv, command = split_command(argv)
    explicit_profile = any(a == "--profile" or a.startswith("--profile=") for a in argv)
    return common.run(build_parser(), argv, lambda args: _debug(args, command, explicit_profile))


def _name(prefix: str) -> str:
    return prefix + "".join(random.choice(_SUFFIX) for _ in range(5))


def _debug(args, command: list[str], explicit_profile: bool) -> int:
    if not args.args and not args.filename:
        raise common.CommandError("error: NAME is required for debug\nSee 'kubelite debug -h' for help and examples")
    if args.profile not in PROFILES:
        raise common.CommandError(f'error: unknown profile: {args.profile}')
    if not args.image and not args.copy_to:
        raise common.CommandError("error: you must specify --image when not using --copy-to.")
    if args.copy_to:
        raise common.CommandError("error: kubelite debug does not support --copy-to")
    if not explicit_profile:
        print('--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly '
              'specify a profile, for example "--profile=general".', file=sys.stderr, flush=True)
    sess = common.session(args)
    target = args.args[0]
    if target.startswith(("node/", "nodes/", "no/")):
        return _debug_node(sess, args, target.split("/", 1)[1], command)
    return _debug_pod(sess, args, target.split("/", 1)[-1], command)


def _container(args, command: list[str]) -> dict:
    c = {"name": args.container or "debugger", "image": args.image, "resources": {},
         "terminationMessagePolicy": "File"}
    if command:
        c["args" if args.arguments_only else "command"] = command
    if args.image_pull_policy:
        c["imagePullPolicy"] = args.image_pull_policy
    if args.stdin:
        c["stdin"] = True
    if args.tty:
        c["tty"] = True
    if args.env:
        c["env"] = [{"name": k, "value": v} for k, _, v in (e.partition("=") for e in args.env)]
    return c


def _debug_node(sess, args, node: str, command: list[str]) -> int:
    nodes_r = sess.discovery.resolve("nodes")
    sess.client.get(nodes_r, node)
    container = _container(args, command)
    container["volumeMounts"] = [{"name": "host-root", "mountPath": "/host"}]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": _name(f"node-debugger-{node}-"), "namespace": sess.namespace},
           "spec": {"containers": [container], "hostIPC": True, "hostNetwork": True, "hostPID": True,
                    "nodeName": node, "restartPolicy": "Never", "tolerations": [{"operator": "Exists"}],
                    "volumes": [{"name": "host-root", "hostPath": {"path": "/"}}]}}
    pods_r = sess.discovery.resolve("pods")
    created = sess.client.create(pods_r, sess.namespace, pod)
    if not args.quiet:
        print(f"Creating debugging pod {created['metadata']['name']} with container {container['name']} on node "
              f"{node}.", flush=True)
    return 0


def _debug_pod(sess, args, name: str, command: list[str]) -> int:
    from kubelite.client.errors import ApiError

    pods_r = sess.discovery.resolve("pods")
    pod = sess.client.get(pods_r, name, sess.namespace)
    container = _container(args, command)
    if not args.container:
        container["name"] = _name("debugger-")
        if not args.quiet:
            print(f"Defaulting debug container name to {container['name']}.", flush=True)
    if args.target:
        container["targetContainerName"] = args.target
    ephemeral = list((pod.get("spec") or {}).get("ephemeralContainers") or []) + [container]
    try:
        sess.client.patch(pods_r, sess.namespace, name, {"spec": {"ephemeralContainers": ephemeral}}, "strategic",
                          subresource="ephemeralcontainers")
    except ApiError as err:
        if err.code == 404 and err.reason == "NotFound" and not err.status.get("details", {}).get("name"):
            raise common.CommandError('error: ephemeral containers are disabled for this cluster (error from '
                                      'server: "the server could not find the requested resource")') from None
        raise
    if args.stdin or args.attach:
        _attach_or_logs(sess, args, name, container["name"])
    return 0


def _attach_or_logs(sess, args, name: str, container: str) -> None:
    """As kubectl: wait for the container to run, attach, and fall back to its log when attaching fails."""
    from kubelite.cli.exec import StreamRefused, open_stream, terminal_wanted
    from kubelite.client.dynamic import resource_path
    from kubelite.client.errors import ApiError

    tty = terminal_wanted(args)
    pods_r = sess.discovery.resolve("pods")
    pod = _wait_running(sess, pods_r, name, container)
    if not args.quiet:
        print("If you don't see a command prompt, try pressing enter.", file=sys.stderr, flush=True)
    query = [("container", container)] + ([("stdin", "true")] if args.stdin else [])
    query += ([] if tty else [("stderr", "true")]) + [("stdout", "true")] + ([("tty", "true")] if tty else [])
    try:
        open_stream(sess, pod, "attach", query, what="debug")
    except (ApiError, StreamRefused) as err:
        reason = err.message if isinstance(err, ApiError) else str(err).removeprefix("error: ")
        print(f"warning: couldn't attach to pod/{name}, falling back to streaming logs: {reason}", file=sys.stderr,
              flush=True)
        path = resource_path(pods_r, sess.namespace, name, "log")
        sys.stdout.write(sess.transport.request("GET", path, params={"container": container}).text)
        sys.stdout.flush()


def _wait_running(sess, pods_r, name: str, container: str, timeout: float = 60.0) -> dict:
    import time

    deadline = time.monotonic() + timeout
    while True:
        pod = sess.client.get(pods_r, name, sess.namespace)
        for cs in (pod.get("status") or {}).get("ephemeralContainerStatuses") or []:
            if cs.get("name") == container and set(cs.get("state") or {}) & {"running", "terminated"}:
                return pod
        if time.monotonic() >= deadline:
            raise common.CommandError("error: timed out waiting for the condition")
        time.sleep(0.2)
