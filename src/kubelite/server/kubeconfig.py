"""Writing a kubeconfig for the local cluster that /usr/bin/kubectl uses unchanged."""
from __future__ import annotations

import base64
import os
import pathlib

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
    import yaml

    path = pathlib.Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(build_kubeconfig(server, ca_pem, token, client_cert=client_cert), default_flow_style=False, sort_keys=False)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return path
