"""`kubelite cluster-info`: where the control plane is, and the cluster services labelled
kubernetes.io/cluster-service=true in kube-system, as kubectl cluster-info prints them."""
from __future__ import annotations

import sys

from kubelite.cli import common

EXAMPLES = """\
  # Print the address of the control plane and cluster services
  kubelite cluster-info
"""


def build_parser() -> common.Parser:
    p = common.parser("cluster-info", "Display addresses of the control plane and services with label "
                                      "kubernetes.io/cluster-service=true.", EXAMPLES)
    p.add_argument("args", nargs="*", help=common.argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", help="where to look for cluster services (default kube-system)")
    from kubelite.cli.help import installed

    return installed(p, "cluster-info")


def run(argv: list[str]) -> int:
    if argv and argv[0] == "dump":
        from kubelite.cli import cluster_info_dump

        return cluster_info_dump.run(argv[1:])
    return common.run(build_parser(), argv, _cluster_info)


def _cluster_info(args) -> int:
    if args.args:
        raise common.CommandError(f'error: unknown command "{args.args[0]}" for "kubelite cluster-info"')
    sess = common.session(args)
    transport = sess.transport
    address = sess.connection.server if not transport.embedded else "the embedded cluster (in-process)"
    services = sess.client.list(sess.discovery.resolve("services"), args.namespace or "kube-system",
                                label_selector="kubernetes.io/cluster-service=true")
    out = [f"Kubernetes control plane is running at {address}\n"]
    for svc in services.get("items") or ():
        out.append(_service_line(svc, address))
    out.append("\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n")
    sys.stdout.write("".join(out))
    return 0


def _service_line(svc: dict, address: str) -> str:
    meta = svc.get("metadata") or {}
    spec = svc.get("spec") or {}
    ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    ports = spec.get("ports") or []
    if ingress:
        ip = ingress[0].get("ip") or ingress[0].get("hostname") or ""
        link = f"http://{ip}" + "".join(f":{p.get('port')}" for p in ports[:1])
    else:
        target = meta.get("name", "")
        if ports:
            port = ports[0]
            scheme = "https" if port.get("name") == "https" or port.get("port") == 443 else ""
            target = _scheme_name_port(scheme, target, port.get("name") or "")
        link = f"{address}/api/v1/namespaces/{meta.get('namespace', '')}/services/{target}/proxy"
    name = (meta.get("labels") or {}).get("kubernetes.io/name") or meta.get("name", "")
    return f"{name} is running at {link}\n"


def _scheme_name_port(scheme: str, name: str, port: str) -> str:
    if scheme:
        return f"{scheme}:{name}:{port}"
    return f"{name}:{port}" if port else name
