"""The cluster's controllers: one module each, all run by controllers.manager.

`default_controllers()` is what a Cluster runs, in this order (the manager serves their queues
round-robin).
"""
from __future__ import annotations


def default_controllers() -> list[type]:
    from kubelite.server.controllers.clusterrole_aggregation import ClusterRoleAggregation
    from kubelite.server.controllers.crd import CRDRegistryController
    from kubelite.server.controllers.cronjob import CronJobController
    from kubelite.server.controllers.csr_signing import CSRSigningController
    from kubelite.server.controllers.daemonset import DaemonSetController
    from kubelite.server.controllers.deployment import DeploymentController
    from kubelite.server.controllers.disruption import DisruptionController
    from kubelite.server.controllers.endpoints import EndpointsController
    from kubelite.server.controllers.endpointslice import EndpointSliceController, EndpointSliceMirroringController
    from kubelite.server.controllers.garbagecollector import GarbageCollector
    from kubelite.server.controllers.hpa import HorizontalPodAutoscalerController
    from kubelite.server.controllers.job import JobController
    from kubelite.server.controllers.kubelet import SimulatedKubelet
    from kubelite.server.controllers.namespace import NamespaceController, SystemNamespaces
    from kubelite.server.controllers.nodes import NodeLifecycle, SimulatedNodes
    from kubelite.server.controllers.replicaset import ReplicaSetController, ReplicationControllerController
    from kubelite.server.controllers.scheduler import Scheduler
    from kubelite.server.controllers.serviceaccount import RootCAPublisher, ServiceAccountController
    from kubelite.server.controllers.serviceaccount_tokens import ServiceAccountTokens
    from kubelite.server.controllers.statefulset import StatefulSetController
    from kubelite.server.controllers.tainteviction import TaintEviction
    from kubelite.server.controllers.ttl import TTLAfterFinishedController

    return [CRDRegistryController, JobController, GarbageCollector, NamespaceController, RootCAPublisher,
            ServiceAccountController, DeploymentController, ReplicaSetController, ReplicationControllerController,
            SimulatedNodes, NodeLifecycle, TaintEviction, Scheduler, SimulatedKubelet, TTLAfterFinishedController, CronJobController,
            EndpointsController, EndpointSliceController, EndpointSliceMirroringController, StatefulSetController, DaemonSetController,
            SystemNamespaces, DisruptionController, ClusterRoleAggregation, ServiceAccountTokens,
            HorizontalPodAutoscalerController, CSRSigningController]


# The API server's own followers: they are not kube-controller-manager controllers and run
# whatever `--controllers` says.
_ALWAYS = ("crd-registry",)


def select_controllers(spec: str) -> list[type]:
    """kube-controller-manager's `--controllers`: a comma list where `*` is every controller,
    `NAME` enables one and `-NAME` disables one (`-*` or an empty list: none)."""
    available = default_controllers()
    names = {cls.name for cls in available}
    words = [w.strip() for w in spec.split(",") if w.strip()]
    unknown = [w.lstrip("-") for w in words if w.lstrip("-") not in names and w.lstrip("-") != "*"]
    if unknown:
        raise ValueError(f'"{unknown[0]}" is not in the list of known controllers: '
                         f'{", ".join(sorted(names - set(_ALWAYS)))}')

    def enabled(name: str) -> bool:
        if name in _ALWAYS or name in words:
            return True
        if f"-{name}" in words:
            return False
        return "*" in words and "-*" not in words

    return [cls for cls in available if enabled(cls.name)]
