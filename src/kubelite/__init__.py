"""kubelite: kubectl's object management in Python, with a Kubernetes API server built in.

    import kubelite

    with kubelite.Cluster() as kube:                 # in memory; kubelite.Cluster("state.db") for SQLite
        results = kube.apply("manifests/")           # paths, kustomize=True dirs, YAML text, dicts
        print(kube.diff("manifests/"))               # kubectl diff's text; "" when nothing differs
        kube.wait("deployment/web", "condition=Available", timeout=5)
        dep = kube.get("deployments", "web")         # a dict; kubelite.NotFound if absent
        pods = kube.list("pods", selector="app=web")
        with kube.serve() as kubeconfig:             # HTTPS on a free loopback port
            ...                                      # kubectl --kubeconfig <kubeconfig> get pods

    remote = kubelite.connect()                      # a real cluster from the kubeconfig
    objs = kubelite.kustomize("overlays/prod")       # kubectl kustomize, as a list of dicts

Names:
    Cluster      an in-process cluster (API server, controllers, nodes); also settle(), advance(),
                 snapshot()/restore(), serve()
    Client       the methods any cluster has (apply, diff, get, list, create, patch, replace,
                 delete, watch, wait, logs); what connect() returns
    connect      a Client for the cluster a kubeconfig names
    kustomize    build a kustomization directory
    Applied      one object of apply's result: .action ("created", "configured", "unchanged",
                 "pruned", ...), .object (the live object), .source
    Snapshot     what Cluster.snapshot() returns
    errors       KubeliteError > APIError > NotFound, AlreadyExists, Conflict, Invalid, BadRequest,
                 Forbidden, Unauthorized; ApplyError, WaitTimeout, NotSupported; ManifestError

Everything loads on first use, so `import kubelite` (and the kubelite command) stays fast.
"""
from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing would cost every kubelite command

__version__ = "0.1.0"

# The Kubernetes minor version whose API kubelite speaks by default (matches kubectl 1.32).
KUBERNETES_VERSION = "1.32"

# public name -> module that defines it (PEP 562 lazy attributes)
_EXPORTS = {
    "Cluster": "kubelite.api.cluster",
    "Snapshot": "kubelite.api.cluster",
    "connect": "kubelite.api.cluster",
    "Client": "kubelite.api.client",
    "Applied": "kubelite.api.client",
    "kustomize": "",  # the kubelite.kustomize package, which is callable: kustomize(path) -> objects
    "KubeliteError": "kubelite.api.errors",
    "APIError": "kubelite.api.errors",
    "NotFound": "kubelite.api.errors",
    "AlreadyExists": "kubelite.api.errors",
    "Conflict": "kubelite.api.errors",
    "Invalid": "kubelite.api.errors",
    "BadRequest": "kubelite.api.errors",
    "Forbidden": "kubelite.api.errors",
    "Unauthorized": "kubelite.api.errors",
    "ApplyError": "kubelite.api.errors",
    "WaitTimeout": "kubelite.api.errors",
    "NotSupported": "kubelite.api.errors",
    "ManifestError": "kubelite.api.errors",
}

__all__ = ["KUBERNETES_VERSION", "__version__", *sorted(_EXPORTS)]

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time these load on first use
    from kubelite.api.client import Applied, Client
    from kubelite.api.cluster import Cluster, Snapshot, connect
    from kubelite.api.errors import (APIError, AlreadyExists, ApplyError, BadRequest, Conflict, Forbidden,
                                     Invalid, KubeliteError, ManifestError, NotFound, NotSupported,
                                     Unauthorized, WaitTimeout)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kubelite' has no attribute {name!r}")
    import importlib

    value = importlib.import_module(f"kubelite.{name}") if not module else getattr(importlib.import_module(module),
                                                                                    name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
