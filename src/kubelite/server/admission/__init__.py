"""Admission for the embedded API server: defaulting, validation, generation.

Pure functions on plain dicts (no I/O, no state).  The request path mirrors
kube-apiserver 1.32:

Create::

    obj = defaults.apply_defaults(body)                 # scheme defaults
    obj = plugins.admit_pod(obj, service_account=..., limit_ranges=..., priority_classes=...)  # Pods
    obj = crd.prepare_custom_resource_for_create(obj, crd_object)   # custom resources
    obj["metadata"]["generation"] = generation.initial_generation(obj)  # when not None
    # storage fills uid / creationTimestamp here
    obj = defaults.prepare_for_create(obj, now=timestamp)   # strategy (Job selector needs uid)
    causes = validation.validate(obj)                      # -> errors.invalid(...) when non-empty
    obj = plugins.allocate_cluster_ip(obj, used_ips)       # Services, after validation
    obj = plugins.allocate_node_ports(obj, used_ports)

Update (PUT/PATCH result ``new`` replacing stored ``old``)::

    new = defaults.apply_defaults(new)
    new = defaults.prepare_for_update(new, old)
    causes = validation.validate(new, old)
    new["metadata"]["generation"] = generation.next_generation(old, new, status_subresource=...)

Custom resources are validated with ``crd.validate_custom_resource(obj, crd_object)``
(after ``validation.validate`` for the metadata).  A CRD's status (NamesAccepted/Established) comes from
``crd.crd_initial_status(defaulted_crd, now)``.
"""

from kubelite.server.admission.defaults import apply_defaults, prepare_for_create, prepare_for_update
from kubelite.server.admission.generation import initial_generation, next_generation
from kubelite.server.admission.validation import validate

__all__ = [
    "apply_defaults",
    "prepare_for_create",
    "prepare_for_update",
    "validate",
    "initial_generation",
    "next_generation",
]
