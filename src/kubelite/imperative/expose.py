"""`expose`: a Service in front of a Deployment, ReplicaSet, ReplicationController, Pod or Service.

What kubectl 1.32 derives from the exposed object (selector, ports, protocols, labels) and how it
builds the Service from the result. :class:`ExposeOptions` is deliberately carried from one exposed
object to the next: kubectl fills its flag values in place with what it derived from the first
object, so later objects of the same run reuse them.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ImperativeError
from .meta import head, object_meta

DNS1035_LABEL_MAX = 63

# (group, kind) pairs kubectl can expose
_EXPOSABLE = {("", "ReplicationController"), ("", "Service"), ("", "Pod"), ("apps", "Deployment"),
              ("apps", "ReplicaSet"), ("extensions", "Deployment"), ("extensions", "ReplicaSet")}
_POD_TEMPLATE_KINDS = frozenset({"ReplicationController", "Deployment", "ReplicaSet"})


@dataclass
class ExposeOptions:
    """The flags of kubectl expose, as strings (empty = not given)."""

    port: str = ""
    protocol: str = ""
    target_port: str = ""
    type: str = ""
    name: str = ""
    selector: str = ""
    labels: str = ""
    external_ip: str = ""
    load_balancer_ip: str = ""
    session_affinity: str = ""
    cluster_ip: str = ""
    # derived from the exposed object
    ports: str = ""
    protocols: str = ""
    default_name: str = ""


def group_kind_text(group: str, kind: str) -> str:
    """schema.GroupKind's String(): `StatefulSet.apps`, `ConfigMap`."""
    return f"{kind}.{group}" if group else kind


def check_exposable(group: str, kind: str) -> None:
    if (group, kind) not in _EXPOSABLE:
        raise ImperativeError(f"cannot expose a {group_kind_text(group, kind)}")


def _group(obj: dict) -> str:
    api_version = str(obj.get("apiVersion") or "")
    return api_version.rpartition("/")[0]


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def make_labels(labels: dict) -> str:
    """kubectl's MakeLabels: `k=v,k2=v2` (Go map order is random; sorted here)."""
    return ",".join(f"{k}={v}" for k, v in sorted((labels or {}).items()))


def _go_requirements(expressions: list) -> str:
    """A []LabelSelectorRequirement as Go's %+v prints it."""
    parts = []
    for e in expressions:
        e = _mapping(e)
        values = " ".join(str(v) for v in e.get("values") or [])
        parts.append(f"{{Key:{e.get('key', '')} Operator:{e.get('operator', '')} Values:[{values}]}}")
    return "[" + " ".join(parts) + "]"


def selector_for(obj: dict) -> str:
    """The map-based pod selector kubectl reads from an exposable object."""
    kind = obj.get("kind")
    spec = _mapping(obj.get("spec"))
    if kind == "ReplicationController":
        return make_labels(_mapping(spec.get("selector")))
    if kind == "Pod":
        labels = _mapping(_mapping(obj.get("metadata")).get("labels"))
        if not labels:
            raise ImperativeError("the pod has no labels and cannot be exposed")
        return make_labels(labels)
    if kind == "Service":
        if spec.get("selector") is None:
            raise ImperativeError("the service has no pod selector set")
        return make_labels(_mapping(spec.get("selector")))
    if kind in ("Deployment", "ReplicaSet"):
        return _workload_selector(obj, kind, spec)
    raise ImperativeError(f"cannot extract pod selector from {kind}")


def _workload_selector(obj: dict, kind: str, spec: dict) -> str:
    selector = spec.get("selector")
    expressions = _mapping(selector).get("matchExpressions") or []
    if _group(obj) == "extensions":  # the old groups fell back to the template's labels
        if selector is not None and expressions:
            raise ImperativeError(_expressions_error(expressions))
        labels = _mapping(selector).get("matchLabels") if selector is not None else \
            _mapping(_mapping(_mapping(spec.get("template")).get("metadata")).get("labels"))
        if not labels:
            what = "deployment" if kind == "Deployment" else "replica set"
            raise ImperativeError(f"the {what} has no labels or selectors and cannot be exposed")
        return make_labels(labels)
    match_labels = _mapping(_mapping(selector).get("matchLabels"))
    if not match_labels:
        raise ImperativeError(f"invalid {kind.lower()}: no selectors, therefore cannot be exposed")
    if expressions:
        raise ImperativeError(_expressions_error(expressions))
    return make_labels(match_labels)


def _expressions_error(expressions: list) -> str:
    return f'couldn\'t convert expressions - "{_go_requirements(expressions)}" to map-based selector format'


def _port_entries(obj: dict) -> list[tuple[str, str]]:
    """(port, protocol) of every container port (or service port), in order."""
    kind = obj.get("kind")
    spec = _mapping(obj.get("spec"))
    if kind == "Service":
        entries = [_mapping(p) for p in spec.get("ports") or []]
        return [(str(int(p.get("port") or 0)), p.get("protocol") or "TCP") for p in entries]
    if kind in _POD_TEMPLATE_KINDS:
        spec = _mapping(_mapping(spec.get("template")).get("spec"))
    entries = []
    for c in spec.get("containers") or []:
        for p in _mapping(c).get("ports") or []:
            p = _mapping(p)
            entries.append((str(int(p.get("containerPort") or 0)), p.get("protocol") or "TCP"))
    return entries


def ports_for(obj: dict) -> list[str]:
    """Distinct ports in order of first appearance."""
    seen: list[str] = []
    for port, _ in _port_entries(obj):
        if port not in seen:
            seen.append(port)
    return seen


def protocols_for(obj: dict) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for port, protocol in _port_entries(obj):
        found.setdefault(port, []).append(protocol)
    return found


def derive(opts: ExposeOptions, obj: dict, name: str) -> None:
    """Fill in what the flags left open from the exposed object (kubectl's RunExpose, per object)."""
    check_exposable(_group(obj), str(obj.get("kind") or ""))
    opts.default_name = name[:DNS1035_LABEL_MAX]
    if not opts.selector:
        try:
            opts.selector = selector_for(obj)
        except ImperativeError as err:
            raise ImperativeError(f"couldn't retrieve selectors via --selector flag or introspection: {err}") \
                from None
    if not opts.port:
        ports = ports_for(obj)
        if not ports and opts.cluster_ip != "None":
            raise ImperativeError("couldn't find port via --port flag or introspection")
        if len(ports) == 1:
            opts.port = ports[0]
        elif len(ports) > 1:
            opts.ports = ",".join(ports)
    protocols = ",".join(f"{port}/{p}" for port, values in protocols_for(obj).items() for p in values)
    if protocols:
        opts.protocols = protocols
    if not opts.labels:
        opts.labels = make_labels(_mapping(_mapping(obj.get("metadata")).get("labels")))


def _parse_labels(text: str) -> dict:
    from .meta import parse_selector_labels

    return parse_selector_labels(text)


def _parse_protocols(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for pair in text.split(","):
        parts = pair.split("/")
        if len(parts) != 2:
            raise ImperativeError(f"unexpected port protocol mapping: {pair}")
        if not parts[0]:
            raise ImperativeError("unexpected empty port")
        if not parts[1]:
            raise ImperativeError("unexpected empty protocol")
        found.setdefault(parts[0], []).append(parts[1])
    return found


def _go_atoi(text: str) -> int:
    from .validation import go_atoi

    value = go_atoi(text)
    if value is None:
        raise ImperativeError(f'strconv.Atoi: parsing "{text}": invalid syntax')
    return value


def _int_or_string(text: str) -> int | str:
    from .validation import go_atoi

    value = go_atoi(text)
    return text if value is None else value


def build_service(opts: ExposeOptions) -> dict:
    """The Service kubectl's createService makes from the (derived) options, in Go struct order."""
    if not opts.selector:
        raise ImperativeError("selector must be specified")
    selector = _parse_labels(opts.selector)
    labels = _parse_labels(opts.labels) if opts.labels else None
    name = opts.name or opts.default_name
    if not name:
        raise ImperativeError("name must be specified")
    by_port = _parse_protocols(opts.protocols) if opts.protocols else {}
    ports = _service_ports(opts.ports or opts.port, opts.protocol, by_port)
    for entry in ports:
        entry["targetPort"] = _int_or_string(opts.target_port) if opts.target_port else entry["port"]
    spec: dict = {}
    if ports:
        spec["ports"] = ports
    spec["selector"] = selector
    if opts.cluster_ip:
        spec["clusterIP"] = opts.cluster_ip
    if opts.type:
        spec["type"] = opts.type
    if opts.external_ip:
        spec["externalIPs"] = [opts.external_ip]
    if opts.session_affinity:
        if opts.session_affinity not in ("None", "ClientIP"):
            raise ImperativeError(f"unknown session affinity: {opts.session_affinity}")
        spec["sessionAffinity"] = opts.session_affinity
    if opts.type == "LoadBalancer" and opts.load_balancer_ip:
        spec["loadBalancerIP"] = opts.load_balancer_ip
    obj = head("v1", "Service", object_meta(name, None, labels))
    obj["spec"] = spec
    obj["status"] = {"loadBalancer": {}}
    return obj


def _service_ports(port_text: str, protocol: str, by_port: dict[str, list[str]]) -> list[dict]:
    if not port_text:
        return []
    texts = port_text.split(",")
    ports: list[dict] = []
    for i, text in enumerate(texts, start=1):
        number = _go_atoi(text)
        name = f"port-{i}" if len(texts) > 1 else ""
        chosen = protocol or "TCP"
        if not protocol and by_port and text in by_port:
            found = by_port[text]
            if len(found) > 1:
                ports.extend(_port(f"port-{i}-{p.lower()}", number, p) for p in found)
                continue
            chosen = found[0]
        ports.append(_port(name, number, chosen))
    return ports


def _port(name: str, number: int, protocol: str) -> dict:
    entry: dict = {"name": name} if name else {}
    entry["protocol"] = protocol
    entry["port"] = _int32(number)
    return entry


def _int32(value: int) -> int:
    """Go's int32(port): out-of-range numbers wrap."""
    return (value + 2**31) % 2**32 - 2**31
