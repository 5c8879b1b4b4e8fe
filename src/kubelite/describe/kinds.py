"""Describers of the common kinds, each `(obj, related, now) -> Writer`, in kubectl's layout.

`related` holds what the command fetched besides the object: "events" (a list, or None when
events are not shown), "endpointslices" (services), "quotas" and "limitranges" (namespaces).
"""
from __future__ import annotations

from typing import Any

from kubelite.describe import parts
from kubelite.describe.writer import Writer
from kubelite.server.printers.formats import as_dict, as_list, as_str, format_labels


def _header(w: Writer, obj: dict, namespace: bool = True) -> None:
    parts.name_namespace(w, obj, namespace)


def _labels_annotations(w: Writer, obj: dict) -> None:
    m = parts.meta(obj)
    parts.labels_multiline(w, "Labels", m.get("labels"))
    parts.annotations_multiline(w, "Annotations", m.get("annotations"))


def _controller(obj: dict) -> dict | None:
    for ref in as_list(parts.meta(obj).get("ownerReferences")):
        if as_dict(ref).get("controller") is True:
            return ref
    return None


# -- pods ---------------------------------------------------------------------------------------------


def pod(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    m, spec, status = parts.meta(obj), as_dict(obj.get("spec")), as_dict(obj.get("status"))
    _header(w, obj)
    if spec.get("priority") is not None:
        w.write(0, f"Priority:\t{spec['priority']}\n")
    if spec.get("priorityClassName"):
        w.write(0, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    if spec.get("runtimeClassName"):
        w.write(0, f"Runtime Class Name:\t{spec['runtimeClassName']}\n")
    w.write(0, f"Service Account:\t{spec.get('serviceAccountName', '')}\n")
    if not spec.get("nodeName"):
        w.write(0, "Node:\t<none>\n")
    else:
        w.write(0, f"Node:\t{spec['nodeName']}/{status.get('hostIP', '')}\n")
    if status.get("startTime"):
        w.write(0, f"Start Time:\t{parts.rfc1123z(status['startTime'])}\n")
    _labels_annotations(w, obj)
    if m.get("deletionTimestamp"):
        from kubelite.server.printers.formats import since

        w.write(0, f"Status:\tTerminating (lasts {since(m['deletionTimestamp'], now)})\n")
        w.write(0, f"Termination Grace Period:\t{m.get('deletionGracePeriodSeconds', 0)}s\n")
    else:
        w.write(0, f"Status:\t{status.get('phase', '')}\n")
    if status.get("reason"):
        w.write(0, f"Reason:\t{status['reason']}\n")
    if status.get("message"):
        w.write(0, f"Message:\t{status['message'].strip()}\n")
    w.write(0, f"IP:\t{status.get('podIP', '')}\n")
    ips = [as_dict(ip).get("ip", "") for ip in as_list(status.get("podIPs"))]
    if not ips:
        w.write(0, "IPs:\t<none>\n")
    else:
        w.write(0, "IPs:\n")
        for ip in ips:
            w.write(1, f"IP:\t{ip}\n")
    owner = _controller(obj)
    if owner:
        w.write(0, f"Controlled By:\t{owner.get('kind', '')}/{owner.get('name', '')}\n")
    if spec.get("nominatedNodeName") or status.get("nominatedNodeName"):
        w.write(0, f"NominatedNodeName:\t{status.get('nominatedNodeName', '')}\n")
    if as_list(spec.get("initContainers")):
        parts.containers(w, "Init Containers", as_list(spec["initContainers"]),
                         as_list(status.get("initContainerStatuses")), "", obj)
    parts.containers(w, "Containers", as_list(spec.get("containers")), as_list(status.get("containerStatuses")), "",
                     obj)
    conditions = [as_dict(c) for c in as_list(status.get("conditions"))]
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')} \n")
    parts.volumes(w, spec.get("volumes"), "")
    w.write(0, f"QoS Class:\t{status.get('qosClass') or qos_class(spec)}\n")
    parts.labels_multiline(w, "Node-Selectors", spec.get("nodeSelector"))
    parts.tolerations_multiline(w, "Tolerations", spec.get("tolerations"))
    parts.events(w, related.get("events"), now)
    return w


def qos_class(spec: dict) -> str:
    """Guaranteed, Burstable or BestEffort from the containers' requests and limits."""
    requests: dict = {}
    limits: dict = {}
    guaranteed = True
    for c in as_list(spec.get("containers")) + as_list(spec.get("initContainers")):
        resources = as_dict(as_dict(c).get("resources"))
        req = {k: v for k, v in as_dict(resources.get("requests")).items() if k in ("cpu", "memory")}
        lim = {k: v for k, v in as_dict(resources.get("limits")).items() if k in ("cpu", "memory")}
        requests.update(req)
        limits.update(lim)
        if set(lim) != {"cpu", "memory"}:
            guaranteed = False
        for k, v in req.items():
            if parts.parse_quantity(lim.get(k)) != parts.parse_quantity(v):
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


# -- workloads -------------------------------------------------------------------------------------------


def deployment(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    m, spec, status = parts.meta(obj), as_dict(obj.get("spec")), as_dict(obj.get("status"))
    _header(w, obj)
    w.write(0, f"CreationTimestamp:\t{parts.rfc1123z(m.get('creationTimestamp'))}\n")
    _labels_annotations(w, obj)
    w.write(0, f"Selector:\t{parts.selector(spec.get('selector'))}\n")
    w.write(0, f"Replicas:\t{spec.get('replicas', 0)} desired | {status.get('updatedReplicas', 0)} updated | "
               f"{status.get('replicas', 0)} total | {status.get('availableReplicas', 0)} available | "
               f"{status.get('unavailableReplicas', 0)} unavailable\n")
    strategy = as_dict(spec.get("strategy"))
    w.write(0, f"StrategyType:\t{strategy.get('type', '')}\n")
    w.write(0, f"MinReadySeconds:\t{spec.get('minReadySeconds', 0)}\n")
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict):
        w.write(0, f"RollingUpdateStrategy:\t{_intstr(rolling.get('maxUnavailable'))} max unavailable, "
                   f"{_intstr(rolling.get('maxSurge'))} max surge\n")
    parts.pod_template(w, spec.get("template"))
    conditions = [as_dict(c) for c in as_list(status.get("conditions"))]
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')}\t{c.get('reason', '')}\n")
    replica_sets = related.get("replicasets")
    if replica_sets:
        old, new = replica_sets
        w.write(0, f"OldReplicaSets:\t{_rs_list(old)}\n")
        w.write(0, f"NewReplicaSet:\t{_rs_list([new] if new else [])}\n")
    parts.events(w, related.get("events"), now)
    return w


def _rs_list(items: list) -> str:
    if not items:
        return "<none>"
    return ", ".join(f"{parts.meta(rs).get('name', '')} ({as_dict(rs.get('status')).get('replicas', 0)}/"
                     f"{as_dict(rs.get('spec')).get('replicas', 0)} replicas created)" for rs in items)


def _intstr(value: Any) -> str:
    return "<nil>" if value is None else str(value)


def replicaset(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    _header(w, obj)
    w.write(0, f"Selector:\t{parts.selector(spec.get('selector'))}\n")
    _labels_annotations(w, obj)
    owner = _controller(obj)
    if owner:
        w.write(0, f"Controlled By:\t{owner.get('kind', '')}/{owner.get('name', '')}\n")
    w.write(0, f"Replicas:\t{status.get('replicas', 0)} current / {spec.get('replicas', 0)} desired\n")
    running, waiting, succeeded, failed = related.get("pod_phases") or (0, 0, 0, 0)
    w.write(0, f"Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n")
    parts.pod_template(w, spec.get("template"))
    conditions = [as_dict(c) for c in as_list(status.get("conditions"))]
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')}\t{c.get('reason', '')}\n")
    parts.events(w, related.get("events"), now)
    return w


def job(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    _header(w, obj)
    w.write(0, f"Selector:\t{parts.selector(spec.get('selector'))}\n")
    _labels_annotations(w, obj)
    owner = _controller(obj)
    if owner:
        w.write(0, f"Controlled By:\t{owner.get('kind', '')}/{owner.get('name', '')}\n")
    if spec.get("parallelism") is not None:
        w.write(0, f"Parallelism:\t{spec['parallelism']}\n")
    w.write(0, f"Completions:\t{spec['completions']}\n" if spec.get("completions") is not None else
            "Completions:\t<unset>\n")
    if spec.get("completionMode") is not None:
        w.write(0, f"Completion Mode:\t{spec['completionMode']}\n")
    if spec.get("suspend") is not None:
        w.write(0, f"Suspend:\t{parts.go_value(spec['suspend'])}\n")
    if spec.get("backoffLimit") is not None:
        w.write(0, f"Backoff Limit:\t{spec['backoffLimit']}\n")
    if spec.get("ttlSecondsAfterFinished") is not None:
        w.write(0, f"TTL Seconds After Finished:\t{spec['ttlSecondsAfterFinished']}\n")
    if status.get("startTime"):
        w.write(0, f"Start Time:\t{parts.rfc1123z(status['startTime'])}\n")
    if status.get("completionTime"):
        from kubelite.server.printers.formats import between

        w.write(0, f"Completed At:\t{parts.rfc1123z(status['completionTime'])}\n")
        w.write(0, f"Duration:\t{between(status.get('startTime'), status['completionTime'])}\n")
    if spec.get("activeDeadlineSeconds") is not None:
        w.write(0, f"Active Deadline Seconds:\t{spec['activeDeadlineSeconds']}s\n")
    counts = f"{status.get('active', 0)} Active"
    if status.get("ready") is not None:
        counts += f" ({status['ready']} Ready)"
    w.write(0, f"Pods Statuses:\t{counts} / {status.get('succeeded', 0)} Succeeded / {status.get('failed', 0)} "
               "Failed\n")
    if spec.get("completionMode") == "Indexed":
        w.write(0, f"Completed Indexes:\t{_indexes(status.get('completedIndexes'))}\n")
        if spec.get("backoffLimitPerIndex") is not None and status.get("failedIndexes") is not None:
            w.write(0, f"Failed Indexes:\t{_indexes(status.get('failedIndexes'))}\n")
    parts.pod_template(w, spec.get("template"))
    parts.events(w, related.get("events"), now)
    return w


def _indexes(text: Any, limit: int = 50) -> str:
    text = as_str(text)
    if not text:
        return "<none>"
    if len(text) > limit:
        cut = text[:limit]
        return cut[: cut.rfind(",")] + ",..." if "," in cut else cut + "..."
    return text


# -- services and configuration -------------------------------------------------------------------------


def service(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    _header(w, obj)
    _labels_annotations(w, obj)
    w.write(0, f"Selector:\t{format_labels(spec.get('selector'))}\n")
    w.write(0, f"Type:\t{spec.get('type', '')}\n")
    if spec.get("ipFamilyPolicy"):
        w.write(0, f"IP Family Policy:\t{spec['ipFamilyPolicy']}\n")
    families = as_list(spec.get("ipFamilies"))
    w.write(0, f"IP Families:\t{','.join(families)}\n" if families else "IP Families:\t<none>\n")
    w.write(0, f"IP:\t{spec.get('clusterIP', '')}\n")
    ips = as_list(spec.get("clusterIPs"))
    w.write(0, f"IPs:\t{','.join(ips)}\n" if ips else "IPs:\t<none>\n")
    if as_list(spec.get("externalIPs")):
        w.write(0, f"External IPs:\t{','.join(spec['externalIPs'])}\n")
    if spec.get("loadBalancerIP"):
        w.write(0, f"Desired LoadBalancer IP:\t{spec['loadBalancerIP']}\n")
    ingress = [as_dict(i) for i in as_list(as_dict(status.get("loadBalancer")).get("ingress"))]
    if ingress:
        names = [i.get("ip") or i.get("hostname") or "" for i in ingress]
        w.write(0, f"LoadBalancer Ingress:\t{', '.join(names)}\n")
    if spec.get("type") == "ExternalName":
        w.write(0, f"External Name:\t{spec.get('externalName', '')}\n")
    slices = related.get("endpointslices") or []
    for port in as_list(spec.get("ports")):
        port = as_dict(port)
        name = port.get("name") or "<unset>"
        protocol = port.get("protocol", "")
        w.write(0, f"Port:\t{name}\t{port.get('port', 0)}/{protocol}\n")
        w.write(0, f"TargetPort:\t{port.get('targetPort', '')}/{protocol}\n")
        if port.get("nodePort"):
            w.write(0, f"NodePort:\t{name}\t{port['nodePort']}/{protocol}\n")
        w.write(0, f"Endpoints:\t{_endpoints(slices, port)}\n")
    w.write(0, f"Session Affinity:\t{spec.get('sessionAffinity', '')}\n")
    if spec.get("externalTrafficPolicy"):
        w.write(0, f"External Traffic Policy:\t{spec['externalTrafficPolicy']}\n")
    if spec.get("internalTrafficPolicy"):
        w.write(0, f"Internal Traffic Policy:\t{spec['internalTrafficPolicy']}\n")
    if spec.get("healthCheckNodePort"):
        w.write(0, f"HealthCheck NodePort:\t{spec['healthCheckNodePort']}\n")
    if as_list(spec.get("loadBalancerSourceRanges")):
        w.write(0, f"LoadBalancer Source Ranges:\t{','.join(spec['loadBalancerSourceRanges'])}\n")
    parts.events(w, related.get("events"), now)
    return w


def _endpoints(slices: list, port: dict, limit: int = 3) -> str:
    """Ready addresses of the service's EndpointSlices serving this port, `<none>` without slices."""
    if not slices:
        return "<none>"
    found: list[str] = []
    for s in slices:
        for p in as_list(as_dict(s).get("ports")):
            p = as_dict(p)
            if (p.get("name") or "") != (port.get("name") or ""):
                continue
            for endpoint in as_list(s.get("endpoints")):
                endpoint = as_dict(endpoint)
                if as_dict(endpoint.get("conditions")).get("ready") is False:
                    continue
                for address in as_list(endpoint.get("addresses")):
                    host = f"[{address}]" if ":" in str(address) else str(address)
                    found.append(f"{host}:{p.get('port', 0)}")
    text = ",".join(found[:limit])
    if len(found) > limit:
        text += f" + {len(found) - limit} more..."
    return text


def configmap(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    _header(w, obj)
    _labels_annotations(w, obj)
    w.write(0, "\nData\n====\n")
    data = as_dict(obj.get("data"))
    for key in sorted(data):
        w.write(0, f"{key}:\n----\n")
        w.write(0, f"{data[key]}\n")
        w.write(0, "\n")
    w.write(0, "\nBinaryData\n====\n")
    binary = as_dict(obj.get("binaryData"))
    for key in sorted(binary):
        import base64

        try:
            size = len(base64.b64decode(binary[key]))
        except ValueError:
            size = 0
        w.write(0, f"{key}: {size} bytes\n")
    if related.get("events") is not None:
        w.write(0, "\n")
    parts.events(w, related.get("events"), now)
    return w


def secret(obj: dict, related: dict, now) -> Writer:
    import base64

    w = Writer()
    _header(w, obj)
    _labels_annotations(w, obj)
    kind = obj.get("type", "")
    w.write(0, f"\nType:\t{kind}\n\n")
    w.write(0, "Data\n====\n")
    data = as_dict(obj.get("data"))
    for key in sorted(data):
        try:
            raw = base64.b64decode(data[key])
        except ValueError:
            raw = b""
        if key == "token" and kind == "kubernetes.io/service-account-token":
            w.write(0, f"{key}:\t{raw.decode('utf-8', 'replace')}\n")
        else:
            w.write(0, f"{key}:\t{len(raw)} bytes\n")
    return w


def namespace(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    _header(w, obj, namespace=False)
    _labels_annotations(w, obj)
    w.write(0, f"Status:\t{as_dict(obj.get('status')).get('phase', '')}\n")
    quotas = sorted(related.get("quotas") or [], key=lambda q: parts.meta(q).get("name", ""))
    if quotas:
        w.write(0, "\nResource Quotas\n")
        for q in quotas:
            _quota(w, q)
    else:
        w.write(0, "\nNo resource quota.\n")
    limits = related.get("limitranges") or []
    if limits:
        w.write(0, "\nResource Limits\n")
        _limit_header(w, " ")
        for limit_range in limits:
            _limit_range(w, limit_range, " ")
    else:
        w.write(0, "\nNo LimitRange resource.\n")
    return w


def _quota(w: Writer, q: dict) -> None:
    spec, status = as_dict(q.get("spec")), as_dict(q.get("status"))
    w.write(1, f"Name:\t{parts.meta(q).get('name', '')}\n")
    scopes = sorted(as_str(s) for s in as_list(spec.get("scopes")))
    if scopes:
        w.write(1, "Scopes:\t" + ", ".join(scopes) + "\n")
        for scope in scopes:
            if scope in _QUOTA_SCOPE_HELP:
                w.write(1, f"* {_QUOTA_SCOPE_HELP[scope]}\n")
    w.write(1, "Resource\tUsed\tHard\n")
    w.write(1, "--------\t---\t---\n")
    hard, used = as_dict(status.get("hard")), as_dict(status.get("used"))
    for name in sorted(hard):
        w.write(1, f"{name}\t{used.get(name, '0')}\t{hard[name]}\n")


def _limit_header(w: Writer, prefix: str) -> None:
    w.write(0, f"{prefix}Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n")
    w.write(0, f"{prefix}----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n")


def _limit_range(w: Writer, limit_range: dict, prefix: str) -> None:
    for item in as_list(as_dict(limit_range.get("spec")).get("limits")):
        item = as_dict(item)
        fields = ("min", "max", "defaultRequest", "default", "maxLimitRequestRatio")
        names = sorted({name for f in fields for name in as_dict(item.get(f))})
        for name in names:
            cells = [str(as_dict(item.get(f)).get(name, "-")) for f in fields]
            w.write(0, f"{prefix}{item.get('type', '')}\t{name}\t" + "\t".join(cells) + "\n")


def node(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    m, spec, status = parts.meta(obj), as_dict(obj.get("spec")), as_dict(obj.get("status"))
    w.write(0, f"Name:\t{m.get('name', '')}\n")
    roles = sorted(k.split("/", 1)[1] for k in as_dict(m.get("labels")) if k.startswith("node-role.kubernetes.io/"))
    w.write(0, f"Roles:\t{','.join(roles) if roles else '<none>'}\n")
    _labels_annotations(w, obj)
    w.write(0, f"CreationTimestamp:\t{parts.rfc1123z(m.get('creationTimestamp'))}\n")
    taints = as_list(spec.get("taints"))
    w.write(0, "Taints:\t")
    if not taints:
        w.line("<none>")
    for i, t in enumerate(taints):
        t = as_dict(t)
        if i:
            w.write(0, "\t")
        value = f"={t['value']}" if t.get("value") else ""
        w.write(0, f"{t.get('key', '')}{value}:{t.get('effect', '')}\n")
    w.write(0, f"Unschedulable:\t{parts.go_value(bool(spec.get('unschedulable')))}\n")
    conditions = [as_dict(c) for c in as_list(status.get("conditions"))]
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(1, f"{c.get('type', '')} \t{c.get('status', '')} \t{parts.rfc1123z(c.get('lastHeartbeatTime'))} "
                       f"\t{parts.rfc1123z(c.get('lastTransitionTime'))} \t{c.get('reason', '')} \t"
                       f"{c.get('message', '')}\n")
    addresses = [as_dict(a) for a in as_list(status.get("addresses"))]
    w.write(0, "Addresses:\n" if addresses else "Addresses:\t<none>\n")
    for a in addresses:
        w.write(1, f"{a.get('type', '')}:\t{a.get('address', '')}\n")
    for title, key in (("Capacity", "capacity"), ("Allocatable", "allocatable")):
        values = as_dict(status.get(key))
        if values:
            w.write(0, f"{title}:\n")
            for name in sorted(values):
                w.write(1, f"{name}:\t{values[name]}\n")
    info = as_dict(status.get("nodeInfo"))
    if info:
        w.write(0, "System Info:\n")
        for title, key in (("Machine ID", "machineID"), ("System UUID", "systemUUID"), ("Boot ID", "bootID"),
                           ("Kernel Version", "kernelVersion"), ("OS Image", "osImage"),
                           ("Operating System", "operatingSystem"), ("Architecture", "architecture"),
                           ("Container Runtime Version", "containerRuntimeVersion"),
                           ("Kubelet Version", "kubeletVersion"), ("Kube-Proxy Version", "kubeProxyVersion")):
            w.write(1, f"{title}:\t{info.get(key, '')}\n")
    if spec.get("podCIDR"):
        w.write(0, f"PodCIDR:\t{spec['podCIDR']}\n")
        w.write(0, f"PodCIDRs:\t{','.join(as_list(spec.get('podCIDRs')))}\n")
    if spec.get("providerID"):
        w.write(0, f"ProviderID:\t{spec['providerID']}\n")
    parts.events(w, related.get("events"), now)
    return w


# -- endpoint slices, limit ranges, resource quotas ---------------------------------------------------


def endpointslice(obj: dict, related: dict, now) -> Writer:
    w = Writer()
    _header(w, obj)
    _labels_annotations(w, obj)
    w.write(0, f"AddressType:\t{as_str(obj.get('addressType'))}\n")
    ports = [as_dict(p) for p in as_list(obj.get("ports"))]
    if not ports:
        w.write(0, "Ports: <unset>\n")
    else:
        w.write(0, "Ports:\n")
        w.write(1, "Name\tPort\tProtocol\n")
        w.write(1, "----\t----\t--------\n")
        for port in ports:
            number = port.get("port")
            w.write(1, f"{port.get('name') or '<unset>'}\t{'<unset>' if number is None else number}\t"
                       f"{as_str(port.get('protocol'))}\n")
    endpoints = [as_dict(e) for e in as_list(obj.get("endpoints"))]
    if not endpoints:
        w.write(0, "Endpoints: <none>\n")
    else:
        w.write(0, "Endpoints:\n")
        for e in endpoints:
            w.write(1, f"- Addresses:\t{', '.join(as_str(a) for a in as_list(e.get('addresses'))) or '<none>'}\n")
            w.write(2, "Conditions:\n")
            ready = as_dict(e.get("conditions")).get("ready")
            w.write(3, f"Ready:\t{'<unset>' if ready is None else str(bool(ready)).lower()}\n")
            w.write(2, f"Hostname:\t{_unset(e.get('hostname'))}\n")
            target = e.get("targetRef")
            if isinstance(target, dict):
                w.write(2, f"TargetRef:\t{as_str(target.get('kind'))}/{as_str(target.get('name'))}\n")
            w.write(2, f"NodeName:\t{_unset(e.get('nodeName'))}\n")
            w.write(2, f"Zone:\t{_unset(e.get('zone'))}\n")
    parts.events(w, related.get("events"), now)
    return w


def _unset(value: Any) -> str:
    return "<unset>" if value is None else as_str(value)


def limitrange(obj: dict, related: dict, now) -> Writer:
    """No events: kubectl's limit range describer shows none."""
    w = Writer()
    _header(w, obj)
    _limit_header(w, "")
    _limit_range(w, obj, "")
    return w


_QUOTA_SCOPE_HELP = {
    "Terminating": "Matches all pods that have an active deadline. These pods have a limited lifespan on a node "
                   "before being actively terminated by the system.",
    "NotTerminating": "Matches all pods that do not have an active deadline. These pods usually include long "
                      "running pods whose container command is not expected to terminate.",
    "BestEffort": "Matches all pods that do not have resource requirements set. These pods have a best effort "
                  "quality of service.",
    "NotBestEffort": "Matches all pods that have at least one resource requirement set. These pods have a "
                     "burstable or guaranteed quality of service.",
}


def resourcequota(obj: dict, related: dict, now) -> Writer:
    """No events: kubectl's resource quota describer shows none."""
    w = Writer()
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    _header(w, obj)
    scopes = sorted(as_str(s) for s in as_list(spec.get("scopes")))
    if scopes:
        w.write(0, "Scopes:\t" + ", ".join(scopes) + "\n")
        for scope in scopes:
            if scope in _QUOTA_SCOPE_HELP:
                w.write(0, f" * {_QUOTA_SCOPE_HELP[scope]}\n")
    w.write(0, "Resource\tUsed\tHard\n")
    w.write(0, "--------\t----\t----\n")
    hard, used = as_dict(status.get("hard")), as_dict(status.get("used"))
    for name in sorted(hard):
        w.write(0, f"{name}\t{_used_like_hard(used.get(name), hard[name])}\t{as_str(hard[name])}\n")
    return w


def _used_like_hard(used: Any, hard: Any) -> str:
    """kubectl re-expresses a used amount written in another format than the hard limit (binary
    vs decimal suffixes) as the whole number of units in the hard limit's format."""
    import math

    used_text = "0" if used is None else as_str(used)
    if _quantity_format(used_text) == _quantity_format(as_str(hard)):
        return used_text
    value = parts.parse_quantity(used_text)
    if value is None:
        return used_text
    return _format_integer(math.ceil(value), _quantity_format(as_str(hard)))


def _quantity_format(text: str) -> str:
    if text.endswith(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")):
        return "BinarySI"
    if "e" in text.lower().lstrip("+-0123456789."):
        return "DecimalExponent"
    return "DecimalSI"


def _format_integer(value: int, fmt: str) -> str:
    """An integer in Kubernetes' canonical form for a format: the largest suffix dividing it."""
    if value == 0:
        return "0"
    base, suffixes = (1024, ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")) if fmt == "BinarySI" else \
        (1000, ("", "k", "M", "G", "T", "P", "E"))
    if fmt == "DecimalExponent":
        suffixes = ("", "e3", "e6", "e9", "e12", "e15", "e18")
    power = 0
    while power + 1 < len(suffixes) and value % base == 0:
        value //= base
        power += 1
    return f"{value}{suffixes[power]}"
