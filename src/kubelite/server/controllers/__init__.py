"""The cluster's controllers: one module each, all run by controllers.manager.

`default_controllers()` is what a Cluster runs, in this order (the manager serves their queues
round-robin).
"""
from __future__ import annotations


def default_controllers() -> list[type]:
    from kubelite.server.controllers.clusterrole_aggregation import ClusterRoleAggregation
    from kubelite.server.controllers.crd import CRDRegistryController
    from kubelite.server.controllers.cronjob import CronJobController
    from kubelite.server.controllers.daemonset import DaemonSetController
    from kubelite.server.controllers.deployment import DeploymentController
    from kubelite.server.controllers.disruption import DisruptionController
    from kubelite.server.controllers.endpoints import EndpointsController
    from kubelite.server.controllers.endpointslice import EndpointSliceController, EndpointSliceMirroringController
    from kubelite.server.controllers.garbagecollector import GarbageCollector
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
            SystemNamespaces, DisruptionController, ClusterRoleAggregation, ServiceAccountTokens]
