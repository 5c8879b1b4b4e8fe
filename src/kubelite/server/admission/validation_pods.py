"""Pod spec validation: containers, ports, env, volumes, resources; Pod and PodTemplate."""

from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.quantity import QuantityError, canonical_quantity, quantity_value
from kubelite.server.admission.field import Path
from kubelite.server.admission.validation_common import Causes, MAX_INT32, _dicts, _map
from kubelite.server.admission.validation_meta import validate_annotations, validate_labels

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any, Iterable


_VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs",
    "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
    "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
    "image",
)

_PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")

_RESTART_POLICIES = ("Always", "OnFailure", "Never")

_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")

_PULL_POLICIES = ("Always", "IfNotPresent", "Never")

_OVERCOMMIT_FORBIDDEN_PREFIXES = ("hugepages-",)


def _validate_volumes(volumes: Any, path: Path) -> tuple[Causes, set]:
    errs: Causes = []
    seen: set = set()
    for i, volume in enumerate(_dicts(volumes)):
        vp = path.index(i)
        name = volume.get("name") or ""
        if not name:
            errs.append(F.required(vp.child("name"), ""))
        else:
            for msg in N.is_dns1123_label(name):
                errs.append(F.invalid(vp.child("name"), name, msg))
            if name in seen:
                errs.append(F.duplicate(vp.child("name"), name))
        sources = [s for s in _VOLUME_SOURCES if volume.get(s) is not None]
        if not sources:
            errs.append(F.required(vp, "must specify a volume type"))
        elif len(sources) > 1:
            errs.append(F.forbidden(vp.child(sources[1]), "may not specify more than 1 volume type"))
        if name:
            seen.add(name)
    return errs, seen


def _validate_ports(ports: Any, path: Path) -> Causes:
    errs: Causes = []
    names: set = set()
    for i, port in enumerate(_dicts(ports)):
        pp = path.index(i)
        name = port.get("name")
        if name:
            msgs = N.is_valid_port_name(name)
            if msgs:
                errs += [F.invalid(pp.child("name"), name, m) for m in msgs]
            elif name in names:
                errs.append(F.duplicate(pp.child("name"), name))
            else:
                names.add(name)
        container_port = port.get("containerPort") or 0
        if container_port == 0:
            errs.append(F.required(pp.child("containerPort"), ""))
        else:
            errs += [F.invalid(pp.child("containerPort"), container_port, m) for m in N.is_valid_port_num(container_port)]
        host_port = port.get("hostPort") or 0
        if host_port:
            errs += [F.invalid(pp.child("hostPort"), host_port, m) for m in N.is_valid_port_num(host_port)]
        protocol = port.get("protocol") or ""
        if not protocol:
            errs.append(F.required(pp.child("protocol"), ""))
        elif protocol not in _PORT_PROTOCOLS:
            errs.append(F.not_supported(pp.child("protocol"), protocol, _PORT_PROTOCOLS))
    return errs


def _validate_env(env: Any, path: Path) -> Causes:
    errs: Causes = []
    for i, var in enumerate(_dicts(env)):
        ep = path.index(i)
        name = var.get("name") or ""
        if not name:
            errs.append(F.required(ep.child("name"), ""))
        elif any(not (32 <= ord(ch) <= 126) or ch == "=" for ch in name):
            errs.append(
                F.invalid(
                    ep.child("name"),
                    name,
                    "a valid environment variable name must consist only of printable ASCII characters other than '='",
                )
            )
    return errs


def _validate_volume_mounts(mounts: Any, volumes: set, path: Path) -> Causes:
    errs: Causes = []
    seen_paths: set = set()
    for i, mount in enumerate(_dicts(mounts)):
        mp = path.index(i)
        name = mount.get("name") or ""
        if not name:
            errs.append(F.required(mp.child("name"), ""))
        elif name not in volumes:
            errs.append(F.not_found(mp.child("name"), name))
        mount_path = mount.get("mountPath") or ""
        if not mount_path:
            errs.append(F.required(mp.child("mountPath"), ""))
        elif mount_path in seen_paths:
            errs.append(F.invalid(mp.child("mountPath"), mount_path, "must be unique"))
        seen_paths.add(mount_path)
    return errs


def _quantity_text(value: Any) -> str:
    try:
        return canonical_quantity(value)
    except QuantityError:
        return str(value)


def _validate_resources(resources: Any, path: Path) -> Causes:
    errs: Causes = []
    resources = _map(resources)
    limits = _map(resources.get("limits"))
    requests = _map(resources.get("requests"))
    for kind, values in (("limits", limits), ("requests", requests)):
        for name, value in sorted(values.items()):
            rp = path.child(kind).key(name)
            for msg in N.is_qualified_name(name):
                errs.append(F.invalid(rp, name, msg))
            try:
                if quantity_value(value) < 0:
                    errs.append(F.invalid(rp, _quantity_text(value), "must be greater than or equal to 0"))
            except QuantityError:
                continue
            if kind != "requests" or name not in limits:
                continue
            try:
                request, limit = quantity_value(value), quantity_value(limits[name])
            except QuantityError:
                continue
            if request != limit and name.startswith(_OVERCOMMIT_FORBIDDEN_PREFIXES):
                errs.append(
                    F.invalid(
                        path.child("requests"),
                        _quantity_text(value),
                        f"must be equal to {name} limit of {_quantity_text(limits[name])}",
                    )
                )
            elif request > limit:
                errs.append(
                    F.invalid(
                        path.child("requests"),
                        _quantity_text(value),
                        f"must be less than or equal to {name} limit of {_quantity_text(limits[name])}",
                    )
                )
    return errs


def _validate_container_common(container: dict, volumes: set, path: Path) -> Causes:
    errs: Causes = []
    name = container.get("name") or ""
    if not name:
        errs.append(F.required(path.child("name"), ""))
    else:
        errs += [F.invalid(path.child("name"), name, m) for m in N.is_dns1123_label(name)]
    if not container.get("image"):
        errs.append(F.required(path.child("image"), ""))
    policy = container.get("terminationMessagePolicy") or ""
    if not policy:
        errs.append(F.required(path.child("terminationMessagePolicy"), ""))
    elif policy not in ("File", "FallbackToLogsOnError"):
        errs.append(F.not_supported(path.child("terminationMessagePolicy"), policy, ("File", "FallbackToLogsOnError")))
    errs += _validate_ports(container.get("ports"), path.child("ports"))
    errs += _validate_env(container.get("env"), path.child("env"))
    errs += _validate_volume_mounts(container.get("volumeMounts"), volumes, path.child("volumeMounts"))
    pull = container.get("imagePullPolicy") or ""
    if not pull:
        errs.append(F.required(path.child("imagePullPolicy"), ""))
    elif pull not in _PULL_POLICIES:
        errs.append(F.not_supported(path.child("imagePullPolicy"), pull, _PULL_POLICIES))
    errs += _validate_resources(container.get("resources"), path.child("resources"))
    return errs


def _validate_containers(containers: Any, volumes: set, path: Path) -> Causes:
    containers = _dicts(containers)
    if not containers:
        return [F.required(path, "")]
    errs: Causes = []
    names: set = set()
    for i, container in enumerate(containers):
        cp = path.index(i)
        errs += _validate_container_common(container, volumes, cp)
        name = container.get("name") or ""
        if name in names:
            errs.append(F.duplicate(cp.child("name"), name))
        else:
            names.add(name)
        if container.get("restartPolicy") is not None:
            errs.append(F.forbidden(cp.child("restartPolicy"), "may not be set for non-init containers"))
    return errs


def _validate_init_containers(containers: Any, regular: Any, volumes: set, path: Path) -> Causes:
    errs: Causes = []
    names = {c.get("name") for c in _dicts(regular)}
    for i, container in enumerate(_dicts(containers)):
        cp = path.index(i)
        errs += _validate_container_common(container, volumes, cp)
        name = container.get("name") or ""
        if name in names:
            errs.append(F.duplicate(cp.child("name"), name))
        else:
            names.add(name)
        policy = container.get("restartPolicy")
        if policy is not None and policy != "Always":
            errs.append(F.not_supported(cp.child("restartPolicy"), policy, ("Always",)))
    return errs


def validate_pod_spec(spec: Any, path: Path, extra_volumes: Iterable[str] = ()) -> Causes:
    spec = _map(spec)
    errs, volumes = _validate_volumes(spec.get("volumes"), path.child("volumes"))
    volumes |= set(extra_volumes)
    errs += _validate_containers(spec.get("containers"), volumes, path.child("containers"))
    errs += _validate_init_containers(
        spec.get("initContainers"), spec.get("containers"), volumes, path.child("initContainers")
    )
    restart = spec.get("restartPolicy") or ""
    if not restart:
        errs.append(F.required(path.child("restartPolicy"), ""))
    elif restart not in _RESTART_POLICIES:
        errs.append(F.not_supported(path.child("restartPolicy"), restart, _RESTART_POLICIES))
    dns = spec.get("dnsPolicy") or ""
    if not dns:
        errs.append(F.required(path.child("dnsPolicy"), ""))
    elif dns not in _DNS_POLICIES:
        errs.append(F.not_supported(path.child("dnsPolicy"), dns, _DNS_POLICIES))
    errs += validate_labels(spec.get("nodeSelector"), path.child("nodeSelector"))
    sa = spec.get("serviceAccountName")
    if sa:
        errs += [F.invalid(path.child("serviceAccountName"), sa, m) for m in N.is_dns1123_subdomain(sa)]
    node = spec.get("nodeName")
    if node:
        errs += [F.invalid(path.child("nodeName"), node, m) for m in N.is_dns1123_subdomain(node)]
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= MAX_INT32:
        errs.append(F.invalid(path.child("activeDeadlineSeconds"), deadline, N.inclusive_range_error(1, MAX_INT32)))
    for key in ("hostname", "subdomain"):
        value = spec.get(key)
        if value:
            errs += [F.invalid(path.child(key), value, m) for m in N.is_dns1123_label(value)]
    priority_class = spec.get("priorityClassName")
    if priority_class:
        errs += [
            F.invalid(path.child("priorityClassName"), priority_class, m)
            for m in N.is_dns1123_subdomain(priority_class)
        ]
    return errs


def validate_pod_template(template: Any, path: Path, extra_volumes: Iterable[str] = ()) -> Causes:
    template = _map(template)
    meta = _map(template.get("metadata"))
    errs = validate_labels(meta.get("labels"), path.child("metadata", "labels"))
    errs += validate_annotations(meta.get("annotations"), path.child("metadata", "annotations"))
    errs += validate_pod_spec(template.get("spec"), path.child("spec"), extra_volumes)
    return errs


def _pod(obj: dict) -> Causes:
    return validate_pod_spec(obj.get("spec"), Path("spec"))


def _pod_template(obj: dict) -> Causes:
    return validate_pod_template(obj.get("template"), Path("template"))
