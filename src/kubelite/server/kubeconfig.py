"""Writing a kubeconfig for the local cluster that /usr/bin/kubectl uses unchanged.

The YAML is written here rather than by PyYAML: the document is always the same small shape of
strings, and importing yaml was ~10 ms of every `kubelite serve` start before /readyz.
"""
from __future__ import annotations

import base64
import json
import os
import pathlib
import re

CLUSTER_NAME = "kubelite"
USER_NAME = "kubelite-admin"
CONTEXT_NAME = "kubelite"


def build_kubeconfig(server: str, ca_pem: bytes, token: str, namespace: str | None = None,
                     client_cert: tuple[bytes, bytes] | None = None) -> dict:
    """`client_cert` (certificate PEM, key PEM): the user authenticates with it, as kind's admin
    does, rather than with the token."""
    context: dict = {"cluster": CLUSTER_NAME, "user": USER_NAME}
    user: dict = {"token": token}
    if client_cert is not None:
        user = {"client-certificate-data": base64.b64encode(client_cert[0]).decode("ascii"),
                "client-key-data": base64.b64encode(client_cert[1]).decode("ascii")}
    if namespace:
        context["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": CLUSTER_NAME,
                "cluster": {
                    "server": server,
                    "certificate-authority-data": base64.b64encode(ca_pem).decode("ascii"),
                },
            }
        ],
        "users": [{"name": USER_NAME, "user": user}],
        "contexts": [{"name": CONTEXT_NAME, "context": context}],
        "current-context": CONTEXT_NAME,
        "preferences": {},
    }


def write_kubeconfig(path: str | os.PathLike, server: str, ca_pem: bytes, token: str,
                     client_cert: tuple[bytes, bytes] | None = None) -> pathlib.Path:
    """Write the kubeconfig atomically, readable only by its owner (it holds the credentials)."""
    path = pathlib.Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = to_yaml(build_kubeconfig(server, ca_pem, token, client_cert=client_cert))
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


# A plain scalar that reads back as this very string in YAML 1.1 and 1.2 (PyYAML, Go's yaml):
# starting with a letter (no indicator, number or timestamp), without spaces, quotes or '#', and
# not ending with ':' (a mapping's indicator there).
_PLAIN = re.compile(r"[A-Za-z]([A-Za-z0-9+/=:.\[\]_@-]*[A-Za-z0-9+/=.\[\]_@-])?")
_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def _scalar(value: str) -> str:
    if _PLAIN.fullmatch(value) and value.lower() not in _WORDS:
        return value
    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar


def to_yaml(config: dict) -> str:
    """The kubeconfig `build_kubeconfig` made, as block YAML (what yaml.safe_dump(...,
    default_flow_style=False, sort_keys=False) writes for it): top-level strings, lists of
    {name, <section>: {string: string}} entries, and the empty preferences."""
    lines = []
    for key, value in config.items():
        if isinstance(value, str):
            lines.append(f"{key}: {_scalar(value)}")
        elif isinstance(value, list):
            lines.append(f"{key}:")
            for entry in value:
                first = True
                for field, inner in entry.items():
                    lead = "- " if first else "  "
                    first = False
                    if isinstance(inner, str):
                        lines.append(f"{lead}{field}: {_scalar(inner)}")
                    else:
                        lines.append(f"{lead}{field}:")
                        lines.extend(f"    {k}: {_scalar(v)}" for k, v in inner.items())
        elif value == {}:
            lines.append(f"{key}: {{}}")
        else:
            raise TypeError(f"kubeconfig field {key!r} is not of the shape written here")
    return "\n".join(lines) + "\n"
