"""`rollout status --watch`: print the object's rollout status at each change until it is done, as
kubectl's UntilWithSync does (a list, then a watch from its resourceVersion, watched again when the
server ends the stream), within --timeout."""
from __future__ import annotations

import math
import sys
import time

from kubelite.cli import common

TIMED_OUT = "error: timed out waiting for the condition"
# How long one watch request may last when no --timeout bounds it (the server ends it then).
_WATCH_SECONDS = 300


def follow(sess, request, name: str, status, timeout: float | None) -> None:
    """Print `status(obj)` for the object and each change; return when it says done."""
    deadline = None if not timeout else time.monotonic() + timeout
    while True:
        listing = sess.client.list(request.resource, request.namespace, field_selector=f"metadata.name={name}")
        items = listing.get("items") or []
        if items and _show(status, items[0]):
            return
        version = (listing.get("metadata") or {}).get("resourceVersion")
        if _watch(sess, request, name, version, status, deadline):
            return
        if deadline is not None and time.monotonic() >= deadline:
            raise common.CommandError(TIMED_OUT)


def _show(status, obj: dict) -> bool:
    message, done = status(obj)
    sys.stdout.write(message)
    sys.stdout.flush()
    return done


def _watch(sess, request, name: str, version: str | None, status, deadline: float | None) -> bool:
    """True once done; False when the stream ended first."""
    seconds = _WATCH_SECONDS
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise common.CommandError(TIMED_OUT)
        seconds = max(1, math.ceil(left))
    events = sess.client.watch(request.resource, request.namespace, name=name, resource_version=version,
                               params={"timeoutSeconds": str(seconds)}, timeout=seconds + 30)
    for event in events:
        kind = event.get("type")
        if kind in ("ADDED", "MODIFIED"):
            if _show(status, event.get("object") or {}):
                return True
        elif kind == "DELETED":
            raise common.CommandError("error: object has been deleted")
        if deadline is not None and time.monotonic() >= deadline:
            raise common.CommandError(TIMED_OUT)
    return False
