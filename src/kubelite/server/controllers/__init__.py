"""The cluster's controllers: one module each, all run by controllers.manager.

`default_controllers()` is what a Cluster runs, in this order (the manager serves their queues
round-robin).
"""
from __future__ import annotations


def default_controllers() -> list[type]:
    from kubelite.server.controllers.crd import CRDRegistryController
    from kubelite.server.controllers.deployment import DeploymentController
    from kubelite.server.controllers.endpoints import EndpointsController
    from kubelite.server.controllers.endpointslice import EndpointSliceController, EndpointSliceMirroringController
    from kubelite.server.controllers.garbagecollector import GarbageCollector
    from kubelite.server.controllers.job import JobController
    from kubelite.server.controllers.namespace import NamespaceController
    from kubelite.server.controllers.replicaset import ReplicaSetController, ReplicationControllerController
    from kubelite.server.controllers.serviceaccount import RootCAPublisher, ServiceAccountController

    return [CRDRegistryController, JobController, GarbageCollector, NamespaceController, RootCAPublisher,
            ServiceAccountController, DeploymentController, ReplicaSetController, ReplicationControllerController,
            EndpointsController, EndpointSliceController, EndpointSliceMirroringController]
