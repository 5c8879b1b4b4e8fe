"""What metrics.k8s.io/v1beta1 registers in the API (its group and resources), apart from the
usage rule in server.metrics: a Cluster registers it at every start, and the rule's modules
(fractions, with decimal, and quantities) are loaded only when usage is asked for."""
from __future__ import annotations

GROUP, VERSION = "metrics.k8s.io", "v1beta1"


def api_resources():
    """The group and resources metrics-server registers (read-only, no singular names: its
    storage declares none), for `Registry.add_aggregated`."""
    from kubelite.server.resources import GroupInfo, ResourceInfo

    group = GroupInfo(GROUP, (VERSION,), VERSION)
    infos = [ResourceInfo(group=GROUP, version=VERSION, resource=resource, kind=kind, singular="",
                          namespaced=namespaced, verbs=("get", "list"), aggregated=True)
             for resource, kind, namespaced in (("nodes", "NodeMetrics", False), ("pods", "PodMetrics", True))]
    return group, infos
