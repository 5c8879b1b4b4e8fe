"""Defaulting as kube-apiserver 1.32 performs it on create and update.

Three stages, matching where the real server does the work:

* :func:`apply_defaults` — the scheme defaults (``SetDefaults_*``) plus the
  fields Go always serialises (``resources: {}``, template
  ``creationTimestamp: null``, ``status: {}``...).  Runs on every decoded
  body, create or update.
* :func:`prepare_for_create` / :func:`prepare_for_update` — the registry
  strategies: status reset/preserved, namespace label and finalizer, Secret
  ``stringData`` folding, Job selector (needs ``metadata.uid`` already set),
  DaemonSet template generation, PV/PVC protection finalizers.
* Admission plugins that need cluster state live in :mod:`.plugins`.

Every function takes a plain dict and returns a new dict; inputs are never
mutated.  Server-generated metadata (uid, resourceVersion, creationTimestamp,
managedFields) is the storage layer's job; ``generation`` rules are in
:mod:`.generation`.
"""

from __future__ import annotations

import base64

from kubelite.jsoncopy import clone
from kubelite.quantity import canonical_quantity, QuantityError

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["apply_defaults", "prepare_for_create", "prepare_for_update", "group_kind", "image_pull_policy"]

MAX_INT32 = 2**31 - 1


def group_kind(obj: dict) -> tuple[str, str]:
    """(group, kind) of an object from its apiVersion/kind."""
    api_version = obj.get("apiVersion") or ""
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return group, obj.get("kind") or ""


def _d(parent: dict, key: str) -> dict:
    """The dict at parent[key], created when missing or null."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def _dicts(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _default(parent: dict, key: str, value: Any) -> None:
    if parent.get(key) is None:
        parent[key] = value


# --- pod spec ----------------------------------------------------------------


def image_pull_policy(image: str) -> str:
    """Always for ``:latest`` or untagged images, IfNotPresent otherwise."""
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.split(":", 1)[1] if ":" in last else ""
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def _probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    _handler(probe)
    if isinstance(probe.get("grpc"), dict):
        _default(probe["grpc"], "service", "")
    _default(probe, "timeoutSeconds", 1)
    _default(probe, "periodSeconds", 10)
    _default(probe, "successThreshold", 1)
    _default(probe, "failureThreshold", 3)


def _handler(handler: Any) -> None:
    if isinstance(handler, dict) and isinstance(handler.get("httpGet"), dict):
        _default(handler["httpGet"], "scheme", "HTTP")


def _field_ref(holder: Any) -> None:
    if isinstance(holder, dict) and isinstance(holder.get("fieldRef"), dict):
        _default(holder["fieldRef"], "apiVersion", "v1")


def _resource_field_ref(holder: Any) -> None:
    if isinstance(holder, dict) and isinstance(holder.get("resourceFieldRef"), dict):
        _default(holder["resourceFieldRef"], "divisor", "0")


def _canonical_resource_list(resources: Any) -> None:
    if not isinstance(resources, dict):
        return
    for name, value in list(resources.items()):
        try:
            resources[name] = canonical_quantity(value)
        except QuantityError:
            pass  # left for validation/decoding to report


def _container(container: dict) -> None:
    for port in _dicts(container.get("ports")):
        _default(port, "protocol", "TCP")
    for env in _dicts(container.get("env")):
        value_from = env.get("valueFrom")
        _field_ref(value_from)
        _resource_field_ref(value_from)
    resources = container.get("resources")
    if not isinstance(resources, dict):
        container["resources"] = resources = {}
    for key in ("limits", "requests"):
        _canonical_resource_list(resources.get(key))
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(container.get(key))
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        _handler(lifecycle.get("postStart"))
        _handler(lifecycle.get("preStop"))
    _default(container, "terminationMessagePath", "/dev/termination-log")
    _default(container, "terminationMessagePolicy", "File")
    # An image that does not parse (or is missing) counts as tagged.
    image = container.get("image")
    _default(container, "imagePullPolicy", image_pull_policy(image) if image else "IfNotPresent")


def _volume(volume: dict) -> None:
    for source in ("configMap", "secret", "downwardAPI", "projected"):
        if isinstance(volume.get(source), dict):
            _default(volume[source], "defaultMode", 420)
    if isinstance(volume.get("hostPath"), dict):
        _default(volume["hostPath"], "type", "")
    if isinstance(volume.get("downwardAPI"), dict):
        for item in _dicts(volume["downwardAPI"].get("items")):
            _field_ref(item)
            _resource_field_ref(item)
    if isinstance(volume.get("projected"), dict):
        for source in _dicts(volume["projected"].get("sources")):
            if isinstance(source.get("serviceAccountToken"), dict):
                _default(source["serviceAccountToken"], "expirationSeconds", 3600)
            if isinstance(source.get("downwardAPI"), dict):
                for item in _dicts(source["downwardAPI"].get("items")):
                    _field_ref(item)
                    _resource_field_ref(item)
    if isinstance(volume.get("iscsi"), dict):
        _default(volume["iscsi"], "iscsiInterface", "default")
    if isinstance(volume.get("rbd"), dict):
        rbd = volume["rbd"]
        _default(rbd, "pool", "rbd")
        _default(rbd, "user", "admin")
        _default(rbd, "keyring", "/etc/ceph/keyring")
    if isinstance(volume.get("azureDisk"), dict):
        disk = volume["azureDisk"]
        _default(disk, "cachingMode", "ReadWrite")
        _default(disk, "fsType", "ext4")
        _default(disk, "readOnly", False)
        _default(disk, "kind", "Shared")
    ephemeral = volume.get("ephemeral")
    if isinstance(ephemeral, dict) and isinstance(ephemeral.get("volumeClaimTemplate"), dict):
        template = ephemeral["volumeClaimTemplate"]
        _pvc_spec(_d(template, "spec"))
        _template_meta(template)


def _pod_spec(spec: dict) -> None:
    _default(spec, "dnsPolicy", "ClusterFirst")
    _default(spec, "restartPolicy", "Always")
    _default(spec, "terminationGracePeriodSeconds", 30)
    _default(spec, "securityContext", {})
    _default(spec, "schedulerName", "default-scheduler")
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in _dicts(spec.get(key)):
            _container(container)
    for volume in _dicts(spec.get("volumes")):
        _volume(volume)
    # v1 carries the deprecated alias serviceAccount; conversion keeps them equal.
    if spec.get("serviceAccountName"):
        spec["serviceAccount"] = spec["serviceAccountName"]
    elif spec.get("serviceAccount"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    _canonical_resource_list(spec.get("overhead"))


def _template_meta(template: dict) -> None:
    meta = _d(template, "metadata")
    meta.setdefault("creationTimestamp", None)


def _pod_template(template: Any) -> None:
    if not isinstance(template, dict):
        return
    _template_meta(template)
    _pod_spec(_d(template, "spec"))


# --- per kind ----------------------------------------------------------------


def _pod(obj: dict) -> None:
    # Condition times are plain (non-pointer) timestamps: unset ones are written as null.
    for condition in _dicts((obj.get("status") or {}).get("conditions")):
        condition.setdefault("lastProbeTime", None)
        condition.setdefault("lastTransitionTime", None)
    spec = _d(obj, "spec")
    _pod_spec(spec)
    _default(spec, "enableServiceLinks", True)
    # hostNetwork pods publish container ports on the host (Pods only; 1.32
    # no longer does this for pod templates).
    if spec.get("hostNetwork"):
        for key in ("initContainers", "containers"):
            for container in _dicts(spec.get(key)):
                for port in _dicts(container.get("ports")):
                    if port.get("containerPort") is not None:
                        _default(port, "hostPort", port["containerPort"])
    # Requests default to limits for every resource that has a limit.
    for key in ("initContainers", "containers"):
        for container in _dicts(spec.get(key)):
            resources = container.get("resources") or {}
            limits = resources.get("limits")
            if isinstance(limits, dict) and limits:
                requests = resources.setdefault("requests", {})
                for name, value in limits.items():
                    requests.setdefault(name, value)


def _pod_template_kind(obj: dict) -> None:
    _pod_template(_d(obj, "template"))


def _replication_controller(obj: dict) -> None:
    spec = _d(obj, "spec")
    template = spec.get("template")
    labels = (template or {}).get("metadata", {}).get("labels") if isinstance(template, dict) else None
    if labels:
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        meta = _d(obj, "metadata")
        if not meta.get("labels"):
            meta["labels"] = dict(labels)
    _default(spec, "replicas", 1)
    _pod_template(template)


def _deployment(obj: dict) -> None:
    spec = _d(obj, "spec")
    _default(spec, "replicas", 1)
    strategy = _d(spec, "strategy")
    _default(strategy, "type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = _d(strategy, "rollingUpdate")
        _default(rolling, "maxUnavailable", "25%")
        _default(rolling, "maxSurge", "25%")
    _default(spec, "revisionHistoryLimit", 10)
    _default(spec, "progressDeadlineSeconds", 600)
    _pod_template(spec.get("template"))


def _replica_set(obj: dict) -> None:
    spec = _d(obj, "spec")
    _default(spec, "replicas", 1)
    _pod_template(spec.get("template"))


def _daemon_set(obj: dict) -> None:
    spec = _d(obj, "spec")
    strategy = _d(spec, "updateStrategy")
    _default(strategy, "type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = _d(strategy, "rollingUpdate")
        _default(rolling, "maxUnavailable", 1)
        _default(rolling, "maxSurge", 0)
    _default(spec, "revisionHistoryLimit", 10)
    _pod_template(spec.get("template"))


def _stateful_set(obj: dict) -> None:
    spec = _d(obj, "spec")
    _default(spec, "replicas", 1)
    _pod_template(spec.get("template"))
    spec.setdefault("serviceName", "")
    _default(spec, "podManagementPolicy", "OrderedReady")
    strategy = _d(spec, "updateStrategy")
    _default(strategy, "type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        _default(_d(strategy, "rollingUpdate"), "partition", 0)
    _default(spec, "revisionHistoryLimit", 10)
    retention = _d(spec, "persistentVolumeClaimRetentionPolicy")
    _default(retention, "whenDeleted", "Retain")
    _default(retention, "whenScaled", "Retain")
    for claim in _dicts(spec.get("volumeClaimTemplates")):
        _default(claim, "apiVersion", "v1")
        _default(claim, "kind", "PersistentVolumeClaim")
        _template_meta(claim)
        _pvc_spec(_d(claim, "spec"))
        _default(claim, "status", {"phase": "Pending"})
        if isinstance(claim.get("status"), dict):
            _default(claim["status"], "phase", "Pending")


def _job_spec_template_only(spec: dict) -> None:
    template = spec.get("template")
    _pod_template(template)


def _job(obj: dict) -> None:
    spec = _d(obj, "spec")
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    _default(spec, "parallelism", 1)
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    _default(spec, "completionMode", "NonIndexed")
    _default(spec, "suspend", False)
    failure_policy = spec.get("podFailurePolicy")
    if isinstance(failure_policy, dict):
        for rule in _dicts(failure_policy.get("rules")):
            for condition in _dicts(rule.get("onPodConditions")):
                _default(condition, "status", "True")
    _default(spec, "podReplacementPolicy", "Failed" if failure_policy else "TerminatingOrFailed")
    _job_spec_template_only(spec)


def _cron_job(obj: dict) -> None:
    spec = _d(obj, "spec")
    _default(spec, "concurrencyPolicy", "Allow")
    _default(spec, "suspend", False)
    _default(spec, "successfulJobsHistoryLimit", 3)
    _default(spec, "failedJobsHistoryLimit", 1)
    job_template = _d(spec, "jobTemplate")
    _template_meta(job_template)
    _job_spec_template_only(_d(job_template, "spec"))


def _service(obj: dict) -> None:
    spec = _d(obj, "spec")
    _default(spec, "type", "ClusterIP")
    _default(spec, "sessionAffinity", "None")
    svc_type = spec["type"]
    for port in _dicts(spec.get("ports")):
        _default(port, "protocol", "TCP")
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port")
    if spec["sessionAffinity"] == "ClientIP":
        client_ip = _d(_d(spec, "sessionAffinityConfig"), "clientIP")
        _default(client_ip, "timeoutSeconds", 10800)
    if svc_type in ("NodePort", "LoadBalancer"):
        _default(spec, "externalTrafficPolicy", "Cluster")
    if svc_type == "LoadBalancer":
        _default(spec, "allocateLoadBalancerNodePorts", True)
    if svc_type != "ExternalName":
        _default(spec, "internalTrafficPolicy", "Cluster")
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]
    if svc_type != "ExternalName" and spec.get("clusterIP") == "None":
        # Headless services get their IP families here; others at allocation.
        _default(spec, "ipFamilies", ["IPv4"])
        _default(spec, "ipFamilyPolicy", "SingleStack")
    _default(obj, "status", {})
    _default(obj["status"], "loadBalancer", {})
    for ingress in _dicts(obj["status"]["loadBalancer"].get("ingress")):
        if ingress.get("ip"):
            _default(ingress, "ipMode", "VIP")


def _endpoints(obj: dict) -> None:
    for subset in _dicts(obj.get("subsets")):
        for port in _dicts(subset.get("ports")):
            _default(port, "protocol", "TCP")


def _endpoint_slice(obj: dict) -> None:
    if not obj.get("endpoints"):
        obj["endpoints"] = None
    if not obj.get("ports"):
        obj["ports"] = None
    for port in _dicts(obj.get("ports")):
        _default(port, "protocol", "TCP")


def _network_policy(obj: dict) -> None:
    spec = _d(obj, "spec")
    for direction in ("ingress", "egress"):
        for rule in _dicts(spec.get(direction)):
            for port in _dicts(rule.get("ports")):
                _default(port, "protocol", "TCP")
    if not spec.get("policyTypes"):
        types = ["Ingress"]
        if spec.get("egress"):
            types.append("Egress")
        spec["policyTypes"] = types


def _secret(obj: dict) -> None:
    _default(obj, "type", "Opaque")


def _pvc_spec(spec: dict) -> None:
    _default(spec, "volumeMode", "Filesystem")
    for key in ("requests", "limits"):
        _canonical_resource_list((spec.get("resources") or {}).get(key))
    source = spec.get("dataSource")
    if isinstance(source, dict) and spec.get("dataSourceRef") is None:
        spec["dataSourceRef"] = dict(source)
    ref = spec.get("dataSourceRef")
    if isinstance(ref, dict) and spec.get("dataSource") is None and not ref.get("namespace"):
        spec["dataSource"] = {k: v for k, v in ref.items() if k in ("apiGroup", "kind", "name")}


def _pvc(obj: dict) -> None:
    _pvc_spec(_d(obj, "spec"))


def _pv(obj: dict) -> None:
    spec = _d(obj, "spec")
    _default(spec, "persistentVolumeReclaimPolicy", "Retain")
    _default(spec, "volumeMode", "Filesystem")
    _canonical_resource_list(spec.get("capacity"))
    if isinstance(spec.get("hostPath"), dict):
        _default(spec["hostPath"], "type", "")
    for source, field, value in (("iscsi", "iscsiInterface", "default"), ("rbd", "pool", "rbd")):
        if isinstance(spec.get(source), dict):
            _default(spec[source], field, value)


def _namespace(obj: dict) -> None:
    pass  # label/finalizer/phase are strategy work, see prepare_for_create


def _hpa(obj: dict) -> None:
    spec = _d(obj, "spec")
    _default(spec, "minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
            }
        ]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        up = _d(behavior, "scaleUp")
        _default(up, "stabilizationWindowSeconds", 0)
        _default(up, "selectPolicy", "Max")
        _default(
            up,
            "policies",
            [
                {"type": "Percent", "value": 100, "periodSeconds": 15},
                {"type": "Pods", "value": 4, "periodSeconds": 15},
            ],
        )
        down = _d(behavior, "scaleDown")
        _default(down, "selectPolicy", "Max")
        _default(down, "policies", [{"type": "Percent", "value": 100, "periodSeconds": 15}])


def _limit_range(obj: dict) -> None:
    for item in _dicts(_d(obj, "spec").get("limits")):
        for key in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            _canonical_resource_list(item.get(key))
        if item.get("type") != "Container":
            continue
        max_ = item.get("max") or {}
        default = item.get("default")
        if max_:
            default = item.setdefault("default", {})
            for name, value in max_.items():
                default.setdefault(name, value)
        min_ = item.get("min") or {}
        if default or min_:
            request = item.setdefault("defaultRequest", {})
            for name, value in (default or {}).items():
                request.setdefault(name, value)
            for name, value in min_.items():
                request.setdefault(name, value)


def _resource_quota(obj: dict) -> None:
    spec = _d(obj, "spec")
    _canonical_resource_list(spec.get("hard"))


def _lease(obj: dict) -> None:
    _d(obj, "spec")


def _storage_class(obj: dict) -> None:
    _default(obj, "reclaimPolicy", "Delete")
    _default(obj, "volumeBindingMode", "Immediate")


def _priority_class(obj: dict) -> None:
    _default(obj, "preemptionPolicy", "PreemptLowerPriority")
    if obj.get("globalDefault") is False:
        del obj["globalDefault"]  # omitempty bool


def _rules_null(obj: dict) -> None:
    if not obj.get("rules"):
        obj["rules"] = None


def _binding_subjects(obj: dict) -> None:
    _default(_d(obj, "roleRef"), "apiGroup", "rbac.authorization.k8s.io")
    for subject in _dicts(obj.get("subjects")):
        if subject.get("kind") in ("User", "Group"):
            _default(subject, "apiGroup", "rbac.authorization.k8s.io")


def _event_v1(obj: dict) -> None:
    obj.setdefault("deprecatedSource", {})
    obj.setdefault("deprecatedFirstTimestamp", None)
    obj.setdefault("deprecatedLastTimestamp", None)


def _crd(obj: dict) -> None:
    spec = _d(obj, "spec")
    names = _d(spec, "names")
    if names.get("kind"):
        _default(names, "singular", names["kind"].lower())
        _default(names, "listKind", names["kind"] + "List")
    _default(_d(spec, "conversion"), "strategy", "None")
    conversion = spec["conversion"]
    if conversion.get("strategy") == "Webhook" and isinstance(conversion.get("webhook"), dict):
        client = conversion["webhook"].get("clientConfig")
        if isinstance(client, dict) and isinstance(client.get("service"), dict):
            _default(client["service"], "port", 443)


def default_webhook(hook: dict, mutating: bool) -> None:
    """admissionregistration/v1 SetDefaults_ValidatingWebhook / _MutatingWebhook / _Rule / _ServiceReference."""
    for key, value in (("failurePolicy", "Fail"), ("matchPolicy", "Equivalent"), ("namespaceSelector", {}),
                       ("objectSelector", {}), ("timeoutSeconds", 10)):
        _default(hook, key, value)
    if mutating:
        _default(hook, "reinvocationPolicy", "Never")
    for rule in _dicts(hook.get("rules")):
        _default(rule, "scope", "*")
    client = hook.get("clientConfig")
    if isinstance(client, dict) and isinstance(client.get("service"), dict):
        _default(client["service"], "port", 443)


def _webhook_configuration(obj: dict) -> None:
    mutating = obj.get("kind") == "MutatingWebhookConfiguration"
    for hook in _dicts(obj.get("webhooks")):
        default_webhook(hook, mutating)


_KIND_DEFAULTS: dict[tuple[str, str], Callable[[dict], None]] = {
    ("", "Pod"): _pod,
    ("", "PodTemplate"): _pod_template_kind,
    ("", "ReplicationController"): _replication_controller,
    ("", "Service"): _service,
    ("", "Endpoints"): _endpoints,
    ("", "Secret"): _secret,
    ("", "PersistentVolumeClaim"): _pvc,
    ("", "PersistentVolume"): _pv,
    ("", "Namespace"): _namespace,
    ("", "LimitRange"): _limit_range,
    ("", "ResourceQuota"): _resource_quota,
    ("apps", "Deployment"): _deployment,
    ("apps", "ReplicaSet"): _replica_set,
    ("apps", "DaemonSet"): _daemon_set,
    ("apps", "StatefulSet"): _stateful_set,
    ("batch", "Job"): _job,
    ("batch", "CronJob"): _cron_job,
    ("autoscaling", "HorizontalPodAutoscaler"): _hpa,
    ("networking.k8s.io", "NetworkPolicy"): _network_policy,
    ("discovery.k8s.io", "EndpointSlice"): _endpoint_slice,
    ("coordination.k8s.io", "Lease"): _lease,
    ("storage.k8s.io", "StorageClass"): _storage_class,
    ("scheduling.k8s.io", "PriorityClass"): _priority_class,
    ("rbac.authorization.k8s.io", "Role"): _rules_null,
    ("rbac.authorization.k8s.io", "ClusterRole"): _rules_null,
    ("rbac.authorization.k8s.io", "RoleBinding"): _binding_subjects,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _binding_subjects,
    ("events.k8s.io", "Event"): _event_v1,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _crd,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): _webhook_configuration,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): _webhook_configuration,
}


def apply_defaults(obj: dict, copy: bool = True) -> dict:
    """Return a copy of ``obj`` with kube-apiserver's scheme defaults applied (copy=False:
    ``obj`` itself, defaulted in place, for a caller whose private copy it is).

    Unknown kinds (custom resources included) come back unchanged; schema
    defaults of custom resources are :func:`kubelite.server.admission.crd_defaults`.
    """
    if not isinstance(obj, dict):
        raise TypeError(f"object must be a mapping, got {type(obj).__name__}")
    out = clone(obj) if copy else obj
    handler = _KIND_DEFAULTS.get(group_kind(out))
    if handler is not None:
        handler(out)
    return out


# --- strategies --------------------------------------------------------------

# Kinds whose create resets status to what the server shows for a new object.
_INITIAL_STATUS: dict[tuple[str, str], Callable[[dict], Any]] = {
    ("apps", "Deployment"): lambda o: {},
    ("apps", "ReplicaSet"): lambda o: {"replicas": 0},
    ("", "ReplicationController"): lambda o: {"replicas": 0},
    ("apps", "StatefulSet"): lambda o: {"replicas": 0, "availableReplicas": 0},
    ("apps", "DaemonSet"): lambda o: {
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 0,
        "numberReady": 0,
    },
    ("batch", "Job"): lambda o: {},
    ("batch", "CronJob"): lambda o: {},
    ("autoscaling", "HorizontalPodAutoscaler"): lambda o: {"desiredReplicas": 0, "currentMetrics": None},
    ("networking.k8s.io", "Ingress"): lambda o: {"loadBalancer": {}},
    ("", "Service"): lambda o: {"loadBalancer": {}},
    ("policy", "PodDisruptionBudget"): lambda o: {
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    },
    ("", "PersistentVolumeClaim"): lambda o: {"phase": "Pending"},
    ("", "ResourceQuota"): lambda o: {},
    ("", "Namespace"): lambda o: {"phase": "Active"},
}


def _add_finalizer(obj: dict, name: str) -> None:
    finalizers = _d(obj, "metadata").setdefault("finalizers", [])
    if name not in finalizers:
        finalizers.append(name)


def _fold_string_data(obj: dict) -> None:
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = obj.get("data")
        if not isinstance(data, dict):
            data = obj["data"] = {}
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()


def _job_selector(obj: dict) -> None:
    spec = _d(obj, "spec")
    if spec.get("manualSelector"):
        return
    spec.setdefault("manualSelector", False)
    uid = (obj.get("metadata") or {}).get("uid")
    name = (obj.get("metadata") or {}).get("name", "")
    if not uid:
        return
    template_meta = _d(_d(spec, "template"), "metadata")
    labels = template_meta.get("labels")
    if not isinstance(labels, dict):
        labels = template_meta["labels"] = {}
    generated = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }
    for key, value in generated.items():
        labels.setdefault(key, value)
    if not spec.get("selector"):
        spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    meta = _d(obj, "metadata")
    if not meta.get("labels"):
        meta["labels"] = dict(labels)


def prepare_for_create(obj: dict, *, now: str | None = None) -> dict:
    """Registry-strategy work on create; returns a new dict.

    Call after :func:`apply_defaults` and after the storage layer filled
    ``metadata.uid`` (Jobs derive their selector from it).  ``now`` is the
    RFC 3339 timestamp for fields such as a PV's ``lastPhaseTransitionTime``.
    """
    return prepare_own_for_create(clone(obj), now=now)


def prepare_own_for_create(out: dict, *, now: str | None = None) -> dict:
    """:func:`prepare_for_create` of an object the caller gives up: changed in place, returned."""
    gk = group_kind(out)
    initial = _INITIAL_STATUS.get(gk)
    if initial is not None:
        out["status"] = initial(out)
    group, kind = gk
    meta = _d(out, "metadata")
    if gk == ("", "Namespace"):
        labels = meta.get("labels")
        if not isinstance(labels, dict):
            labels = meta["labels"] = {}
        labels["kubernetes.io/metadata.name"] = meta.get("name", "")
        finalizers = _d(out, "spec").setdefault("finalizers", [])
        if "kubernetes" not in finalizers:
            finalizers.append("kubernetes")
    elif gk == ("", "Secret"):
        _fold_string_data(out)
    elif gk == ("apps", "DaemonSet"):
        annotations = meta.get("annotations")
        if not isinstance(annotations, dict):
            annotations = meta["annotations"] = {}
        annotations["deprecated.daemonset.template.generation"] = "1"
    elif gk == ("batch", "Job"):
        _job_selector(out)
    elif gk == ("", "PersistentVolume"):
        _add_finalizer(out, "kubernetes.io/pv-protection")
        status = {"phase": "Pending"}
        if now:
            status["lastPhaseTransitionTime"] = now
        out["status"] = status
    elif gk == ("", "PersistentVolumeClaim"):
        _add_finalizer(out, "kubernetes.io/pvc-protection")
    elif gk == ("", "Pod"):
        from kubelite.server.admission.qos import pod_qos_class

        out["status"] = {"phase": "Pending", "qosClass": pod_qos_class(out)}
    elif gk == ("", "Service"):
        if out.get("spec", {}).get("type") == "ExternalName":
            out["status"] = {"loadBalancer": {}}
    return out


# Kinds whose status cannot be changed through the main resource.
STATUS_SUBRESOURCE_KINDS = frozenset(_INITIAL_STATUS) | {("", "Pod"), ("", "PersistentVolume")}


def _keep_system_metadata(new: dict, old: dict) -> None:
    """Clients cannot change these on update; kube-apiserver silently restores them."""
    meta, old_meta = _d(new, "metadata"), old.get("metadata") or {}
    for key in ("creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
        if key in old_meta:
            meta[key] = old_meta[key]
        else:
            meta.pop(key, None)
    if not meta.get("uid") and old_meta.get("uid"):
        meta["uid"] = old_meta["uid"]


_EXTERNAL_NAME_DROPS = (
    "clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy",
    "externalTrafficPolicy", "healthCheckNodePort", "allocateLoadBalancerNodePorts", "loadBalancerClass",
)


def _keep_allocations(new: dict, old: dict) -> None:
    """Services keep their allocated IPs/ports when an update omits them; a
    switch to ExternalName releases them instead."""
    spec, old_spec = _d(new, "spec"), old.get("spec") or {}
    if spec.get("type") == "ExternalName":
        for key in _EXTERNAL_NAME_DROPS:
            spec.pop(key, None)
        for port in _dicts(spec.get("ports")):
            port.pop("nodePort", None)
        return
    if not spec.get("clusterIP") and not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
        spec["clusterIP"] = old_spec.get("clusterIP")
        spec["clusterIPs"] = list(old_spec["clusterIPs"])
        for key in ("ipFamilies", "ipFamilyPolicy"):
            if key not in spec and key in old_spec:
                spec[key] = clone(old_spec[key])
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        old_ports = {(p.get("port"), p.get("protocol")): p.get("nodePort") for p in _dicts(old_spec.get("ports"))}
        for port in _dicts(spec.get("ports")):
            previous = old_ports.get((port.get("port"), port.get("protocol")))
            if not port.get("nodePort") and previous:
                port["nodePort"] = previous
        if (
            spec.get("type") == "LoadBalancer"
            and spec.get("externalTrafficPolicy") == "Local"
            and not spec.get("healthCheckNodePort")
            and old_spec.get("healthCheckNodePort")
        ):
            spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]


def prepare_for_update(new: dict, old: dict) -> dict:
    """Registry-strategy work on update (main resource); returns a new dict.

    System metadata (creationTimestamp, deletion fields, generation — bump
    it afterwards with :func:`.generation.next_generation`) comes from
    ``old``; status is kept from ``old`` for kinds with a status subresource;
    Services keep allocated IPs/node ports the update omits; Secret
    ``stringData`` is folded; a DaemonSet's template-generation annotation
    follows template changes.  Call after :func:`apply_defaults` on ``new``
    and before validation.
    """
    out = clone(new)
    _keep_system_metadata(out, old)
    gk = group_kind(out)
    if gk == ("", "Service"):
        _keep_allocations(out, old)
    if gk in STATUS_SUBRESOURCE_KINDS and "status" in old:
        out["status"] = clone(old["status"])
    elif gk in STATUS_SUBRESOURCE_KINDS:
        out.pop("status", None)
    if gk == ("", "Secret"):
        _fold_string_data(out)
    if gk == ("", "Namespace"):
        labels = _d(_d(out, "metadata"), "labels")
        labels["kubernetes.io/metadata.name"] = out["metadata"].get("name", "")
    if gk == ("apps", "DaemonSet"):
        old_template = (old.get("spec") or {}).get("template")
        new_template = (out.get("spec") or {}).get("template")
        old_ann = ((old.get("metadata") or {}).get("annotations") or {})
        current = old_ann.get("deprecated.daemonset.template.generation", "1")
        annotations = _d(_d(out, "metadata"), "annotations")
        if old_template != new_template:
            try:
                current = str(int(current) + 1)
            except ValueError:
                current = "1"
        annotations["deprecated.daemonset.template.generation"] = current
    return out
