"""`kubelite drain`: cordon nodes, then evict (or delete) their pods and wait for them to go, as
kubectl drain does: DaemonSet pods need --ignore-daemonsets (and stay), pods with emptyDir data
need --delete-emptydir-data, pods no controller owns need --force; mirror pods are skipped.
PodDisruptionBudgets are enforced by the server's eviction subresource (429 is retried after 5 s).
"""
from __future__ import annotations

import sys
import threading
import time

from kubelite.cli import common
from kubelite.cli.cordon import add_node_args, cordon_nodes, select_nodes

EXAMPLES = """\
  # Move every pod off node-a, even pods no controller manages
  kubelite drain node-a --force

  # Leave DaemonSet pods, and give each pod 15 minutes to stop
  kubelite drain node-a --ignore-daemonsets --grace-period=900
"""
DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "cannot delete Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
POLL_INTERVAL = 1.0
RETRY_AFTER = 5.0


class DrainFailed(Exception):
    """One node could not be drained; `errors` are the reasons (kubectl's aggregate)."""

    def __init__(self, errors: list[str]):
        super().__init__(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        self.errors = errors


def build_parser() -> common.Parser:
    p = common.parser("drain", "Drain nodes in preparation for maintenance.", EXAMPLES)
    add_node_args(p)
    common.add_dry_run_flag(p)
    p.add_argument("--force", action="store_true", help="also delete pods no controller manages")
    p.add_argument("--ignore-daemonsets", action="store_true", help="leave DaemonSet-managed pods")
    p.add_argument("--delete-emptydir-data", action="store_true", help="also delete pods with emptyDir volumes")
    p.add_argument("--grace-period", type=int, default=-1, help="seconds each pod gets to stop (-1: its own)")
    p.add_argument("--timeout", default="0s", help="give up after this long (0: never)")
    p.add_argument("--pod-selector", default="", help="only the pods matching this label selector")
    p.add_argument("--disable-eviction", action="store_true", help="delete pods instead of evicting them")
    p.add_argument("--skip-wait-for-delete-timeout", type=int, default=0,
                   help="do not wait for pods deleted more than this many seconds ago")
    p.add_argument("--chunk-size", type=int, default=500, help="list pods in pages of this size")
    from kubelite.cli.help import installed

    return installed(p, "drain")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _drain)


def _drain(args) -> int:
    nodes = select_nodes(args, "drain")
    dry_run = common.dry_run_mode(args)
    if args.pod_selector and not _valid_selector(args.pod_selector):
        raise common.CommandError("error: --pod-selector=<pod_selector> must be a valid label selector")
    timeout = common.parse_duration(args.timeout)
    cordon_nodes(args, nodes, True, dry_run)
    fatal: list[str] = []
    pending: list[str] = []
    for node in nodes:
        name = node["metadata"]["name"]
        try:
            _drain_node(args, name, dry_run, timeout)
        except DrainFailed as err:
            sys.stdout.flush()
            sys.stderr.write(f'error: unable to drain node "{name}" due to error: {err}, continuing command...\n')
            fatal.extend(err.errors)
            pending.append(name)
            continue
        sys.stdout.write(common.success_line(node, "drained", dry_run))
        sys.stdout.flush()
    if pending:
        sys.stderr.write("There are pending nodes to be drained:\n" + "".join(f" {n}\n" for n in pending))
        sys.stderr.write("".join(f"{e}\n" for e in fatal))
        sys.stderr.flush()
        return 1
    return 0


def _valid_selector(text: str) -> bool:
    from kubelite.server.selectors import parse_label_requirements

    try:
        parse_label_requirements(text)
    except Exception:  # noqa: BLE001 - any parse failure is kubectl's one message
        return False
    return True


# -- which pods go ----------------------------------------------------------------------------------

def classify(args, pod: dict, daemonset_exists) -> tuple[str, str]:
    """(status, message) of one pod: "okay", "skip", "warning-delete", "warning-keep" or "error".

    kubectl runs its filters in order (recently deleted, DaemonSet, mirror, emptyDir, no
    controller) until one says the pod stays; the last filter run decides, so a warning of an
    earlier filter is lost when a later one finds nothing to say."""
    verdict = ("okay", "")
    for check in (_skip_deleted, _daemonset, _mirror, _local_storage, _unmanaged):
        verdict = check(args, pod, daemonset_exists)
        if verdict[0] not in ("okay", "warning-delete"):
            break
    return verdict


def _finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _controller(pod: dict) -> dict | None:
    return next((r for r in (pod.get("metadata") or {}).get("ownerReferences") or [] if r.get("controller")), None)


def _skip_deleted(args, pod, _):
    deleted_at = (pod.get("metadata") or {}).get("deletionTimestamp")
    if args.skip_wait_for_delete_timeout > 0 and deleted_at:
        from kubelite.server.clock import parse_time

        if time.time() - (parse_time(deleted_at) or time.time()) > args.skip_wait_for_delete_timeout:
            return "skip", ""
    return "okay", ""


def _daemonset(args, pod, daemonset_exists):
    ref = _controller(pod)
    if ref is None or ref.get("kind") != "DaemonSet" or _finished(pod):
        return "okay", ""
    found, message = daemonset_exists(pod["metadata"].get("namespace"), ref.get("name"))
    if not found:
        return ("warning-delete", message) if args.force and message.endswith("not found") else ("error", message)
    if not args.ignore_daemonsets:
        return "error", DAEMONSET_FATAL
    return "warning-keep", DAEMONSET_WARNING


def _mirror(args, pod, _):
    return ("skip", "") if MIRROR_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {}) else ("okay", "")


def _local_storage(args, pod, _):
    if not any("emptyDir" in v for v in (pod.get("spec") or {}).get("volumes") or []) or _finished(pod):
        return "okay", ""
    return ("warning-delete", LOCAL_STORAGE_WARNING) if args.delete_emptydir_data else ("error", LOCAL_STORAGE_FATAL)


def _unmanaged(args, pod, _):
    if _finished(pod) or _controller(pod) is not None:
        return "okay", ""
    return ("warning-delete", UNMANAGED_WARNING) if args.force else ("error", UNMANAGED_FATAL)


def pods_to_delete(args, sess, node_name: str) -> tuple[list[dict], str, list[str]]:
    """(pods to evict, the warning line, errors) for one node."""
    pods_info = sess.discovery.resolve("pods")
    ds_info = sess.discovery.resolve("daemonsets.apps")
    pods: list[dict] = []
    for page in sess.client.list_pages(pods_info, None, chunk_size=args.chunk_size,
                                       label_selector=args.pod_selector or None,
                                       field_selector=f"spec.nodeName={node_name}"):
        pods.extend(page.get("items") or [])

    def daemonset_exists(ns, name):
        from kubelite.client.errors import ApiError

        try:
            sess.client.get(ds_info, name, ns)
        except ApiError as err:
            return False, err.message
        return True, ""

    chosen, warnings, errors = [], {}, {}
    for pod in pods:
        status, message = classify(args, pod, daemonset_exists)
        ident = f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}"
        if status in ("okay", "warning-delete"):
            chosen.append(pod)
        if status.startswith("warning"):
            warnings.setdefault(message, []).append(ident)
        elif status == "error":
            errors.setdefault(message, []).append(ident)
    warning = "; ".join(f"{msg}: {', '.join(ids)}" for msg, ids in warnings.items())
    return chosen, warning, [f"cannot delete {msg}: {', '.join(ids)}" for msg, ids in errors.items()]


# -- evicting ---------------------------------------------------------------------------------------

def _drain_node(args, node_name: str, dry_run: str, timeout: float | None) -> None:
    sess = common.session(args)
    pods, warning, errors = pods_to_delete(args, sess, node_name)
    if errors:
        raise DrainFailed(errors)
    if warning:
        sys.stdout.flush()
        sys.stderr.write(f"Warning: {warning}\n")
        sys.stderr.flush()
    if dry_run == "client":
        for pod in pods:
            sys.stdout.write(f"evicting pod {pod['metadata'].get('namespace')}/{pod['metadata']['name']} (dry run)\n")
        return
    if not pods:
        return
    deadline = None if timeout is None else time.monotonic() + timeout
    evict = not args.disable_eviction
    # Every pod is evicted at once, as kubectl does (one goroutine each): a budget's 429 and its
    # 5 s retry are then met by all of them together.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(len(pods), 32)) as pool:
        errors = list(pool.map(lambda pod: _remove(sess, args, pod, evict, dry_run, deadline), pods))
    failures = [error for error in errors if error]
    waiting = [pod for pod, error in zip(pods, errors) if not error and dry_run != "server"]
    failures.extend(_wait_gone(sess, waiting, evict, deadline, timeout))
    if failures:
        _report_pending(args, sess, node_name, failures)
        raise DrainFailed(failures)


def _report_pending(args, sess, node_name: str, failures: list[str]) -> None:
    """What kubectl lists after a failed eviction: the pods still to go from the node."""
    pending, _, _ = pods_to_delete(args, sess, node_name)
    if pending:
        error = failures[0] if len(failures) == 1 else "[" + ", ".join(failures) + "]"
        sys.stdout.flush()
        sys.stderr.write(f'There are pending pods in node "{node_name}" when an error occurred: {error}\n' +
                         "".join(f"pod/{p['metadata']['name']}\n" for p in pending))
        sys.stderr.flush()


def _remove(sess, args, pod: dict, evict: bool, dry_run: str, deadline: float | None) -> str | None:
    from kubelite.client.dynamic import resource_path
    from kubelite.client.errors import ApiError

    info = sess.discovery.resolve("pods")
    ns, name = pod["metadata"].get("namespace"), pod["metadata"]["name"]
    options: dict = {}
    if args.grace_period >= 0:
        options["gracePeriodSeconds"] = args.grace_period
    if dry_run == "server":
        options["dryRun"] = ["All"]
    while True:
        if evict:
            suffix = " (server dry run)" if dry_run == "server" else ""
            _say(sys.stdout, f"evicting pod {ns}/{name}{suffix}\n")
        if deadline is not None and time.monotonic() > deadline:
            return f'error when evicting pods/"{name}" -n "{ns}": global timeout reached: ' \
                   f'{_go_duration(common.parse_duration(args.timeout))}'
        try:
            if evict:
                body = {"apiVersion": "policy/v1", "kind": "Eviction",
                        "metadata": {"name": name, "namespace": ns}, "deleteOptions": options}
                sess.client.transport.json("POST", resource_path(info, ns, name, "eviction"),
                                           body=_json(body), content_type="application/json",
                                           accept="application/json")
            else:
                sess.client.delete(info, ns, name, grace_period_seconds=options.get("gracePeriodSeconds"),
                                   dry_run=dry_run == "server")
            return None
        except ApiError as err:
            if err.code == 404:
                return None
            if err.code == 429 and evict:
                _say(sys.stderr, f'error when evicting pods/"{name}" -n "{ns}" (will retry after 5s): {err.message}\n')
                time.sleep(RETRY_AFTER)  # kubectl's fixed pause before asking again
                continue
            verb = "evicting" if evict else "deleting"
            return f'error when {verb} pods/"{name}" -n "{ns}": {err.message}'


_OUTPUT = threading.Lock()


def _say(stream, line: str) -> None:
    """One whole line from one of the concurrent evictions."""
    with _OUTPUT:
        sys.stdout.flush()
        stream.write(line)
        stream.flush()


def _wait_gone(sess, pods: list[dict], evict: bool, deadline: float | None, timeout: float | None) -> list[str]:
    """Poll until each pod is gone (or replaced by a namesake); print `pod/NAME evicted|deleted`."""
    from kubelite.client.errors import ApiError

    info = sess.discovery.resolve("pods")
    done_word = "evicted" if evict else "deleted"
    pending = list(pods)
    while pending:
        still = []
        for pod in pending:
            ns, name = pod["metadata"].get("namespace"), pod["metadata"]["name"]
            try:
                live = sess.client.get(info, name, ns)
            except ApiError as err:
                if err.code != 404:
                    return [f'error when waiting for pod "{name}" in namespace "{ns}" to terminate: {err.message}']
                live = None
            if live is None or live["metadata"].get("uid") != pod["metadata"].get("uid"):
                sys.stdout.write(f"pod/{name} {done_word}\n")
                sys.stdout.flush()
                continue
            still.append(pod)
        pending = still
        if not pending:
            break
        if deadline is not None and time.monotonic() > deadline:
            return [f'error when waiting for pod "{p["metadata"]["name"]}" in namespace '
                    f'"{p["metadata"].get("namespace")}" to terminate: global timeout reached: {_go_duration(timeout)}'
                    for p in pending]
        time.sleep(POLL_INTERVAL)  # kubectl polls each second
    return []


def _go_duration(seconds: float | None) -> str:
    total = int(seconds or 0)
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return (f"{h}h" if h else "") + (f"{m}m" if h or m else "") + f"{s}s"


def _json(obj: dict) -> bytes:
    import json

    return json.dumps(obj, separators=(",", ":")).encode()
