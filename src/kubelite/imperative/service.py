"""create service clusterip|nodeport|loadbalancer|externalname."""
from __future__ import annotations

from .errors import ImperativeError
from .meta import head, object_meta
from .validation import dns1123_subdomain_errors, go_atoi, go_parse_uint16, port_name_errors, port_num_errors

SERVICE_TYPES = {"clusterip": "ClusterIP", "nodeport": "NodePort", "loadbalancer": "LoadBalancer",
                 "externalname": "ExternalName"}


def validate_service(service_type: str, tcp: list[str], cluster_ip: str = "", external_name: str = "") -> None:
    if cluster_ip == "None" and service_type != "ClusterIP":
        raise ImperativeError("ClusterIP=None can only be used with ClusterIP service type")
    if cluster_ip != "None" and not tcp and service_type != "ExternalName":
        raise ImperativeError("at least one tcp port specifier must be provided")
    if service_type == "ExternalName" and dns1123_subdomain_errors(external_name):
        raise ImperativeError(f"invalid service external name {external_name}")


def parse_port_pair(text: str) -> tuple[int, int | str]:
    """``port[:targetPort]`` -> (port, targetPort); targetPort may be a port name."""
    parts = text.split(":")
    try:
        port = go_parse_uint16(parts[0])
    except ValueError as err:
        raise ImperativeError(str(err)) from None
    if len(parts) == 1:
        return port, port
    number = go_atoi(parts[1])
    if number is None:
        errs = port_name_errors(parts[1])
        if errs:
            raise ImperativeError(",".join(errs))
        return port, parts[1]
    errs = port_num_errors(number)
    if errs:
        raise ImperativeError(",".join(errs))
    return port, number


def create_service(name: str, service_type: str, tcp: list[str], *, cluster_ip: str = "",
                   node_port: int = 0, external_name: str = "", namespace: str | None = None) -> dict:
    """``service_type`` is the API spelling (ClusterIP, NodePort, LoadBalancer, ExternalName)."""
    validate_service(service_type, tcp, cluster_ip, external_name)
    ports = []
    for spec in tcp:
        port, target = parse_port_pair(spec)
        entry = {"name": spec.replace(":", "-"), "protocol": "TCP", "port": port, "targetPort": target}
        if node_port:
            entry["nodePort"] = node_port
        ports.append(entry)
    labels = {"app": name}
    spec: dict = {}
    if ports:
        spec["ports"] = ports
    spec["selector"] = dict(labels)
    if cluster_ip:
        spec["clusterIP"] = cluster_ip
    spec["type"] = service_type
    if external_name:
        spec["externalName"] = external_name
    obj = head("v1", "Service", object_meta(name, namespace, labels))
    obj["spec"] = spec
    obj["status"] = {"loadBalancer": {}}
    return obj
