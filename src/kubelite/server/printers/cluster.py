"""Printers for services and networking, configuration, storage, RBAC, nodes, events and the
cluster-level kinds."""
from __future__ import annotations

import datetime

from kubelite.server.printers.columns import AGE, CORE, NAME, Doc, col
from kubelite.server.printers.formats import (
    access_modes, as_dict, as_int, as_list, as_str, dig, format_label_selector, format_labels,
    lower_kind_name, mapping_len, more_list, quantity, since, sorted_unique)
from kubelite.server.printers.registry import Printer, Row

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Any

_Now = datetime.datetime
_NET = "io.k8s.api.networking.v1."
_DISCOVERY = "io.k8s.api.discovery.v1."
_STORAGE = "io.k8s.api.storage.v1."
_RBAC_ROLE = ("RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
              "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.")
_RBAC_CLUSTER_ROLE = ("RoleRef can only reference a ClusterRole in the global namespace. If the "
                      "RoleRef cannot be resolved, the Authorizer must return an error.")
_NETPOL_SELECTOR = ("Selects the pods to which this NetworkPolicy object applies.  The array of ingress "
                    "rules is applied to any pods selected by this field. Multiple network policies can "
                    "select the same set of pods.  In this case, the ingress rules for each are combined "
                    "additively. This field is NOT optional and follows standard label selector "
                    "semantics. An empty podSelector matches all pods in this namespace.")


def _name(obj: dict) -> str:
    return as_str(dig(obj, "metadata", "name"))


def _age(obj: dict, now: _Now) -> str:
    return since(dig(obj, "metadata", "creationTimestamp"), now)


def _simple(*fields):
    """A row of name, the given cell functions of the object, then the age."""
    def row(obj: dict, now: _Now) -> Row:
        return Row([_name(obj), *(field(obj) for field in fields), _age(obj, now)])
    return row


# -------------------------------------------------------------------- services

def _load_balancer(status: Any) -> str:
    found = []
    for ingress in map(as_dict, as_list(dig(status, "ingress"))):
        found.append(as_str(ingress.get("ip")) or as_str(ingress.get("hostname")))
    return ",".join(sorted_unique(item for item in found if item))


def _external_ip(service: dict) -> str:
    spec = as_dict(service.get("spec"))
    external = [ip for ip in as_list(spec.get("externalIPs")) if isinstance(ip, str)]
    kind = spec.get("type")
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else "<none>"
    if kind == "LoadBalancer":
        balancer = _load_balancer(dig(service, "status", "loadBalancer"))
        if external:
            return ",".join((balancer.split(",") if balancer else []) + external)
        return balancer or "<pending>"
    if kind == "ExternalName":
        return as_str(spec.get("externalName"))
    return "<unknown>"


def _service_ports(service: dict) -> str:
    pieces = []
    for port in map(as_dict, as_list(dig(service, "spec", "ports"))):
        node_port = as_int(port.get("nodePort"))
        protocol = as_str(port.get("protocol"))
        number = as_int(port.get("port"))
        pieces.append(f"{number}:{node_port}/{protocol}" if node_port > 0 else f"{number}/{protocol}")
    return ",".join(pieces) or "<none>"


def service_row(obj: dict, now: _Now) -> Row:
    cluster_ips = as_list(dig(obj, "spec", "clusterIPs"))
    return Row([_name(obj), as_str(dig(obj, "spec", "type")),
                as_str(cluster_ips[0]) if cluster_ips else "<none>",
                _external_ip(obj), _service_ports(obj), _age(obj, now),
                format_labels(dig(obj, "spec", "selector"))])


def _endpoints(obj: dict) -> str:
    subsets = as_list(obj.get("subsets"))
    if not subsets:
        return "<none>"
    shown: list[str] = []
    total = 0
    for subset in map(as_dict, subsets):
        addresses = [as_str(as_dict(a).get("ip")) for a in as_list(subset.get("addresses"))]
        ports = as_list(subset.get("ports"))
        if not ports:
            total += len(addresses)
            shown.extend(addresses[:max(0, 3 - len(shown))])
            continue
        for port in map(as_dict, ports):
            total += len(addresses)
            for ip in addresses:
                if len(shown) == 3:
                    break
                host = f"[{ip}]" if ":" in ip else ip
                shown.append(f"{host}:{as_int(port.get('port'))}")
    text = ",".join(shown)
    return f"{text} + {total - 3} more..." if total > 3 and len(shown) == 3 else text


def _slice_ports(obj: dict) -> str:
    names = []
    for port in map(as_dict, as_list(obj.get("ports"))):
        if port.get("port") is not None:
            names.append(str(as_int(port.get("port"))))
        elif port.get("name") is not None:
            names.append(as_str(port.get("name")))
        else:
            names.append("*")
    return more_list(names, 3, empty="<unset>")


def _slice_endpoints(obj: dict) -> str:
    addresses = [as_str(a) for e in as_list(obj.get("endpoints")) for a in as_list(as_dict(e).get("addresses"))]
    return more_list(addresses, 3, empty="<unset>")


def _ingress_hosts(obj: dict) -> str:
    rules = as_list(dig(obj, "spec", "rules"))
    hosts: list[str] = []
    more = False
    for rule in rules:
        # Empty hosts are skipped, so the first three hosts may come from later rules.
        more = more or len(hosts) == 3
        host = as_str(as_dict(rule).get("host"))
        if not more and host:
            hosts.append(host)
    if not hosts:
        return "*"
    text = ",".join(hosts)
    return f"{text} + {len(rules) - 3} more..." if more else text


def ingress_row(obj: dict, now: _Now) -> Row:
    class_name = dig(obj, "spec", "ingressClassName")
    return Row([_name(obj), class_name if isinstance(class_name, str) else "<none>", _ingress_hosts(obj),
                _load_balancer(dig(obj, "status", "loadBalancer")),
                "80, 443" if as_list(dig(obj, "spec", "tls")) else "80", _age(obj, now)])


def _ingress_class_parameters(obj: dict) -> str:
    params = dig(obj, "spec", "parameters")
    if not isinstance(params, dict):
        return "<none>"
    text = as_str(params.get("kind"))
    if isinstance(params.get("apiGroup"), str):
        text += "." + params["apiGroup"]
    return f"{text}/{as_str(params.get('name'))}"


# ---------------------------------------------------------------------- nodes

def _node_status(node: dict) -> str:
    states = []
    for condition in map(as_dict, as_list(dig(node, "status", "conditions"))):
        if condition.get("type") == "Ready":
            states = ["Ready" if condition.get("status") == "True" else "NotReady"]
    states = states or ["Unknown"]
    if dig(node, "spec", "unschedulable") is True:
        states.append("SchedulingDisabled")
    return ",".join(states)


def _node_roles(node: dict) -> str:
    roles = set()
    for key, value in as_dict(dig(node, "metadata", "labels")).items():
        if key.startswith("node-role.kubernetes.io/") and key[len("node-role.kubernetes.io/"):]:
            roles.add(key[len("node-role.kubernetes.io/"):])
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    return ",".join(sorted(roles)) or "<none>"


def _node_address(node: dict, kind: str) -> str:
    for address in map(as_dict, as_list(dig(node, "status", "addresses"))):
        if address.get("type") == kind:
            return as_str(address.get("address"))
    return "<none>"


def node_row(obj: dict, now: _Now) -> Row:
    info = as_dict(dig(obj, "status", "nodeInfo"))
    return Row([_name(obj), _node_status(obj), _node_roles(obj), _age(obj, now),
                as_str(info.get("kubeletVersion")), _node_address(obj, "InternalIP"),
                _node_address(obj, "ExternalIP"),
                as_str(info.get("osImage")) or "<unknown>", as_str(info.get("kernelVersion")) or "<unknown>",
                as_str(info.get("containerRuntimeVersion")) or "<unknown>"])


# --------------------------------------------------------------------- events

def _core_event(obj: dict) -> dict:
    """An events.k8s.io/v1 Event in core/v1 field names (what the printer reads)."""
    if "regarding" not in obj and "note" not in obj and not str(obj.get("apiVersion", "")).startswith("events.k8s.io/"):
        return obj
    source = as_dict(obj.get("deprecatedSource"))
    return {"metadata": obj.get("metadata"), "involvedObject": obj.get("regarding"),
            "message": obj.get("note"), "type": obj.get("type"), "reason": obj.get("reason"),
            "firstTimestamp": obj.get("deprecatedFirstTimestamp"),
            "lastTimestamp": obj.get("deprecatedLastTimestamp"),
            "count": obj.get("deprecatedCount"), "source": source, "eventTime": obj.get("eventTime"),
            "series": obj.get("series"), "reportingComponent": obj.get("reportingController"),
            "reportingInstance": obj.get("reportingInstance")}


def event_row(obj: dict, now: _Now) -> Row:
    event = _core_event(obj)
    first = since(event.get("firstTimestamp"), now)
    if event.get("firstTimestamp") is None or first == "<unknown>":
        first = since(event.get("eventTime"), now)
    last = since(event.get("lastTimestamp"), now)
    if event.get("lastTimestamp") is None or last == "<unknown>":
        last = first
    count = as_int(event.get("count"))
    series = event.get("series")
    if isinstance(series, dict):
        last = since(series.get("lastObservedTime"), now)
        count = as_int(series.get("count"))
    elif count == 0:
        count = 1
    involved = as_dict(event.get("involvedObject"))
    source = as_dict(event.get("source"))
    component = as_str(source.get("component")) or as_str(event.get("reportingComponent"))
    instance = as_str(source.get("host")) or as_str(event.get("reportingInstance"))
    return Row([last, as_str(event.get("type")), as_str(event.get("reason")),
                lower_kind_name(as_str(involved.get("kind")), as_str(involved.get("name"))),
                as_str(involved.get("fieldPath")),
                f"{component}, {instance}" if instance else component,
                as_str(event.get("message")).strip(), first, count, _name(obj)])


# -------------------------------------------------------------------- storage

_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _annotation(obj: dict, key: str) -> str | None:
    value = as_dict(dig(obj, "metadata", "annotations")).get(key)
    return value if isinstance(value, str) else None


def persistent_volume_row(obj: dict, now: _Now) -> Row:
    spec = as_dict(obj.get("spec"))
    claim = spec.get("claimRef")
    claim_text = f"{as_str(claim.get('namespace'))}/{as_str(claim.get('name'))}" if isinstance(claim, dict) else ""
    phase = as_str(dig(obj, "status", "phase"))
    if dig(obj, "metadata", "deletionTimestamp") is not None:
        phase = "Terminating"
    storage_class = _annotation(obj, _STORAGE_CLASS_ANNOTATION)
    if storage_class is None:
        storage_class = as_str(spec.get("storageClassName"))
    attributes_class = spec.get("volumeAttributesClassName")
    volume_mode = spec.get("volumeMode")
    return Row([_name(obj), quantity(as_dict(spec.get("capacity")).get("storage")),
                access_modes(spec.get("accessModes")), as_str(spec.get("persistentVolumeReclaimPolicy")),
                phase, claim_text, storage_class,
                attributes_class if isinstance(attributes_class, str) else "<unset>",
                as_str(dig(obj, "status", "reason")), _age(obj, now),
                volume_mode if isinstance(volume_mode, str) else "<unset>"])


def persistent_volume_claim_row(obj: dict, now: _Now) -> Row:
    spec = as_dict(obj.get("spec"))
    phase = as_str(dig(obj, "status", "phase"))
    if dig(obj, "metadata", "deletionTimestamp") is not None:
        phase = "Terminating"
    capacity = modes = ""
    if as_str(spec.get("volumeName")):
        modes = access_modes(dig(obj, "status", "accessModes"))
        capacity = quantity(as_dict(dig(obj, "status", "capacity")).get("storage"))
    storage_class = _annotation(obj, _STORAGE_CLASS_ANNOTATION)
    if storage_class is None:
        storage_class = as_str(spec.get("storageClassName"))
    attributes_class = spec.get("volumeAttributesClassName")
    volume_mode = spec.get("volumeMode")
    return Row([_name(obj), phase, as_str(spec.get("volumeName")), capacity, modes, storage_class,
                attributes_class if isinstance(attributes_class, str) else "<unset>", _age(obj, now),
                volume_mode if isinstance(volume_mode, str) else "<unset>"])


def _is_default_class(obj: dict) -> bool:
    return (_annotation(obj, "storageclass.kubernetes.io/is-default-class") == "true"
            or _annotation(obj, "storageclass.beta.kubernetes.io/is-default-class") == "true")


def storage_class_row(obj: dict, now: _Now) -> Row:
    name = _name(obj) + (" (default)" if _is_default_class(obj) else "")
    reclaim = obj.get("reclaimPolicy")
    binding = obj.get("volumeBindingMode")
    expansion = obj.get("allowVolumeExpansion")
    return Row([name, as_str(obj.get("provisioner")), reclaim if isinstance(reclaim, str) else "Delete",
                binding if isinstance(binding, str) else "Immediate",
                expansion if isinstance(expansion, bool) else False, _age(obj, now)])


def resource_quota_row(obj: dict, now: _Now) -> Row:
    hard = as_dict(dig(obj, "status", "hard"))
    used = as_dict(dig(obj, "status", "used"))
    requests, limits = [], []
    for resource in sorted(hard):
        target = limits if resource.split(".")[0] == "limits" and "." in resource else requests
        target.append(f"{resource}: {quantity(used.get(resource))}/{quantity(hard[resource])}")
    # kube-apiserver 1.32 puts the age before the request/limit columns.
    return Row([_name(obj), _age(obj, now), ", ".join(requests), ", ".join(limits)])


def csi_driver_row(obj: dict, now: _Now) -> Row:
    spec = as_dict(obj.get("spec"))

    def flag(key: str, default: bool) -> bool:
        value = spec.get(key)
        return value if isinstance(value, bool) else default

    tokens = spec.get("tokenRequests")
    token_text = "<unset>"
    if isinstance(tokens, list):
        token_text = ",".join(as_str(as_dict(t).get("audience")) for t in tokens)
    modes = ",".join(as_str(m) for m in as_list(spec.get("volumeLifecycleModes"))) or "<none>"
    return Row([_name(obj), flag("attachRequired", True), flag("podInfoOnMount", False),
                flag("storageCapacity", False), token_text, flag("requiresRepublish", False),
                modes, _age(obj, now)])


# ----------------------------------------------------------------------- RBAC

def _subjects(obj: dict) -> list[str]:
    users, groups, accounts = [], [], []
    for subject in map(as_dict, as_list(obj.get("subjects"))):
        kind, name = subject.get("kind"), as_str(subject.get("name"))
        if kind == "User":
            users.append(name)
        elif kind == "Group":
            groups.append(name)
        elif kind == "ServiceAccount":
            accounts.append(f"{as_str(subject.get('namespace'))}/{name}")
    return [", ".join(users), ", ".join(groups), ", ".join(accounts)]


def binding_row(obj: dict, now: _Now) -> Row:
    ref = as_dict(obj.get("roleRef"))
    return Row([_name(obj), f"{as_str(ref.get('kind'))}/{as_str(ref.get('name'))}", _age(obj, now),
                *_subjects(obj)])


def _binding_columns(role_description: str, scope: str) -> tuple:
    return (NAME, col("Role", role_description), AGE,
            col("Users", f"Users in the {scope}", priority=1),
            col("Groups", f"Groups in the {scope}", priority=1),
            col("ServiceAccounts", f"ServiceAccounts in the {scope}", priority=1))


# ------------------------------------------------------------------ the rest

def _csr_condition(obj: dict) -> str:
    kinds = {as_dict(c).get("type") for c in as_list(dig(obj, "status", "conditions"))}
    status = "Denied" if "Denied" in kinds else "Approved" if "Approved" in kinds else "Pending"
    if "Failed" in kinds:
        status += ",Failed"
    if dig(obj, "status", "certificate"):
        status += ",Issued"
    return status


def csr_row(obj: dict, now: _Now) -> Row:
    from kubelite.server.printers.formats import human_duration

    spec = as_dict(obj.get("spec"))
    seconds = spec.get("expirationSeconds")
    duration = "<none>" if seconds is None else human_duration(as_int(seconds))
    return Row([_name(obj), _age(obj, now), as_str(spec.get("signerName")) or "<none>",
                as_str(spec.get("username")), duration, _csr_condition(obj)])


def priority_class_row(obj: dict, now: _Now) -> Row:
    default = obj.get("globalDefault")
    return Row([_name(obj), as_int(obj.get("value")), default if isinstance(default, bool) else False,
                _age(obj, now), as_str(obj.get("preemptionPolicy"))])


def _component_status(obj: dict) -> Row:
    for condition in map(as_dict, as_list(obj.get("conditions"))):
        if condition.get("type") == "Healthy":
            state = "Healthy" if condition.get("status") == "True" else "Unhealthy"
            return Row([_name(obj), state, as_str(condition.get("message")), as_str(condition.get("error"))])
    return Row([_name(obj), "Unknown", "", ""])


def _param_kind(obj: dict) -> str:
    kind = dig(obj, "spec", "paramKind")
    if not isinstance(kind, dict):
        return "<unset>"
    return f"{as_str(kind.get('apiVersion'))}/{as_str(kind.get('kind'))}"


def _param_ref(obj: dict) -> str:
    ref = dig(obj, "spec", "paramRef")
    if not isinstance(ref, dict):
        return "<unset>"
    if as_str(ref.get("name")):
        namespace = as_str(ref.get("namespace"))
        return f"{namespace}/{ref['name']}" if namespace else f"*/{ref['name']}"
    if isinstance(ref.get("selector"), dict):
        from kubelite.server.printers.formats import selector_string
        try:
            return selector_string(ref["selector"])
        except ValueError:
            return "<error>"
    return "<unset>"


def flow_schema_row(obj: dict, now: _Now) -> Row:
    method = dig(obj, "spec", "distinguisherMethod")
    missing = "?"
    for condition in map(as_dict, as_list(dig(obj, "status", "conditions"))):
        if condition.get("type") == "Dangling":
            missing = as_str(condition.get("status"))
            break
    return Row([_name(obj), as_str(dig(obj, "spec", "priorityLevelConfiguration", "name")),
                as_int(dig(obj, "spec", "matchingPrecedence")),
                as_str(method.get("type")) if isinstance(method, dict) else "<none>",
                _age(obj, now), missing])


def _flow_schema_order(items: list) -> list:
    return sorted(items, key=lambda o: (as_int(dig(o, "spec", "matchingPrecedence")), _name(o)))


def priority_level_row(obj: dict, now: _Now) -> Row:
    limited = dig(obj, "spec", "limited")
    shares = queues = hand = length = "<none>"
    if isinstance(limited, dict):
        shares = as_int(limited.get("nominalConcurrencyShares"))
        queuing = dig(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues, hand, length = (as_int(queuing.get(k)) for k in ("queues", "handSize", "queueLengthLimit"))
    return Row([_name(obj), as_str(dig(obj, "spec", "type")), shares, queues, hand, length, _age(obj, now)])


def _holder(obj: dict) -> str:
    return as_str(dig(obj, "spec", "holderIdentity"))


_FLOW = "io.k8s.api.flowcontrol.v1."
_ADMISSION = "io.k8s.api.admissionregistration.v1."

PRINTERS = {
    ("", "services"): Printer((
        NAME,
        col("Type", Doc(CORE + "ServiceSpec", "type")),
        col("Cluster-IP", Doc(CORE + "ServiceSpec", "clusterIP")),
        col("External-IP", Doc(CORE + "ServiceSpec", "externalIPs")),
        col("Port(s)", Doc(CORE + "ServiceSpec", "ports")),
        AGE,
        col("Selector", Doc(CORE + "ServiceSpec", "selector"), priority=1),
    ), service_row),
    ("", "endpoints"): Printer((NAME, col("Endpoints", Doc(CORE + "Endpoints", "subsets")), AGE),
                               _simple(_endpoints)),
    ("discovery.k8s.io", "endpointslices"): Printer((
        NAME,
        col("AddressType", Doc(_DISCOVERY + "EndpointSlice", "addressType")),
        col("Ports", Doc(_DISCOVERY + "EndpointSlice", "ports")),
        col("Endpoints", Doc(_DISCOVERY + "EndpointSlice", "endpoints")),
        AGE,
    ), _simple(lambda o: as_str(o.get("addressType")), _slice_ports, _slice_endpoints)),
    ("networking.k8s.io", "ingresses"): Printer((
        NAME,
        col("Class", "The name of the IngressClass resource that should be used for additional configuration"),
        col("Hosts", "Hosts that incoming requests are matched against before the ingress rule"),
        col("Address", "Address is a list containing ingress points for the load-balancer"),
        col("Ports", "Ports of TLS configurations that open"),
        AGE,
    ), ingress_row),
    ("networking.k8s.io", "ingressclasses"): Printer((
        NAME,
        col("Controller", "Controller that is responsible for handling this class"),
        col("Parameters", "A reference to a resource with additional parameters"),
        AGE,
    ), _simple(lambda o: as_str(dig(o, "spec", "controller")), _ingress_class_parameters)),
    ("networking.k8s.io", "networkpolicies"): Printer((NAME, col("Pod-Selector", _NETPOL_SELECTOR), AGE),
                                                      _simple(lambda o: format_label_selector(
                                                          as_dict(dig(o, "spec", "podSelector"))))),
    ("networking.k8s.io", "servicecidrs"): Printer((
        NAME, col("CIDRs", Doc(_NET + "ServiceCIDRSpec", "cidrs")), AGE,
    ), _simple(lambda o: ",".join(as_str(c) for c in as_list(dig(o, "spec", "cidrs"))))),
    ("", "nodes"): Printer((
        NAME,
        col("Status", "The status of the node"),
        col("Roles", "The roles of the node"),
        AGE,
        col("Version", Doc(CORE + "NodeSystemInfo", "kubeletVersion")),
        col("Internal-IP", Doc(CORE + "NodeStatus", "addresses"), priority=1),
        col("External-IP", Doc(CORE + "NodeStatus", "addresses"), priority=1),
        col("OS-Image", Doc(CORE + "NodeSystemInfo", "osImage"), priority=1),
        col("Kernel-Version", Doc(CORE + "NodeSystemInfo", "kernelVersion"), priority=1),
        col("Container-Runtime", Doc(CORE + "NodeSystemInfo", "containerRuntimeVersion"), priority=1),
    ), node_row),
    ("", "namespaces"): Printer((NAME, col("Status", "The status of the namespace"), AGE),
                                _simple(lambda o: as_str(dig(o, "status", "phase")))),
    ("", "secrets"): Printer((NAME, col("Type", Doc(CORE + "Secret", "type")),
                              col("Data", Doc(CORE + "Secret", "data")), AGE),
                             _simple(lambda o: as_str(o.get("type")), lambda o: mapping_len(o.get("data")))),
    ("", "configmaps"): Printer((NAME, col("Data", Doc(CORE + "ConfigMap", "data")), AGE),
                                _simple(lambda o: mapping_len(o.get("data")) + mapping_len(o.get("binaryData")))),
    ("", "serviceaccounts"): Printer((NAME, col("Secrets", Doc(CORE + "ServiceAccount", "secrets")), AGE),
                                     _simple(lambda o: len(as_list(o.get("secrets"))))),
    ("", "persistentvolumes"): Printer((
        NAME,
        col("Capacity", Doc(CORE + "PersistentVolumeSpec", "capacity")),
        col("Access Modes", Doc(CORE + "PersistentVolumeSpec", "accessModes")),
        col("Reclaim Policy", Doc(CORE + "PersistentVolumeSpec", "persistentVolumeReclaimPolicy")),
        col("Status", Doc(CORE + "PersistentVolumeStatus", "phase")),
        col("Claim", Doc(CORE + "PersistentVolumeSpec", "claimRef")),
        col("StorageClass", "StorageClass of the pv"),
        col("VolumeAttributesClass", "VolumeAttributesClass of the pv"),
        col("Reason", Doc(CORE + "PersistentVolumeStatus", "reason")),
        AGE,
        col("VolumeMode", Doc(CORE + "PersistentVolumeSpec", "volumeMode"), priority=1),
    ), persistent_volume_row),
    ("", "persistentvolumeclaims"): Printer((
        NAME,
        col("Status", Doc(CORE + "PersistentVolumeClaimStatus", "phase")),
        col("Volume", Doc(CORE + "PersistentVolumeClaimSpec", "volumeName")),
        col("Capacity", Doc(CORE + "PersistentVolumeClaimStatus", "capacity")),
        col("Access Modes", Doc(CORE + "PersistentVolumeClaimStatus", "accessModes")),
        col("StorageClass", "StorageClass of the pvc"),
        col("VolumeAttributesClass", "VolumeAttributesClass of the pvc"),
        AGE,
        col("VolumeMode", Doc(CORE + "PersistentVolumeClaimSpec", "volumeMode"), priority=1),
    ), persistent_volume_claim_row),
    ("", "resourcequotas"): Printer((
        NAME, AGE,
        col("Request", "Request represents a minimum amount of cpu/memory that a container may consume."),
        col("Limit", "Limits control the maximum amount of cpu/memory that a container may use "
                     "independent of contention on the node."),
    ), resource_quota_row),
    ("", "componentstatuses"): Printer((
        NAME,
        col("Status", "Status of the component conditions"),
        col("Message", "Message of the component conditions"),
        col("Error", "Error of the component conditions"),
    ), lambda obj, now: _component_status(obj)),
    ("storage.k8s.io", "storageclasses"): Printer((
        NAME,
        col("Provisioner", Doc(_STORAGE + "StorageClass", "provisioner")),
        col("ReclaimPolicy", Doc(_STORAGE + "StorageClass", "reclaimPolicy")),
        col("VolumeBindingMode", Doc(_STORAGE + "StorageClass", "volumeBindingMode")),
        col("AllowVolumeExpansion", Doc(_STORAGE + "StorageClass", "allowVolumeExpansion")),
        AGE,
    ), storage_class_row),
    ("storage.k8s.io", "csinodes"): Printer((
        NAME, col("Drivers", "Drivers indicates the number of CSI drivers registered on the node", "integer"), AGE,
    ), _simple(lambda o: len(as_list(dig(o, "spec", "drivers"))))),
    ("storage.k8s.io", "csidrivers"): Printer((
        NAME,
        col("AttachRequired", Doc(_STORAGE + "CSIDriverSpec", "attachRequired"), "boolean"),
        col("PodInfoOnMount", Doc(_STORAGE + "CSIDriverSpec", "podInfoOnMount"), "boolean"),
        col("StorageCapacity", Doc(_STORAGE + "CSIDriverSpec", "storageCapacity"), "boolean"),
        col("TokenRequests", Doc(_STORAGE + "CSIDriverSpec", "tokenRequests")),
        col("RequiresRepublish", Doc(_STORAGE + "CSIDriverSpec", "requiresRepublish"), "boolean"),
        col("Modes", Doc(_STORAGE + "CSIDriverSpec", "volumeLifecycleModes")),
        AGE,
    ), csi_driver_row),
    ("storage.k8s.io", "csistoragecapacities"): Printer((
        NAME,
        col("StorageClassName", Doc(_STORAGE + "CSIStorageCapacity", "storageClassName")),
        col("Capacity", Doc(_STORAGE + "CSIStorageCapacity", "capacity")),
    ), lambda o, now: Row([_name(o), as_str(o.get("storageClassName")),
                           "<unset>" if o.get("capacity") is None else quantity(o.get("capacity"))])),
    ("storage.k8s.io", "volumeattachments"): Printer((
        NAME,
        col("Attacher", Doc(_STORAGE + "VolumeAttachmentSpec", "attacher"), format_="name"),
        col("PV", Doc(_STORAGE + "VolumeAttachmentSource", "persistentVolumeName")),
        col("Node", Doc(_STORAGE + "VolumeAttachmentSpec", "nodeName")),
        col("Attached", Doc(_STORAGE + "VolumeAttachmentStatus", "attached"), "boolean"),
        AGE,
    ), _simple(lambda o: as_str(dig(o, "spec", "attacher")),
               lambda o: as_str(dig(o, "spec", "source", "persistentVolumeName")),
               lambda o: as_str(dig(o, "spec", "nodeName")),
               lambda o: dig(o, "status", "attached") is True)),
    ("rbac.authorization.k8s.io", "rolebindings"): Printer(_binding_columns(_RBAC_ROLE, "roleBinding"),
                                                           binding_row),
    ("rbac.authorization.k8s.io", "clusterrolebindings"): Printer(
        _binding_columns(_RBAC_CLUSTER_ROLE, "clusterRoleBinding"), binding_row),
    ("certificates.k8s.io", "certificatesigningrequests"): Printer((
        NAME, AGE,
        col("SignerName", Doc("io.k8s.api.certificates.v1.CertificateSigningRequestSpec", "signerName")),
        col("Requestor", Doc("io.k8s.api.certificates.v1.CertificateSigningRequestSpec", "request")),
        col("RequestedDuration", Doc("io.k8s.api.certificates.v1.CertificateSigningRequestSpec",
                                     "expirationSeconds")),
        col("Condition", Doc("io.k8s.api.certificates.v1.CertificateSigningRequestStatus", "conditions")),
    ), csr_row),
    ("coordination.k8s.io", "leases"): Printer((
        NAME, col("Holder", Doc("io.k8s.api.coordination.v1.LeaseSpec", "holderIdentity")), AGE,
    ), _simple(_holder)),
    ("scheduling.k8s.io", "priorityclasses"): Printer((
        NAME,
        col("Value", Doc("io.k8s.api.scheduling.v1.PriorityClass", "value"), "integer"),
        col("Global-Default", Doc("io.k8s.api.scheduling.v1.PriorityClass", "globalDefault"), "boolean"),
        AGE,
        col("PreemptionPolicy", Doc("io.k8s.api.scheduling.v1.PriorityClass", "preemptionPolicy")),
    ), priority_class_row),
    ("node.k8s.io", "runtimeclasses"): Printer((
        NAME, col("Handler", Doc("io.k8s.api.node.v1.RuntimeClass", "handler")), AGE,
    ), _simple(lambda o: as_str(o.get("handler")))),
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"): Printer((
        NAME, col("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration",
                  "integer"), AGE,
    ), _simple(lambda o: len(as_list(o.get("webhooks"))))),
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"): Printer((
        NAME, col("Webhooks", "Webhooks indicates the number of webhooks registered in this configuration",
                  "integer"), AGE,
    ), _simple(lambda o: len(as_list(o.get("webhooks"))))),
    ("admissionregistration.k8s.io", "validatingadmissionpolicies"): Printer((
        NAME,
        col("Validations", "Validations indicates the number of validation rules defined in this configuration",
            "integer"),
        col("ParamKind", "ParamKind specifies the kind of resources used to parameterize this policy"),
        AGE,
    ), _simple(lambda o: len(as_list(dig(o, "spec", "validations"))), _param_kind)),
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"): Printer((
        NAME,
        col("PolicyName", "PolicyName indicates the policy definition which the policy binding binded to"),
        col("ParamRef", "ParamRef indicates the param resource which sets the configration param"),
        AGE,
    ), _simple(lambda o: as_str(dig(o, "spec", "policyName")), _param_ref)),
    ("flowcontrol.apiserver.k8s.io", "flowschemas"): Printer((
        NAME,
        col("PriorityLevel", Doc(_FLOW + "PriorityLevelConfigurationReference", "name")),
        col("MatchingPrecedence", Doc(_FLOW + "FlowSchemaSpec", "matchingPrecedence")),
        col("DistinguisherMethod", Doc(_FLOW + "FlowSchemaSpec", "distinguisherMethod")),
        AGE,
        col("MissingPL", "references a broken or non-existent PriorityLevelConfiguration"),
    ), flow_schema_row, _flow_schema_order),
    ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"): Printer((
        NAME,
        col("Type", Doc(_FLOW + "PriorityLevelConfigurationSpec", "type")),
        col("NominalConcurrencyShares", Doc(_FLOW + "LimitedPriorityLevelConfiguration",
                                            "nominalConcurrencyShares")),
        col("Queues", Doc(_FLOW + "QueuingConfiguration", "queues")),
        col("HandSize", Doc(_FLOW + "QueuingConfiguration", "handSize")),
        col("QueueLengthLimit", Doc(_FLOW + "QueuingConfiguration", "queueLengthLimit")),
        AGE,
    ), priority_level_row),
}

# events.k8s.io Events are printed by the same printer as core Events.
_EVENT_COLUMNS = (
    col("Last Seen", Doc(CORE + "Event", "lastTimestamp")),
    col("Type", Doc(CORE + "Event", "type")),
    col("Reason", Doc(CORE + "Event", "reason")),
    col("Object", Doc(CORE + "Event", "involvedObject")),
    col("Subobject", Doc(CORE + "ObjectReference", "fieldPath"), priority=1),
    col("Source", Doc(CORE + "Event", "source"), priority=1),
    col("Message", Doc(CORE + "Event", "message")),
    col("First Seen", Doc(CORE + "Event", "firstTimestamp"), priority=1),
    col("Count", Doc(CORE + "Event", "count"), priority=1),
    col("Name", Doc("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "name"), priority=1, format_="name"),
)
PRINTERS[("", "events")] = Printer(_EVENT_COLUMNS, event_row)
PRINTERS[("events.k8s.io", "events")] = Printer(_EVENT_COLUMNS, event_row)
