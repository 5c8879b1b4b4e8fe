"""Service, Ingress and IngressClass validation."""

from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.server.admission.field import GoRepr, Path, go_quote
from kubelite.server.admission.validation_common import Causes, _dicts, _map
from kubelite.server.admission.validation_meta import validate_labels
from kubelite.server.admission.validation_pods import _PORT_PROTOCOLS


_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")


def _go_service_port_key(port: dict) -> GoRepr:
    return GoRepr(
        'core.ServicePort{Name:"", Protocol:' + go_quote(port.get("protocol") or "")
        + ", AppProtocol:(*string)(nil), Port:" + str(port.get("port") or 0)
        + ', TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'
    )


def _service(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    ports = _dicts(spec.get("ports"))
    svc_type = spec.get("type") or ""
    headless = spec.get("clusterIP") == "None"
    if not ports and not headless and svc_type != "ExternalName":
        errs.append(F.required(path.child("ports"), ""))
    if svc_type == "LoadBalancer" and headless:
        errs.append(F.invalid(path.child("clusterIP"), "None", "may not be set to 'None' for LoadBalancer services"))
    if svc_type == "NodePort" and headless:
        errs.append(F.invalid(path.child("clusterIP"), "None", "may not be set to 'None' for NodePort services"))
    if svc_type == "ExternalName":
        if spec.get("clusterIPs"):
            errs.append(F.forbidden(path.child("clusterIPs"), "may not be set for ExternalName services"))
        cname = (spec.get("externalName") or "").removesuffix(".")
        if cname:
            errs += [F.invalid(path.child("externalName"), cname, m) for m in N.is_dns1123_subdomain(cname)]
        else:
            errs.append(F.required(path.child("externalName"), ""))
    names: set = set()
    for i, port in enumerate(ports):
        pp = path.child("ports").index(i)
        name = port.get("name") or ""
        if len(ports) > 1 and not name:
            errs.append(F.required(pp.child("name"), ""))
        elif name:
            errs += [F.invalid(pp.child("name"), name, m) for m in N.is_dns1123_label(name)]
            if name in names:
                errs.append(F.duplicate(pp.child("name"), name))
            names.add(name)
        errs += [F.invalid(pp.child("port"), port.get("port") or 0, m) for m in N.is_valid_port_num(port.get("port") or 0)]
        protocol = port.get("protocol") or ""
        if not protocol:
            errs.append(F.required(pp.child("protocol"), ""))
        elif protocol not in _PORT_PROTOCOLS:
            errs.append(F.not_supported(pp.child("protocol"), protocol, _PORT_PROTOCOLS))
        target = port.get("targetPort")
        if isinstance(target, str):
            errs += [F.invalid(pp.child("targetPort"), target, m) for m in N.is_valid_port_name(target)]
        elif isinstance(target, int):
            errs += [F.invalid(pp.child("targetPort"), target, m) for m in N.is_valid_port_num(target)]
    if spec.get("selector") is not None:
        errs += validate_labels(spec.get("selector"), path.child("selector"))
    affinity = spec.get("sessionAffinity") or ""
    if not affinity:
        errs.append(F.required(path.child("sessionAffinity"), ""))
    elif affinity not in ("ClientIP", "None"):
        errs.append(F.not_supported(path.child("sessionAffinity"), affinity, ("ClientIP", "None")))
    elif affinity == "None" and spec.get("sessionAffinityConfig") is not None:
        errs.append(F.forbidden(path.child("sessionAffinityConfig"), "must not be set when session affinity is None"))
    if not svc_type:
        errs.append(F.required(path.child("type"), ""))
    elif svc_type not in _SERVICE_TYPES:
        errs.append(F.not_supported(path.child("type"), svc_type, _SERVICE_TYPES))
    if svc_type == "ClusterIP":
        for i, port in enumerate(ports):
            if port.get("nodePort"):
                errs.append(F.forbidden(path.child("ports").index(i).child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
    node_ports: set = set()
    for i, port in enumerate(ports):
        if not port.get("nodePort"):
            continue
        key = (port.get("protocol"), port["nodePort"])
        if key in node_ports:
            errs.append(F.duplicate(path.child("ports").index(i).child("nodePort"), port["nodePort"]))
        node_ports.add(key)
    seen: set = set()
    for i, port in enumerate(ports):
        key = (port.get("protocol"), port.get("port"))
        if key in seen:
            errs.append(F.duplicate(path.child("ports").index(i), _go_service_port_key(port)))
        seen.add(key)
    return errs


def _ingress(obj: dict) -> Causes:
    errs: Causes = []
    path = Path("spec")
    for i, rule in enumerate(_dicts(_map(obj.get("spec")).get("rules"))):
        for j, http_path in enumerate(_dicts(_map(rule.get("http")).get("paths"))):
            pp = path.child("rules").index(i).child("http", "paths").index(j)
            path_type = http_path.get("pathType")
            if not path_type:
                errs.append(F.required(pp.child("pathType"), "pathType must be specified"))
            elif path_type not in ("Exact", "ImplementationSpecific", "Prefix"):
                errs.append(F.not_supported(pp.child("pathType"), path_type, ("Exact", "ImplementationSpecific", "Prefix")))
    return errs


def _ingress_class(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    if not spec.get("controller"):
        return [F.required(Path("spec").child("controller"), "")]
    return []
