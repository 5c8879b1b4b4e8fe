"""create namespace, serviceaccount, quota, poddisruptionbudget, priorityclass, ingress."""
from __future__ import annotations

import re

from .errors import ImperativeError
from .meta import head, object_meta


def create_namespace(name: str) -> dict:
    obj = head("v1", "Namespace", object_meta(name))
    obj["spec"] = {}
    obj["status"] = {}
    return obj


def create_service_account(name: str, *, namespace: str | None = None) -> dict:
    return head("v1", "ServiceAccount", object_meta(name, namespace))


def resource_list(spec: str) -> dict | None:
    """``cpu=1,pods=2`` -> ResourceList with canonical quantities (kubectl's populateResourceListV1)."""
    if not spec:
        return None
    from kubelite.quantity import QuantityError, canonical_quantity

    result = {}
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise ImperativeError(f"Invalid argument syntax {statement}, expected <resource>=<value>")
        try:
            result[parts[0]] = canonical_quantity(parts[1])
        except QuantityError as err:
            raise ImperativeError(str(err)) from None
    return result


def create_quota(name: str, *, hard: str = "", scopes: str = "", namespace: str | None = None) -> dict:
    if not name:
        raise ImperativeError("name must be specified")
    hard_list = resource_list(hard)
    scope_list = None
    if scopes:
        scope_list = scopes.split(",")
        if "" in scope_list:
            raise ImperativeError('invalid resource quota scope ""')
    obj = head("v1", "ResourceQuota", object_meta(name, namespace))
    spec: dict = {}
    if hard_list:
        spec["hard"] = hard_list
    if scope_list:
        spec["scopes"] = scope_list
    obj["spec"] = spec
    obj["status"] = {}
    return obj


def _int_or_string(text: str) -> int | str:
    """intstr.Parse: an int32 when the text is a whole number, else the string."""
    try:
        value = int(text, 10) if re.fullmatch(r"[+-]?[0-9]+", text) else None
    except ValueError:
        value = None
    if value is None or not -(2**31) <= value < 2**31:
        return text
    return value


def create_pod_disruption_budget(name: str, *, selector: str, min_available: str = "",
                                 max_unavailable: str = "", namespace: str | None = None) -> dict:
    if not name:
        raise ImperativeError("name must be specified")
    if not selector:
        raise ImperativeError("a selector must be specified")
    if not max_unavailable and not min_available:
        raise ImperativeError("one of min-available or max-unavailable must be specified")
    if max_unavailable and min_available:
        raise ImperativeError("min-available and max-unavailable cannot be both specified")
    pattern = re.compile(r"[0-9]+%?\Z")
    if min_available and not pattern.match(min_available):
        raise ImperativeError("invalid format specified for min-available")
    if max_unavailable and not pattern.match(max_unavailable):
        raise ImperativeError("invalid format specified for max-unavailable")
    from .selectors import parse_to_label_selector

    spec: dict = {}
    if min_available:
        spec["minAvailable"] = _int_or_string(min_available)
    spec["selector"] = parse_to_label_selector(selector)
    if max_unavailable:
        spec["maxUnavailable"] = _int_or_string(max_unavailable)
    obj = head("policy/v1", "PodDisruptionBudget", object_meta(name, namespace))
    obj["spec"] = spec
    obj["status"] = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
    return obj


def create_priority_class(name: str, *, value: int = 0, global_default: bool = False, description: str = "",
                          preemption_policy: str = "PreemptLowerPriority") -> dict:
    obj = head("scheduling.k8s.io/v1", "PriorityClass", object_meta(name))
    obj["value"] = value
    if global_default:
        obj["globalDefault"] = True
    if description:
        obj["description"] = description
    obj["preemptionPolicy"] = preemption_policy
    return obj


_RULE = re.compile(r"^(?P<host>[\w*\-.]*)(?P<path>/.*)=(?P<svcname>[\w\-]+):(?P<svcport>[\w\-]+)"
                   r"(,(?P<istls>tls)=?(?P<secretname>[\w\-]+)?)?", re.ASCII)


def _backend(service: str) -> dict:
    name, port = service.split(":")[0], service.split(":")[1]
    value = _int_or_string(port)
    return {"service": {"name": name, "port": {"number": value} if isinstance(value, int) else {"name": value}}}


def _path(pathsvc: str) -> dict:
    parts = pathsvc.split("=")
    path, service = "/" + parts[0], parts[1]
    path_type = "Exact"
    if path.endswith("*"):
        path_type, path = "Prefix", path[:-1]
    return {"path": path, "pathType": path_type, "backend": _backend(service)}


def _tls(rules: list[str]) -> list[dict]:
    seen: set[str] = set()
    out: list[dict] = []
    for rule in rules:
        parts = rule.split(",")
        if len(parts) != 2:
            continue
        host = rule.split("/", 1)[0]
        secret_parts = parts[1].split("=")
        secret = secret_parts[1] if len(secret_parts) > 1 else ""
        if host in seen:
            continue
        index = next((i for i, t in enumerate(out) if t.get("secretName", "") == secret), -1)
        seen.add(host)
        if index > -1:
            out[index].setdefault("hosts", []).append(host)
            continue
        entry: dict = {}
        if host:
            entry["hosts"] = [host]
        if secret:
            entry["secretName"] = secret
        if entry:
            out.append(entry)
    return out


def _rules(rules: list[str]) -> list[dict]:
    out: list[dict] = []
    for rule in rules:
        host, rest = rule.split(",")[0].split("/", 1)
        path = _path(rest)
        existing = next((r for r in out if r.get("host", "") == host), None)
        if existing is not None:
            existing["http"]["paths"].append(path)
            continue
        entry: dict = {"host": host} if host else {}
        entry["http"] = {"paths": [path]}
        out.append(entry)
    return out


def create_ingress(name: str, *, rules: list[str] = (), ingress_class: str = "", default_backend: str = "",
                   annotations: list[str] = (), namespace: str | None = None) -> dict:
    if not default_backend and not rules:
        raise ImperativeError("not enough information provided: every ingress has to either specify a "
                              "default-backend (which catches all traffic) or a list of rules (which catch "
                              "specific paths)")
    for rule in rules:
        if not _RULE.search(rule):
            raise ImperativeError(f"rule {rule} is invalid and should be in format "
                                  "host/path=svcname:svcport[,tls[=secret]]")
    for annotation in annotations:
        if "=" not in annotation:
            raise ImperativeError(f"annotation {annotation} is invalid and should be in format key=[value]")
    if default_backend and len(default_backend.split(":")) != 2:
        raise ImperativeError("default-backend should be in format servicename:serviceport")
    notes = dict(a.split("=", 1) for a in annotations)
    spec: dict = {}
    if ingress_class:
        spec["ingressClassName"] = ingress_class
    if default_backend:
        spec["defaultBackend"] = _backend(default_backend)
    tls = _tls(list(rules))
    if tls:
        spec["tls"] = tls
    ingress_rules = _rules(list(rules))
    if ingress_rules:
        spec["rules"] = ingress_rules
    obj = head("networking.k8s.io/v1", "Ingress", object_meta(name, namespace, annotations=notes))
    obj["spec"] = spec
    obj["status"] = {"loadBalancer": {}}
    return obj
