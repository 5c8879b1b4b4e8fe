"""`kubelite port-forward`: forward local ports to a pod (see exec.py for what kubelite can stream)."""
from __future__ import annotations

from kubelite.cli import common
from kubelite.cli.exec import open_stream, running_timeout, target_pod


def build_parser() -> common.Parser:
    p = common.parser("port-forward", "Forward local ports to a pod.")
    p.add_argument("args", nargs="*")
    common.add_connection_flags(p)
    common.add_namespace_flags(p, all_namespaces=False)
    p.add_argument("--address", action="append", default=None)
    p.add_argument("--pod-running-timeout", default="1m0s")
    from kubelite.cli.help import installed

    return installed(p, "port-forward")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _port_forward)


def remote_port(pod: dict, text: str) -> str:
    """The pod port of `[LOCAL:]REMOTE` (a named container port is looked up)."""
    remote = text.split(":")[-1]
    if remote.isdigit():
        return remote
    for c in (pod.get("spec") or {}).get("containers") or []:
        for port in c.get("ports") or []:
            if port.get("name") == remote:
                return str(port.get("containerPort"))
    raise common.CommandError(f"error: Pod '{pod['metadata']['name']}' does not have a named port '{remote}'")


def _port_forward(args) -> int:
    if len(args.args) < 2:
        raise common.CommandError("error: TYPE/NAME and list of ports are required for port-forward\n"
                                  "See 'kubelite port-forward -h' for help and examples")
    timeout = running_timeout(args.pod_running_timeout)
    sess = common.session(args)
    pod = target_pod(sess, args.args[0], timeout)
    ports = [remote_port(pod, text) for text in args.args[1:]]
    phase = (pod.get("status") or {}).get("phase")
    if phase != "Running":
        raise common.CommandError(f"error: unable to forward port because pod is not running. Current status={phase}")
    open_stream(sess, pod, "portforward", [("ports", p) for p in ports], what="port-forward",
                upgrade_prefix="error upgrading connection: ")
    return 0
