"""Validation as kube-apiserver 1.32 performs it (``validate(obj, old=None)``).

Runs on the *defaulted* object (see :mod:`.defaults`), exactly as the real
server validates after defaulting.  Returns a list of causes
``{"reason", "message", "field"}`` in the server's order; feed them to
:func:`kubelite.server.errors.invalid` for the 422 Status.  An empty list
means the object is valid.

Coverage is per kind (see ``_CREATE`` / ``_UPDATE``); kinds without a
validator get the ObjectMeta checks only.  Map-valued fields are visited in
sorted key order (Go's order is random; the server's messages for a single
bad key are identical either way).

The rules live in one module per domain: ``validation_meta`` (ObjectMeta, label
selectors), ``validation_pods``, ``validation_config`` (ConfigMap, Secret),
``validation_workloads``, ``validation_network``, ``validation_storage`` and
``validation_cluster`` (RBAC, PriorityClass, events); this module keeps the
per-kind dispatch table and the entry points.
"""

from __future__ import annotations

from kubelite.server.admission import names as N
from kubelite.server.admission.defaults import group_kind
from kubelite.server.admission.validation_cluster import _event_v1, _priority_class, _role_binding
from kubelite.server.admission.validation_common import (  # noqa: F401 (re-exported)
    MAX_INT32, Causes, _go_label_selector, _go_string_slice,
)
from kubelite.server.admission.validation_config import MAX_CONFIG_DATA_SIZE, _config_map, _secret  # noqa: F401
from kubelite.server.admission.validation_crd import _crd
from kubelite.server.admission.validation_meta import (  # noqa: F401 (re-exported)
    TOTAL_ANNOTATION_SIZE_LIMIT, NameFn, selector_matches, validate_annotations, validate_label_selector,
    validate_labels, validate_object_meta,
)
from kubelite.server.admission.validation_network import _ingress, _ingress_class, _service
from kubelite.server.admission.validation_pods import (  # noqa: F401 (re-exported)
    _pod, _pod_template, validate_pod_spec, validate_pod_template,
)
from kubelite.server.admission.validation_storage import _pvc, _storage_class
from kubelite.server.admission.validation_webhooks import admission_policy, webhook_configuration
from kubelite.server.admission.validation_workloads import (  # noqa: F401 (re-exported)
    _cron_job, _daemon_set, _deployment, _hpa, _job, _replica_set, _replication_controller, _stateful_set,
    job_spec_errors,
)

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Callable

__all__ = ["validate", "validate_create", "validate_update", "name_validator", "TOTAL_ANNOTATION_SIZE_LIMIT"]


# (group, kind) -> (namespaced, name validator, body validator)
_KINDS: dict[tuple[str, str], tuple[bool, NameFn, Callable[[dict], Causes] | None]] = {
    ("", "Pod"): (True, N.name_is_dns_subdomain, _pod),
    ("", "PodTemplate"): (True, N.name_is_dns_subdomain, _pod_template),
    ("", "ReplicationController"): (True, N.name_is_dns_subdomain, _replication_controller),
    ("", "Service"): (True, N.name_is_dns1035_label, _service),
    ("", "ConfigMap"): (True, N.name_is_dns_subdomain, _config_map),
    ("", "Secret"): (True, N.name_is_dns_subdomain, _secret),
    ("", "Namespace"): (False, N.name_is_dns_label, None),
    ("", "ServiceAccount"): (True, N.name_is_dns_subdomain, None),
    ("", "Endpoints"): (True, N.name_is_dns_subdomain, None),
    ("", "PersistentVolumeClaim"): (True, N.name_is_dns_subdomain, _pvc),
    ("", "PersistentVolume"): (False, N.name_is_dns_subdomain, None),
    ("", "LimitRange"): (True, N.name_is_dns_subdomain, None),
    ("", "ResourceQuota"): (True, N.name_is_dns_subdomain, None),
    ("", "Event"): (True, N.name_is_dns_subdomain, None),
    ("", "Node"): (False, N.name_is_dns_subdomain, None),
    ("apps", "Deployment"): (True, N.name_is_dns_subdomain, _deployment),
    ("apps", "ReplicaSet"): (True, N.name_is_dns_subdomain, _replica_set),
    ("apps", "DaemonSet"): (True, N.name_is_dns_subdomain, _daemon_set),
    ("apps", "StatefulSet"): (True, N.name_is_dns_subdomain, _stateful_set),
    ("apps", "ControllerRevision"): (True, N.name_is_dns_subdomain, None),
    ("batch", "Job"): (True, N.name_is_dns_subdomain, _job),
    ("batch", "CronJob"): (True, N.name_is_dns_subdomain, _cron_job),
    ("autoscaling", "HorizontalPodAutoscaler"): (True, N.path_segment_name, _hpa),
    ("networking.k8s.io", "Ingress"): (True, N.name_is_dns_subdomain, _ingress),
    ("networking.k8s.io", "IngressClass"): (False, N.name_is_dns_subdomain, _ingress_class),
    ("networking.k8s.io", "NetworkPolicy"): (True, N.name_is_dns_subdomain, None),
    ("policy", "PodDisruptionBudget"): (True, N.name_is_dns_subdomain, None),
    ("rbac.authorization.k8s.io", "Role"): (True, N.path_segment_name, None),
    ("rbac.authorization.k8s.io", "ClusterRole"): (False, N.path_segment_name, None),
    ("rbac.authorization.k8s.io", "RoleBinding"): (True, N.path_segment_name, _role_binding),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): (False, N.path_segment_name, _role_binding),
    ("scheduling.k8s.io", "PriorityClass"): (False, N.name_is_dns_subdomain, _priority_class),
    ("storage.k8s.io", "StorageClass"): (False, N.name_is_dns_subdomain, _storage_class),
    ("coordination.k8s.io", "Lease"): (True, N.name_is_dns_subdomain, None),
    ("discovery.k8s.io", "EndpointSlice"): (True, N.name_is_dns_subdomain, None),
    ("events.k8s.io", "Event"): (True, N.name_is_dns_subdomain, _event_v1),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (False, N.name_is_dns_subdomain, _crd),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): (False, N.name_is_dns_subdomain,
                                                                         webhook_configuration),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (False, N.name_is_dns_subdomain,
                                                                       webhook_configuration),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): (False, N.name_is_dns_subdomain,
                                                                    admission_policy),
}


def name_validator(group: str, kind: str) -> NameFn:
    """The name-format check kube-apiserver applies to a kind (DNS subdomain if unknown)."""
    return _KINDS.get((group, kind), (True, N.name_is_dns_subdomain, None))[1]


def validate_create(obj: dict, *, namespaced: bool | None = None) -> Causes:
    """Causes for creating ``obj`` (already defaulted)."""
    if not isinstance(obj, dict):
        raise TypeError(f"object must be a mapping, got {type(obj).__name__}")
    gk = group_kind(obj)
    known_namespaced, name_fn, body = _KINDS.get(gk, (True, N.name_is_dns_subdomain, None))
    if namespaced is None:
        namespaced = known_namespaced
    return validate_object_meta(obj.get("metadata"), namespaced, name_fn) + validate_body(obj)


def validate_body(obj: dict) -> Causes:
    """The kind-specific rules (everything but ObjectMeta)."""
    body = _KINDS.get(group_kind(obj), (True, None, None))[2]
    return body(obj) if body is not None else []


def kind_is_namespaced(obj: dict) -> bool:
    """Scope of a built-in kind (unknown kinds are taken as namespaced)."""
    return _KINDS.get(group_kind(obj), (True, None, None))[0]


def validate(obj: dict, old: dict | None = None, *, namespaced: bool | None = None) -> Causes:
    """Validate a create (``old is None``) or an update of ``old`` to ``obj``."""
    if old is None:
        return validate_create(obj, namespaced=namespaced)
    from kubelite.server.admission.immutability import validate_update

    return validate_update(obj, old, namespaced=namespaced)


def validate_update(obj: dict, old: dict, *, namespaced: bool | None = None) -> Causes:
    from kubelite.server.admission.immutability import validate_update as _update

    return _update(obj, old, namespaced=namespaced)
