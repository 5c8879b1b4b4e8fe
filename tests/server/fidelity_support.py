"""Objects the API-fidelity tests create (test_scale_patch_kind, test_prometheus_metrics)."""
from __future__ import annotations


def deployment(name: str) -> dict:
    """A one-replica nginx Deployment selecting app=<name>."""
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
