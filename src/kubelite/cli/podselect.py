"""Which pod and container a pod-level command (logs, exec, attach, port-forward) acts on.

As kubectl: `NAME` is a pod; `TYPE/NAME` of a workload or Service means the first of its pods
in kubectl's logging order (scheduled, running, ready, more restarts, older), waiting up to
--pod-running-timeout for one to exist; a container is the one named, else the pod's
`kubectl.kubernetes.io/default-container`, else the first one (with the "Defaulted container"
note on stderr when the pod has others).
"""
from __future__ import annotations

import sys
import time

from kubelite.cli import common
from kubelite.server.podlogs import find_container  # noqa: F401 (the commands' container lookup)

DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"
_PHASE_RANK = {"Running": 0, "Unknown": 1, "Pending": 2}


def all_container_names(pod: dict) -> str:
    spec = pod.get("spec") or {}
    names = [c.get("name") for c in spec.get("containers") or []]
    names += [f"{c.get('name')} (init)" for c in spec.get("initContainers") or []]
    names += [f"{c.get('name')} (ephem)" for c in spec.get("ephemeralContainers") or []]
    return ", ".join(names)


def default_container(pod: dict, quiet: bool = False) -> str:
    """The container meant when none is named (kubectl's notes go to stderr)."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    wanted = (meta.get("annotations") or {}).get(DEFAULT_CONTAINER)
    if wanted:
        if find_container(pod, wanted) is not None:
            return wanted
        print(f'Default container name "{wanted}" not found in pod {meta.get("name")}', file=sys.stderr)
    containers = spec.get("containers") or []
    if not containers:
        raise common.CommandError(f"error: pod {meta.get('name')} does not have any containers")
    first = containers[0].get("name")
    if not quiet and (len(containers) > 1 or spec.get("initContainers") or spec.get("ephemeralContainers")):
        print(f'Defaulted container "{first}" out of: {all_container_names(pod)}', file=sys.stderr, flush=True)
    return first


def logging_order(pod: dict):
    """Sort key of kubectl's ByLogging: scheduled, running, ready (longest first), most restarts,
    oldest; a stable sort keeps the server's order for the rest, as Go's sort of a few pods does."""
    from kubelite.server.clock import parse_time

    status = pod.get("status") or {}
    ready = [c for c in status.get("conditions") or [] if c.get("type") == "Ready" and c.get("status") == "True"]
    ready_since = parse_time(ready[0].get("lastTransitionTime")) if ready else None
    restarts = max([cs.get("restartCount", 0) for cs in status.get("containerStatuses") or []] or [0])
    created = parse_time((pod.get("metadata") or {}).get("creationTimestamp"))
    return (0 if (pod.get("spec") or {}).get("nodeName") else 1, _PHASE_RANK.get(status.get("phase"), 3),
            0 if ready else 1, ready_since if ready_since is not None else float("inf"), -restarts,
            created if created is not None else float("inf"))


def selector_of(obj: dict) -> str:
    """The label selector of a workload or Service (kubectl's SelectorsForObject)."""
    from kubelite.server.printers.formats import InvalidSelector, selector_string

    kind = obj.get("kind")
    spec = obj.get("spec") or {}
    selector = spec.get("selector")
    if kind in ("ReplicationController", "Service"):
        if not selector:
            raise common.CommandError(f"error: cannot get the logs from {_go_type(obj)}: invalid {kind.lower()}: "
                                      f"no selectors, therefore cannot be exposed" if kind == "Service" else
                                      f"error: cannot get the logs from {_go_type(obj)}")
        return ",".join(f"{k}={v}" for k, v in sorted(selector.items()))
    if kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"):
        try:
            return selector_string(selector)
        except InvalidSelector as err:
            raise common.CommandError(f"error: {err}") from None
    raise common.CommandError(f"error: cannot get the logs from {_go_type(obj)}: selector for {_go_type(obj)} "
                              f"not implemented")


def _go_type(obj: dict) -> str:
    group = (obj.get("apiVersion") or "v1").split("/")[0] if "/" in (obj.get("apiVersion") or "") else "v1"
    package = {"v1": "v1", "apps": "v1", "batch": "v1"}.get(group, "unstructured")
    return f"*{package}.{obj.get('kind')}"


def pods_of(sess, namespace: str, selector: str) -> list[dict]:
    pods_r = sess.discovery.resolve("pods")
    items = sess.client.list(pods_r, namespace, label_selector=selector or None).get("items") or []
    for item in items:
        item.setdefault("kind", "Pod")
        item.setdefault("apiVersion", "v1")
    return sorted(items, key=logging_order)


def first_pod(sess, namespace: str, selector: str, timeout: float) -> tuple[dict, int]:
    """The first pod of `selector` in logging order and how many there are, waiting up to
    `timeout` seconds for one to exist."""
    deadline = time.monotonic() + timeout
    while True:
        pods = pods_of(sess, namespace, selector)
        if pods:
            return pods[0], len(pods)
        if time.monotonic() >= deadline:
            raise common.CommandError("error: timed out waiting for the condition")
        time.sleep(0.2)


def resolve_target(sess, arg: str, namespace: str, timeout: float, *, note=True) -> dict:
    """The Pod `arg` (NAME or TYPE/NAME) means."""
    if "/" not in arg:
        pods_r = sess.discovery.resolve("pods")
        pod = sess.client.get(pods_r, arg, namespace)
        return pod
    typed, _, name = arg.partition("/")
    info = sess.discovery.resolve(typed)
    obj = sess.client.get(info, name, namespace if info.namespaced else None)
    if obj.get("kind") == "Pod":
        return obj
    pod, count = first_pod(sess, namespace, selector_of(obj), timeout)
    if count > 1 and note:
        print(f"Found {count} pods, using pod/{pod['metadata']['name']}", file=sys.stderr, flush=True)
    return pod
