"""Pieces shared by the generators: object heads and metadata in Go struct order."""
from __future__ import annotations


def object_meta(name: str, namespace: str | None = None, labels: dict | None = None,
                annotations: dict | None = None) -> dict:
    """ObjectMeta as Go marshals a fresh one: empty fields omitted, ``creationTimestamp: null`` kept."""
    meta: dict = {"name": name} if name else {}
    if namespace:
        meta["namespace"] = namespace
    meta["creationTimestamp"] = None
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def head(api_version: str, kind: str, meta: dict) -> dict:
    return {"kind": kind, "apiVersion": api_version, "metadata": meta}


def template_meta(labels: dict | None = None) -> dict:
    meta: dict = {"creationTimestamp": None}
    if labels:
        meta["labels"] = dict(labels)
    return meta


def container(name: str, image: str, command: list[str] | None = None, *, args: list[str] | None = None,
              ports: list | None = None, env: list | None = None, resources: dict | None = None,
              image_pull_policy: str = "", security_context: dict | None = None,
              stdin: bool = False, stdin_once: bool = False, tty: bool = False) -> dict:
    """corev1.Container in struct order; ``resources`` is never omitted (a struct, not a pointer)."""
    c: dict = {"name": name}
    if image:
        c["image"] = image
    if command:
        c["command"] = list(command)
    if args:
        c["args"] = list(args)
    if ports:
        c["ports"] = ports
    if env:
        c["env"] = env
    c["resources"] = resources or {}
    if image_pull_policy:
        c["imagePullPolicy"] = image_pull_policy
    if security_context:
        c["securityContext"] = security_context
    if stdin:
        c["stdin"] = True
    if stdin_once:
        c["stdinOnce"] = True
    if tty:
        c["tty"] = True
    return c


def parse_selector_labels(text: str) -> dict:
    """``a=b,c=d`` as kubectl's generate.ParseLabels reads it."""
    from .errors import ImperativeError

    if not text:
        raise ImperativeError("no label spec passed")
    labels: dict = {}
    for pair in text.split(","):
        parts = pair.split("=")
        if len(parts) != 2:
            raise ImperativeError(f"unexpected label spec: {pair}")
        if not parts[0]:
            raise ImperativeError("unexpected empty label key")
        labels[parts[0]] = parts[1]
    return labels
