"""Admission webhook benchmark: what webhooks cost a write.

ConfigMap creates through the in-process API (httpx over the ASGI app) on a SQLite cluster,
as milliseconds per write, with:

    none              no webhook configuration (the cost of looking for one on every write)
    not matching      a validating webhook for secrets (configurations read, nothing called)
    validating        one validating webhook that allows, called over HTTPS on 127.0.0.1
    mutating+valid.   a mutating webhook that adds a label (JSON patch) and a validating one

Usage: python bench/webhooks.py [--smoke] [--writes N]   (--smoke: 30 writes each)
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "server"))

from webhook_support import (  # noqa: E402
    WebhookServer, allow, hook, json_patch, make_certificates, webhook_configuration,
)

ADMISSION = "/apis/admissionregistration.k8s.io/v1"


def answer(path: str, review: dict):
    if path.startswith("/label"):
        return json_patch(review, [{"op": "add", "path": "/metadata/labels", "value": {"bench": "yes"}}])
    return allow(review)


def writes(http, prefix: str, count: int) -> float:
    """Milliseconds per ConfigMap create."""
    start = time.perf_counter()
    for i in range(count):
        done = http.post("/api/v1/namespaces/default/configmaps",
                         json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{prefix}-{i}"}})
        assert done.status_code == 201, done.text
    return (time.perf_counter() - start) / count * 1e3


def main() -> None:
    from kubelite.server.cluster import Cluster

    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--writes", type=int, default=300)
    args = parser.parse_args()
    count = 30 if args.smoke else args.writes
    with tempfile.TemporaryDirectory() as tmp:
        base = pathlib.Path(tmp)
        certs = make_certificates(base / "pki")
        with WebhookServer(certs, answer) as server, \
                Cluster(f"sqlite://{base}/db.sqlite", controllers=False) as cluster, cluster.http_client() as http:
            def configure(kind: str, name: str, entry: dict) -> None:
                resource = kind.lower() + "s"
                body = webhook_configuration(kind, name, [entry])
                assert http.post(f"{ADMISSION}/{resource}", json=body).status_code == 201

            results = [("none", writes(http, "none", count))]
            configure("ValidatingWebhookConfiguration", "secrets",
                      hook("secrets.bench.io", server.url + "/allow", certs["ca_bundle"], resources=("secrets",)))
            results.append(("not matching", writes(http, "unmatched", count)))
            configure("ValidatingWebhookConfiguration", "allow",
                      hook("allow.bench.io", server.url + "/allow", certs["ca_bundle"]))
            results.append(("validating", writes(http, "validated", count)))
            configure("MutatingWebhookConfiguration", "label",
                      hook("label.bench.io", server.url + "/label", certs["ca_bundle"]))
            results.append(("mutating+valid.", writes(http, "mutated", count)))
    print(f"ConfigMap creates, {count} each, SQLite, in-process API")
    for name, ms in results:
        print(f"  {name:<16} {ms:7.2f} ms/write")


if __name__ == "__main__":
    main()
