"""`kubelite cluster-info dump`: the cluster's state for debugging, as kubectl cluster-info dump writes it.

Nodes, then for each namespace (kube-system and the current one, --namespaces, or all with -A) its
events, replication controllers, services, daemon sets, deployments, replica sets and pods, each as
one List, then every container's logs framed by START/END lines. On stdout by default; with
--output-directory one file per List (nodes.json, NS/pods.json, ...) and NS/POD/logs.txt.
"""
from __future__ import annotations

import os
import sys

from kubelite.cli import common

# (file name, group, version, plural, Go type kubectl names in its -o name refusal)
PER_NAMESPACE = (
    ("events", "", "v1", "events", "*v1.EventList"),
    ("replication-controllers", "", "v1", "replicationcontrollers", "*v1.ReplicationControllerList"),
    ("services", "", "v1", "services", "*v1.ServiceList"),
    ("daemonsets", "apps", "v1", "daemonsets", "*v1.DaemonSetList"),
    ("deployments", "apps", "v1", "deployments", "*v1.DeploymentList"),
    ("replicasets", "apps", "v1", "replicasets", "*v1.ReplicaSetList"),
    ("pods", "", "v1", "pods", "*v1.PodList"),
)
_EXTENSIONS = {"json": ".json", "yaml": ".yaml"}


def build_dump_parser() -> common.Parser:
    from kubelite.cli.imperative_common import add_printing_flags

    p = common.parser("cluster-info dump", "Dump the cluster's state for debugging.")
    p.add_argument("args", nargs="*", help=common.argparse.SUPPRESS)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace")
    add_printing_flags(p)
    p.set_defaults(output="json")
    p.add_argument("--output-directory", default="")
    p.add_argument("--namespaces", action="append", default=[])
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--pod-running-timeout", default="20s")
    from kubelite.cli.help import installed

    return installed(p, "cluster-info dump")


def run(argv: list[str]) -> int:
    return common.run(build_dump_parser(), argv, _dump)


def _dump(args) -> int:
    if args.args:
        raise common.UsageError(f'error: unknown command "{args.args[0]}" for "kubelite cluster-info dump"')
    output = common.output_of(args)
    extension = _EXTENSIONS.get(output.kind, ".txt")
    sess = common.session(args)
    client = sess.client
    directory = args.output_directory if args.output_directory not in ("", "-") else ""

    printed = []

    def emit(obj: dict, name: str, go_type: str) -> None:
        text = _render(output, obj, go_type)
        if output.kind == "yaml" and printed:  # kubectl's one YAML printer separates every later document
            text = "---\n" + text
        printed.append(name)
        _write(directory, name + extension, text)

    emit(client.list(_resource(sess, "", "v1", "nodes")), "nodes", "*v1.NodeList")
    for namespace in _namespaces(sess, args):
        pods: dict = {}
        for name, group, version, plural, go_type in PER_NAMESPACE:
            listed = client.list(_resource(sess, group, version, plural), namespace)
            emit(listed, f"{namespace}/{name}", go_type)
            if plural == "pods":
                pods = listed
        for pod in pods.get("items") or ():
            _write(directory, f"{namespace}/{pod['metadata']['name']}/logs.txt", _pod_logs(sess, pod))
    if directory:
        sys.stdout.write(f"Cluster info dumped to {args.output_directory}\n")
    return 0


def _namespaces(sess, args) -> list[str]:
    if args.all_namespaces:
        listed = sess.client.list(_resource(sess, "", "v1", "namespaces"))
        return [ns["metadata"]["name"] for ns in listed.get("items") or ()]
    chosen = [n for value in args.namespaces for n in _csv(value)]
    return chosen or ["kube-system", sess.namespace]


def _csv(value: str) -> list[str]:
    import csv

    return next(csv.reader([value])) if value else []


def _resource(sess, group: str, version: str, plural: str):
    """A fixed group/version, as kubectl's typed clients use (no discovery needed)."""
    from kubelite.server.resources import ResourceInfo

    return ResourceInfo(group, version, plural, "", "", plural not in ("nodes", "namespaces"))


def _render(output, obj: dict, go_type: str) -> str:
    obj = _without_managed_fields(obj)
    if output.kind == "json":
        from kubelite.imperative.jsonorder import to_json_in_order

        return to_json_in_order(obj)
    if output.kind == "name":
        raise common.CommandError(f"error: list types are not supported by name printing: {go_type}")
    return common.render(output, obj)


def _without_managed_fields(obj: dict) -> dict:
    """kubectl prints Lists without managedFields unless --show-managed-fields is given."""
    items = []
    for item in obj.get("items") or ():
        meta = {k: v for k, v in (item.get("metadata") or {}).items() if k != "managedFields"}
        items.append({**item, "metadata": meta})
    return {**obj, "items": items}


def _pod_logs(sess, pod: dict) -> str:
    from urllib.parse import quote

    from kubelite.client.errors import ClientError

    meta, spec = pod["metadata"], pod.get("spec") or {}
    parts = []
    for container in [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]:
        where = f"container {container.get('name')} of pod {meta.get('namespace')}/{meta.get('name')}"
        parts.append(f"==== START logs for {where} ====\n")
        path = f"/api/v1/namespaces/{quote(meta['namespace'], safe='')}/pods/{quote(meta['name'], safe='')}/log"
        try:
            response = sess.transport.request("GET", path, params={"container": container.get("name")})
            parts.append(response.content.decode("utf-8", "replace"))
        except ClientError as err:
            parts.append(f"Request log error: {common.error_message(err).removeprefix('error: ').rstrip()}\n")
        parts.append(f"==== END logs for {where} ====\n")
    return "".join(parts)


def _write(directory: str, name: str, text: str) -> None:
    if not directory:
        sys.stdout.write(text)
        return
    path = os.path.join(directory, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
