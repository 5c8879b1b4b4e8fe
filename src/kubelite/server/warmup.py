"""The modules a served API's first requests import, imported in the background once it listens.

`kubelite serve` imports what its requests need when the first one needs it, so that it listens
(and answers /readyz) sooner. The first commands against it then paid those imports (handlers,
printers, RBAC, the watch cache: ~60-140 ms on this machine on the first `get`, more on the first
write). Imported on a thread as soon as the server listens, they are in place by the time a
client's first command arrives, or well on the way (a request that needs a module being imported
waits for that import, as it would have done it itself).
"""
from __future__ import annotations

# What `get`, `apply`, `create`, `patch` and `delete` bring in (python -X importtime of a fresh
# serve over those commands); each one's own imports come with it.
MODULES = (
    "kubelite.server.auth.escalation",
    "kubelite.server.auth.rbac",
    "kubelite.server.auth.reviews",
    "kubelite.server.auth.certs",
    "kubelite.server.auth.dersubject",
    "kubelite.server.discovery",
    "kubelite.server.handlers.discovery",
    "kubelite.server.handlers.resources",
    "kubelite.server.handlers.encodedlist",
    "kubelite.server.handlers.encodedtable",
    "kubelite.server.handlers.jsonbody",
    "kubelite.server.handlers.decode",
    "kubelite.server.handlers.pods",
    "kubelite.server.handlers.table",
    "kubelite.server.handlers.watch",
    "kubelite.server.printers.cluster",
    "kubelite.server.printers.workloads",
    "kubelite.server.watchcache",
    "kubelite.server.fieldmanager.options",
    "kubelite.server.admission.qos",
    "kubelite.server.patching",
    "kubelite.server.patchcheck",
    "concurrent.futures.thread",
)


def start() -> None:
    import threading

    threading.Thread(target=_import_all, name="kubelite-warm-up", daemon=True).start()


def _import_all() -> None:
    import gc
    import importlib

    for name in MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the request that needs it reports it
            continue
    gc.freeze()  # as the start's own objects: long-lived, kept out of the collector's walks
