"""Admission plugins that need cluster state, as pure functions.

The caller (the HTTP/registry layer) looks up what each plugin needs and
passes it in: the namespace's ServiceAccount, PriorityClasses, LimitRanges,
the IPs and node ports already in use.  Every function returns a new object
(or raises :class:`~kubelite.server.errors.StatusError`).

Service addressing: the default service CIDR is ``10.0.0.0/24`` — kube-apiserver's
own default and the range of the recorded reference server, so recorded error
messages match — and the ``kubernetes`` Service takes its first address
(``10.0.0.1``).  Node ports come from 30000-32767.  Another range is
kube-apiserver's ``--service-cluster-ip-range`` (``service_cidr`` checks it);
pass ``cidr=`` to allocate from it (None: the default range).
"""

from __future__ import annotations

from kubelite.jsoncopy import clone
import functools
import ipaddress
import random

from kubelite.server import errors
from kubelite.server.admission import field

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Iterable, Mapping

__all__ = [
    "DEFAULT_SERVICE_CIDR",
    "NODE_PORT_RANGE",
    "SERVICE_ACCOUNT_MOUNT_PATH",
    "admit_pod",
    "apply_service_account",
    "apply_default_tolerations",
    "apply_priority",
    "apply_limit_ranges",
    "allocate_cluster_ip",
    "allocate_node_ports",
    "kubernetes_service_ip",
    "service_cidr",
]

DEFAULT_SERVICE_CIDR = "10.0.0.0/24"
_MAX_SERVICE_HOST_BITS = 20  # kube-apiserver's limit on the range's size (an IPv4 mask of at least /12)
_DRAWS = 32  # random draws before a cluster-IP allocation lists the free addresses
NODE_PORT_RANGE = (30000, 32767)
SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
DEFAULT_TOLERATION_SECONDS = 300


def _random_suffix(rng: random.Random | None = None, length: int = 5) -> str:
    # The alphabet kube-apiserver's name generator uses (no vowels, no 0/1/3).
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    chooser = rng or random.SystemRandom()
    return "".join(chooser.choice(alphabet) for _ in range(length))


# --- Pods ----------------------------------------------------------------------


def apply_service_account(
    pod: dict, service_account: Mapping | None, *, volume_suffix: str | None = None
) -> dict:
    """ServiceAccount admission: default SA name, token volume and mounts.

    ``service_account`` is the ServiceAccount object the pod names (``None``
    if it does not exist: the pod is rejected with 403, as kube-apiserver
    does even when automounting is off).
    """
    out = clone(pod)
    _service_account(out, service_account, volume_suffix)
    return out


def _service_account(out: dict, service_account: Mapping | None, volume_suffix: str | None) -> None:
    meta = out.get("metadata") or {}
    spec = out.setdefault("spec", {})
    sa_name = spec.get("serviceAccountName") or "default"
    spec["serviceAccountName"] = sa_name
    spec["serviceAccount"] = sa_name
    if service_account is None:
        namespace = meta.get("namespace", "")
        # kube-apiserver runs this admission before it generates a name: the refusal names the
        # prefix (`pods "web-7d4b9c-" is forbidden`), so a controller's refusals all read alike.
        name = meta.get("name", "")
        prefix = meta.get("generateName") or ""
        if prefix and name.startswith(prefix) and len(name) == len(prefix) + 5:
            name = prefix
        raise errors.forbidden(
            "",
            "pods",
            name,
            f"error looking up service account {namespace}/{sa_name}: "
            f'serviceaccount "{sa_name}" not found',
        )
    automount = spec.get("automountServiceAccountToken")
    if automount is None:
        automount = service_account.get("automountServiceAccountToken")
    if automount is False:
        return
    containers = [
        c
        for key in ("initContainers", "containers")
        for c in spec.get(key) or []
        if isinstance(c, dict)
    ]
    if any(
        m.get("mountPath") == SERVICE_ACCOUNT_MOUNT_PATH
        for c in containers
        for m in c.get("volumeMounts") or []
        if isinstance(m, dict)
    ):
        return
    volume_name = "kube-api-access-" + (volume_suffix or _random_suffix())
    spec.setdefault("volumes", [])
    spec["volumes"] = list(spec["volumes"] or []) + [
        {
            "name": volume_name,
            "projected": {
                "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {
                        "configMap": {
                            "name": "kube-root-ca.crt",
                            "items": [{"key": "ca.crt", "path": "ca.crt"}],
                        }
                    },
                    {
                        "downwardAPI": {
                            "items": [
                                {
                                    "path": "namespace",
                                    "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                }
                            ]
                        }
                    },
                ],
                "defaultMode": 420,
            },
        }
    ]
    for container in containers:
        mounts = list(container.get("volumeMounts") or [])
        mounts.append({"name": volume_name, "readOnly": True, "mountPath": SERVICE_ACCOUNT_MOUNT_PATH})
        container["volumeMounts"] = mounts


def apply_default_tolerations(pod: dict, seconds: int = DEFAULT_TOLERATION_SECONDS) -> dict:
    """DefaultTolerationSeconds: tolerate not-ready/unreachable for 300 s."""
    out = clone(pod)
    _default_tolerations(out, seconds)
    return out


def _default_tolerations(out: dict, seconds: int) -> None:
    spec = out.setdefault("spec", {})
    tolerations = list(spec.get("tolerations") or [])
    for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
        covered = any(
            isinstance(t, dict)
            and t.get("key", "") in (key, "")
            and t.get("effect", "") in ("NoExecute", "")
            for t in tolerations
        )
        if not covered:
            tolerations.append(
                {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
            )
    spec["tolerations"] = tolerations


def apply_priority(pod: dict, priority_classes: Iterable[Mapping] = ()) -> dict:
    """Priority admission: resolve priorityClassName to priority/preemptionPolicy."""
    out = clone(pod)
    _priority(out, priority_classes)
    return out


def _priority(out: dict, priority_classes: Iterable[Mapping]) -> None:
    spec = out.setdefault("spec", {})
    classes = {c.get("metadata", {}).get("name"): c for c in priority_classes}
    name = spec.get("priorityClassName")
    if not name:
        default = next((c for c in classes.values() if c.get("globalDefault")), None)
        if default is None:
            spec.setdefault("priority", 0)
            spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
            return
        name = default["metadata"]["name"]
        spec["priorityClassName"] = name
    if name in SYSTEM_PRIORITY_CLASSES and name not in classes:
        value, policy = SYSTEM_PRIORITY_CLASSES[name], "PreemptLowerPriority"
    elif name in classes:
        value = classes[name].get("value", 0)
        policy = classes[name].get("preemptionPolicy") or "PreemptLowerPriority"
    else:
        meta = out.get("metadata") or {}
        raise errors.forbidden(
            "", "pods", meta.get("name", ""), f"no PriorityClass with name {name} was found"
        )
    spec["priority"] = value
    spec.setdefault("preemptionPolicy", policy)


def _merge_container_defaults(container: dict, item: Mapping) -> tuple[list[str], list[str]]:
    resources = container.setdefault("resources", {})
    set_requests: list[str] = []
    set_limits: list[str] = []
    for name, value in sorted((item.get("defaultRequest") or {}).items()):
        requests = resources.setdefault("requests", {})
        if name not in requests:
            requests[name] = value
            set_requests.append(name)
    for name, value in sorted((item.get("default") or {}).items()):
        limits = resources.setdefault("limits", {})
        if name not in limits:
            limits[name] = value
            set_limits.append(name)
    return set_requests, set_limits


def apply_limit_ranges(pod: dict, limit_ranges: Iterable[Mapping]) -> dict:
    """LimitRanger defaults for a Pod (limits/requests of Container items).

    Each LimitRange in turn fills missing container defaults and rewrites the
    ``kubernetes.io/limit-ranger`` annotation, so the annotation only names
    what the last LimitRange set (as kube-apiserver does).  Enforcement of
    min/max is not done here.
    """
    out = clone(pod)
    _limit_ranges(out, limit_ranges)
    return out


def _limit_ranges(out: dict, limit_ranges: Iterable[Mapping]) -> None:
    spec = out.setdefault("spec", {})
    for limit_range in limit_ranges:
        notes: list[str] = []
        for item in (limit_range.get("spec") or {}).get("limits") or []:
            if item.get("type") != "Container":
                continue
            for key, label in (("initContainers", "init container"), ("containers", "container")):
                for container in spec.get(key) or []:
                    requests, limits = _merge_container_defaults(container, item)
                    name = container.get("name", "")
                    if requests:
                        notes.append(f"{', '.join(requests)} request for {label} {name}")
                    if limits:
                        notes.append(f"{', '.join(limits)} limit for {label} {name}")
        if notes:
            annotations = out.setdefault("metadata", {}).setdefault("annotations", {})
            annotations["kubernetes.io/limit-ranger"] = "LimitRanger plugin set: " + "; ".join(notes)


def admit_pod(
    pod: dict,
    *,
    service_account: Mapping | None,
    priority_classes: Iterable[Mapping] = (),
    limit_ranges: Iterable[Mapping] = (),
    volume_suffix: str | None = None,
    copy: bool = True,
) -> dict:
    """All mutating Pod admission in kube-apiserver's plugin order (copy=False: `pod` is the
    caller's private copy, changed where it is)."""
    out = clone(pod) if copy else pod  # one copy: each plugin changes it in turn
    _limit_ranges(out, limit_ranges)
    _service_account(out, service_account, volume_suffix)
    _default_tolerations(out, DEFAULT_TOLERATION_SECONDS)
    _priority(out, priority_classes)
    return out


# --- Services ----------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def kubernetes_service_ip(cidr: str | None = None) -> str:
    """The first address of the range (None: the default), reserved for the ``kubernetes`` Service."""
    return str(_network(cidr or DEFAULT_SERVICE_CIDR)[1])


@functools.lru_cache(maxsize=16)
def _network(cidr: str):
    # Parsed once: every Service created asks (ipaddress's parse is ~5 us); the object is not changed.
    return ipaddress.ip_network(cidr)


def service_cidr(text: str, flag: str = "--service-cluster-ip-range") -> str:
    """The range a Service's address comes from, as kube-apiserver's flag takes it (an address in
    it may stand for its network: 10.96.0.5/16 is 10.96.0.0/16). Raises ValueError for what
    kube-apiserver refuses (naming `flag` where it does), and for what this server does not do:
    IPv6 or dual-stack ranges, whose Services would need other IP families."""
    text = text.strip()
    if not text:
        raise ValueError(f"a CIDR such as {DEFAULT_SERVICE_CIDR} is needed")
    if "," in text:
        raise ValueError(f"{text}: dual-stack ranges are not supported (one IPv4 range)")
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"{text}: not a CIDR (such as {DEFAULT_SERVICE_CIDR})") from None
    bits = network.max_prefixlen
    if bits - network.prefixlen > _MAX_SERVICE_HOST_BITS:
        raise ValueError(f"specified {flag} is too large; for {bits}-bit addresses, the mask must be "
                         f">= {bits - _MAX_SERVICE_HOST_BITS}")
    if network.version != 4:
        raise ValueError(f"{text}: only an IPv4 range is supported")
    if network.prefixlen > 30:
        raise ValueError(f"{text}: too small: it must hold the kubernetes Service's address and "
                         "another Service's (a mask of at most /30)")
    return str(network)


def _clusterip_error(name: str, ip: str, detail: str) -> errors.StatusError:
    cause = field.invalid("spec.clusterIPs", field.GoRepr(f'[]string{{"{ip}"}}'), detail)
    return errors.invalid("", "Service", name, [cause])


def allocate_cluster_ip(
    service: dict,
    used: Iterable[str],
    *,
    cidr: str | None = None,
    rng: random.Random | None = None,
    copy: bool = True,
) -> dict:
    """Give a new Service its clusterIP(s) and IP family fields.

    ``used`` holds the addresses already taken.  ExternalName and headless
    Services get no address.  A requested address must lie in ``cidr`` and
    be free (422 otherwise, with kube-apiserver's wording). copy=False: the
    caller's private object is given its address where it is.
    """
    out = clone(service) if copy else service
    spec = out.setdefault("spec", {})
    name = (out.get("metadata") or {}).get("name", "")
    if spec.get("type") == "ExternalName":
        return out
    if spec.get("clusterIP") == "None":
        spec["clusterIPs"] = ["None"]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        return out
    cidr = cidr or DEFAULT_SERVICE_CIDR
    network = _network(cidr)
    taken = set(map(str, used))  # in C: `used` holds every other Service's address
    wanted = spec.get("clusterIP") or (spec.get("clusterIPs") or [None])[0]
    if wanted:
        try:
            address = ipaddress.ip_address(wanted)
        except ValueError:
            address = None
        if address is None or address not in network or address in (
            network.network_address,
            network.broadcast_address,
        ):
            raise _clusterip_error(
                name,
                wanted,
                f"failed to allocate IP {wanted}: the provided IP ({wanted}) is not in the valid "
                f"range. The range of valid IPs is {cidr}",
            )
        if str(address) in taken:
            raise _clusterip_error(
                name, wanted, f"failed to allocate IP {wanted}: provided IP is already allocated"
            )
        chosen = str(address)
    else:
        # .1 is for `kubernetes`.
        chosen = _free_address(network, taken | {kubernetes_service_ip(cidr)}, rng or random.SystemRandom())
    spec["clusterIP"] = chosen
    spec["clusterIPs"] = [chosen]
    spec.setdefault("ipFamilies", ["IPv4"])
    spec.setdefault("ipFamilyPolicy", "SingleStack")
    return out


def _free_address(network, reserved: set[str], rng: random.Random) -> str:
    """A random free host address of `network` (its first and last are never handed out).

    Drawing then checking keeps every free address equally likely without listing the range
    for each Service; a range that is nearly full is listed."""
    first, last = int(network.network_address) + 1, int(network.broadcast_address) - 1
    make = type(network.network_address)
    for _ in range(_DRAWS if first <= last else 0):
        address = str(make(rng.randint(first, last)))
        if address not in reserved:
            return address
    candidates = [str(ip) for ip in network.hosts() if str(ip) not in reserved]
    if not candidates:
        raise errors.internal_error("failed to allocate a serviceIP: range is full")
    return rng.choice(candidates)


def allocate_node_ports(
    service: dict,
    used: Iterable[int],
    *,
    port_range: tuple[int, int] = NODE_PORT_RANGE,
    rng: random.Random | None = None,
) -> dict:
    """Assign nodePorts (NodePort/LoadBalancer) and healthCheckNodePort.

    Requested ports must be in range and free (422 otherwise).
    """
    out = clone(service)
    spec = out.setdefault("spec", {})
    svc_type = spec.get("type")
    name = (out.get("metadata") or {}).get("name", "")
    taken = set(used)
    low, high = port_range
    chooser = rng or random.SystemRandom()

    def take(path: str, requested: int | None) -> int:
        if requested:
            if not low <= requested <= high:
                raise errors.invalid(
                    "",
                    "Service",
                    name,
                    [
                        field.invalid(
                            path,
                            requested,
                            "provided port is not in the valid range. "
                            f"The range of valid ports is {low}-{high}",
                        )
                    ],
                )
            if requested in taken:
                raise errors.invalid(
                    "", "Service", name, [field.invalid(path, requested, "provided port is already allocated")]
                )
            taken.add(requested)
            return requested
        free = [p for p in range(low, high + 1) if p not in taken]
        if not free:
            raise errors.internal_error("failed to allocate a nodePort: range is full")
        port = chooser.choice(free)
        taken.add(port)
        return port

    wants_ports = svc_type == "NodePort" or (
        svc_type == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts", True) is not False
    )
    for i, port in enumerate(spec.get("ports") or []):
        if wants_ports or port.get("nodePort"):
            if svc_type in ("NodePort", "LoadBalancer"):
                port["nodePort"] = take(f"spec.ports[{i}].nodePort", port.get("nodePort"))
    if svc_type == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local":
        spec["healthCheckNodePort"] = take("spec.healthCheckNodePort", spec.get("healthCheckNodePort"))
    return out
