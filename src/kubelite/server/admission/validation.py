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
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.server.admission.defaults import group_kind
from kubelite.server.admission.field import GoRepr, Path, go_quote
from kubelite.quantity import QuantityError, canonical_quantity, quantity_value

__all__ = ["validate", "validate_create", "validate_update", "name_validator", "TOTAL_ANNOTATION_SIZE_LIMIT"]

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
MAX_CONFIG_DATA_SIZE = 1024 * 1024
MAX_INT32 = 2**31 - 1

Causes = list


def _dicts(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


# --- Go %#v renderings used in messages ---------------------------------------


def _go_string_map(value: Any) -> str:
    if value is None:
        return "map[string]string(nil)"
    items = ", ".join(f"{go_quote(k)}:{go_quote(str(v))}" for k, v in sorted(_map(value).items()))
    return "map[string]string{" + items + "}"


def _go_string_slice(value: Any) -> str:
    if value is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(str(v)) for v in value) + "}"


def _go_label_selector(selector: Any) -> GoRepr:
    selector = _map(selector)
    exprs = selector.get("matchExpressions")
    if exprs is None:
        expr_text = "[]v1.LabelSelectorRequirement(nil)"
    else:
        inner = ", ".join(
            "v1.LabelSelectorRequirement{"
            f"Key:{go_quote(str(e.get('key', '')))}, Operator:{go_quote(str(e.get('operator', '')))}, "
            f"Values:{_go_string_slice(e.get('values'))}}}"
            for e in _dicts(exprs)
        )
        expr_text = "[]v1.LabelSelectorRequirement{" + inner + "}"
    return GoRepr(
        f"v1.LabelSelector{{MatchLabels:{_go_string_map(selector.get('matchLabels'))}, "
        f"MatchExpressions:{expr_text}}}"
    )


def _go_int_or_string(value: Any) -> GoRepr:
    if isinstance(value, str):
        return GoRepr(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}")
    return GoRepr(f"intstr.IntOrString{{Type:0, IntVal:{int(value or 0)}, StrVal:\"\"}}")


# --- ObjectMeta -----------------------------------------------------------------


def validate_labels(labels: Any, path: str) -> Causes:
    errs = []
    for key, value in sorted(_map(labels).items()):
        for msg in N.is_qualified_name(key):
            errs.append(F.invalid(path, key, msg))
        for msg in N.is_valid_label_value(str(value) if value is not None else ""):
            errs.append(F.invalid(path, value, msg))
    return errs


def validate_annotations(annotations: Any, path: str) -> Causes:
    errs = []
    total = 0
    for key, value in sorted(_map(annotations).items()):
        for msg in N.is_qualified_name(key.lower()):
            errs.append(F.invalid(path, key, msg))
        total += len(key.encode()) + len(str(value or "").encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(F.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


NameFn = Callable[[str, bool], list]


def validate_object_meta(meta: Any, namespaced: bool, name_fn: NameFn, path: str = "metadata") -> Causes:
    meta = _map(meta)
    errs: Causes = []
    p = Path(path)
    generate_name = meta.get("generateName")
    if generate_name:
        for msg in name_fn(generate_name, True):
            errs.append(F.invalid(p.child("generateName"), generate_name, msg))
    name = meta.get("name") or ""
    if not name:
        errs.append(F.required(p.child("name"), "name or generateName is required"))
    else:
        for msg in name_fn(name, False):
            errs.append(F.invalid(p.child("name"), name, msg))
    namespace = meta.get("namespace") or ""
    if namespaced:
        if not namespace:
            errs.append(F.required(p.child("namespace"), ""))
        else:
            for msg in N.is_dns1123_label(namespace):
                errs.append(F.invalid(p.child("namespace"), namespace, msg))
    elif namespace:
        errs.append(F.forbidden(p.child("namespace"), "not allowed on this type"))
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(F.invalid(p.child("generation"), generation, "must be greater than or equal to 0"))
    errs += validate_labels(meta.get("labels"), p.child("labels"))
    errs += validate_annotations(meta.get("annotations"), p.child("annotations"))
    return errs


def _nonnegative(value: Any, path: str) -> Causes:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [F.invalid(path, value, "must be greater than or equal to 0")]
    return []


# --- label selectors ------------------------------------------------------------------


_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist")


def validate_label_selector(selector: Any, path: str) -> Causes:
    errs: Causes = []
    selector = _map(selector)
    p = Path(path)
    for i, expr in enumerate(_dicts(selector.get("matchExpressions"))):
        ep = p.child("matchExpressions").index(i)
        op = expr.get("operator", "")
        values = expr.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                errs.append(F.required(ep.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(
                    F.forbidden(ep.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
                )
        else:
            errs.append(F.invalid(ep.child("operator"), op, "not a valid selector operator"))
        for msg in N.is_qualified_name(str(expr.get("key", ""))):
            errs.append(F.invalid(ep.child("key"), expr.get("key", ""), msg))
    errs += validate_labels(selector.get("matchLabels"), p.child("matchLabels"))
    return errs


def _selector_parses(selector: Any) -> bool:
    """Whether LabelSelectorAsSelector accepts it (operators and values)."""
    for expr in _dicts(_map(selector).get("matchExpressions")):
        op = expr.get("operator")
        values = expr.get("values") or []
        if op not in _SELECTOR_OPS:
            return False
        if op in ("In", "NotIn") and not values:
            return False
        if op in ("Exists", "DoesNotExist") and values:
            return False
        if N.is_qualified_name(str(expr.get("key", ""))):
            return False
    for key, value in _map(_map(selector).get("matchLabels")).items():
        if N.is_qualified_name(key) or N.is_valid_label_value(str(value)):
            return False
    return True


def selector_matches(selector: Any, labels: Any) -> bool:
    """Label selector semantics; ``None`` selects nothing, ``{}`` everything."""
    if selector is None:
        return False
    labels = _map(labels)
    selector = _map(selector)
    for key, value in _map(selector.get("matchLabels")).items():
        if labels.get(key) != value:
            return False
    for expr in _dicts(selector.get("matchExpressions")):
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _selector_empty(selector: Any) -> bool:
    selector = _map(selector)
    return not selector.get("matchLabels") and not selector.get("matchExpressions")


# --- Pod spec ---------------------------------------------------------------------

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


# --- kinds --------------------------------------------------------------------------


def _pod(obj: dict) -> Causes:
    return validate_pod_spec(obj.get("spec"), Path("spec"))


def _pod_template(obj: dict) -> Causes:
    return validate_pod_template(obj.get("template"), Path("template"))


def _config_data(obj: dict, *, binary_key: str = "binaryData") -> Causes:
    errs: Causes = []
    total = 0
    data = _map(obj.get("data"))
    binary = _map(obj.get(binary_key))
    for key, value in sorted(data.items()):
        kp = Path("data").key(key)
        errs += [F.invalid(kp, key, m) for m in N.is_config_map_key(key)]
        total += len(str(value or "").encode())
    for key, value in sorted(binary.items()):
        kp = Path(binary_key).key(key)
        errs += [F.invalid(kp, key, m) for m in N.is_config_map_key(key)]
        if key in data:
            errs.append(F.invalid(Path("data").key(key), key, "duplicate of key present in binaryData"))
        total += len(str(value or "").encode())
    if total > MAX_CONFIG_DATA_SIZE:
        errs.append(F.too_long("[]", MAX_CONFIG_DATA_SIZE))
    return errs


def _config_map(obj: dict) -> Causes:
    return _config_data(obj)


def _decoded_size(value: Any) -> int:
    """Secret data is limited by its decoded size (base64 is decoded on the wire)."""
    import base64
    import binascii

    try:
        return len(base64.b64decode(str(value or ""), validate=True))
    except (binascii.Error, ValueError):
        return len(str(value or ""))


_SECRET_REQUIRED_KEYS = {
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}


def _secret(obj: dict) -> Causes:
    errs: Causes = []
    data = _map(obj.get("data"))
    total = 0
    for key, value in sorted(data.items()):
        kp = Path("data").key(key)
        errs += [F.invalid(kp, key, m) for m in N.is_config_map_key(key)]
        total += _decoded_size(value)
    if total > MAX_CONFIG_DATA_SIZE:
        errs.append(F.too_long("data", MAX_CONFIG_DATA_SIZE))
    secret_type = obj.get("type")
    if secret_type == "kubernetes.io/service-account-token":
        annotations = _map(_map(obj.get("metadata")).get("annotations"))
        if not annotations.get("kubernetes.io/service-account.name"):
            errs.append(
                F.required(Path("metadata").child("annotations").key("kubernetes.io/service-account.name"), "")
            )
    for key in _SECRET_REQUIRED_KEYS.get(secret_type or "", ()):
        if key not in data:
            errs.append(F.required(Path("data").key(key), ""))
    if secret_type == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errs.append(F.required(Path("data").key("username"), ""))
            errs.append(F.required(Path("data").key("password"), ""))
    if secret_type == "kubernetes.io/ssh-auth" and "ssh-privatekey" not in data:
        errs.append(F.required(Path("data").key("ssh-privatekey"), ""))
    return errs


def _replicas_and_template(spec: dict, path: Path) -> Causes:
    errs: Causes = []
    selector = spec.get("selector")
    template = _map(spec.get("template"))
    template_labels = _map(template.get("metadata")).get("labels")
    # A missing selector selects nothing; an empty one everything (not checked).
    if selector is None or (not _selector_empty(selector) and not selector_matches(selector, template_labels)):
        errs.append(
            F.invalid(
                path.child("template", "metadata", "labels"),
                GoRepr(_go_string_map(template_labels)),
                "`selector` does not match template `labels`",
            )
        )
    # StatefulSet pods also get a volume per volumeClaimTemplate.
    claims = [_map(_map(c).get("metadata")).get("name") for c in _dicts(spec.get("volumeClaimTemplates"))]
    errs += validate_pod_template(template, path.child("template"), [c for c in claims if c])
    restart = _map(template.get("spec")).get("restartPolicy")
    if restart != "Always":
        errs.append(F.not_supported(path.child("template", "spec", "restartPolicy"), restart or "", ("Always",)))
    if _map(template.get("spec")).get("activeDeadlineSeconds") is not None:
        errs.append(
            F.forbidden(
                path.child("template", "spec", "activeDeadlineSeconds"),
                "activeDeadlineSeconds in ReplicaSet is not Supported",
            )
        )
    return errs


def _selector_and_template(spec: dict, path: Path, kind_word: str) -> Causes:
    """Selector rules shared by Deployment, ReplicaSet, DaemonSet, StatefulSet."""
    errs: Causes = []
    selector = spec.get("selector")
    if selector is None:
        errs.append(F.required(path.child("selector"), ""))
    else:
        errs += validate_label_selector(selector, path.child("selector"))
        if _selector_empty(selector):
            errs.append(
                F.invalid(path.child("selector"), _go_label_selector(selector), f"empty selector is invalid for {kind_word}")
            )
    if selector is not None and not _selector_parses(selector):
        errs.append(F.invalid(path.child("selector"), _go_label_selector(selector), "invalid label selector"))
        return errs
    return errs + _replicas_and_template(spec, path)


def _int_or_percent(value: Any) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%"):
        try:
            return int(value[:-1])
        except ValueError:
            return None
    return None


def _positive_int_or_percent(value: Any, path: Path) -> Causes:
    if isinstance(value, str):
        if _int_or_percent(value) is None:
            return [F.invalid(path, value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")]
        return [] if _int_or_percent(value) >= 0 else [F.invalid(path, value, "must be greater than or equal to 0")]
    return _nonnegative(value, str(path))


def _not_more_than_100_percent(value: Any, path: Path) -> Causes:
    if isinstance(value, str) and (_int_or_percent(value) or 0) > 100:
        return [F.invalid(path, value, "must not be greater than 100%")]
    return []


def _deployment(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _selector_and_template(spec, path, "deployment")
    strategy = _map(spec.get("strategy"))
    sp = path.child("strategy")
    strategy_type = strategy.get("type")
    if strategy_type == "Recreate":
        if strategy.get("rollingUpdate") is not None:
            errs.append(F.forbidden(sp.child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
    elif strategy_type == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if rolling is None:
            errs.append(F.required(sp.child("rollingUpdate"), "this should be defaulted and never be nil"))
        else:
            rp = sp.child("rollingUpdate")
            unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
            errs += _positive_int_or_percent(unavailable, rp.child("maxUnavailable"))
            errs += _positive_int_or_percent(surge, rp.child("maxSurge"))
            if _int_or_percent(unavailable) == 0 and _int_or_percent(surge) == 0:
                errs.append(
                    F.invalid(rp.child("maxUnavailable"), _go_int_or_string(unavailable), "may not be 0 when `maxSurge` is 0")
                )
            errs += _not_more_than_100_percent(unavailable, rp.child("maxUnavailable"))
    else:
        errs.append(F.not_supported(sp, GoRepr(json.dumps(strategy)), ("Recreate", "RollingUpdate")))
    min_ready = spec.get("minReadySeconds") or 0
    errs += _nonnegative(min_ready, path.child("minReadySeconds"))
    if spec.get("revisionHistoryLimit") is not None:
        errs += _nonnegative(spec["revisionHistoryLimit"], path.child("revisionHistoryLimit"))
    deadline = spec.get("progressDeadlineSeconds")
    if deadline is not None:
        errs += _nonnegative(deadline, path.child("progressDeadlineSeconds"))
        if isinstance(deadline, int) and deadline <= min_ready:
            errs.append(F.invalid(path.child("progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds"))
    return errs + _deployment_status(_map(obj.get("status")))


def _deployment_status(status: dict) -> Causes:
    path = Path("status")

    def count(key: str) -> int:
        value = status.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    errs: Causes = []
    for key in ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                "unavailableReplicas", "collisionCount"):
        errs += _nonnegative(status.get(key), path.child(key))
    for key in ("updatedReplicas", "readyReplicas", "availableReplicas"):
        if count(key) > count("replicas"):
            errs.append(F.invalid(path.child(key), count(key), "cannot be greater than status.replicas"))
    if count("availableReplicas") > count("readyReplicas"):
        errs.append(F.invalid(path.child("availableReplicas"), count("availableReplicas"),
                              "cannot be greater than readyReplicas"))
    return errs


def _replica_set(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    return errs + _selector_and_template(spec, path, "deployment")


def _replication_controller(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    selector = _map(spec.get("selector"))
    if not selector:
        errs.append(F.required(path.child("selector"), ""))
    else:
        errs += validate_labels(selector, path.child("selector"))
    template = spec.get("template")
    if template is None:
        errs.append(F.required(path.child("template"), ""))
        return errs
    labels = _map(_map(template).get("metadata")).get("labels")
    if selector and any(_map(labels).get(k) != v for k, v in selector.items()):
        errs.append(
            F.invalid(path.child("template", "metadata", "labels"), GoRepr(_go_string_map(labels)),
                      "`selector` does not match template `labels`")
        )
    errs += validate_pod_template(template, path.child("template"))
    restart = _map(_map(template).get("spec")).get("restartPolicy")
    if restart != "Always":
        errs.append(F.not_supported(path.child("template", "spec", "restartPolicy"), restart or "", ("Always",)))
    return errs


def _daemon_set(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs = _selector_and_template(spec, path, "daemonset")
    strategy = _map(spec.get("updateStrategy"))
    if strategy.get("type") not in ("RollingUpdate", "OnDelete"):
        errs.append(
            F.not_supported(path.child("updateStrategy", "type"), strategy.get("type") or "", ("OnDelete", "RollingUpdate"))
        )
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    return errs


def _stateful_set(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    policy = spec.get("podManagementPolicy")
    if policy not in ("OrderedReady", "Parallel"):
        errs.append(F.not_supported(path.child("podManagementPolicy"), policy or "", ("OrderedReady", "Parallel")))
    errs += _nonnegative(spec.get("replicas"), path.child("replicas"))
    errs += _nonnegative(spec.get("minReadySeconds"), path.child("minReadySeconds"))
    return errs + _selector_and_template(spec, path, "statefulset")


def _job_spec(spec: dict, path: Path) -> Causes:
    errs: Causes = []
    for key in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"):
        errs += _nonnegative(spec.get(key), path.child(key))
    template = _map(spec.get("template"))
    errs += validate_pod_template(template, path.child("template"))
    restart = _map(template.get("spec")).get("restartPolicy")
    if restart not in ("OnFailure", "Never"):
        # Always comes from pod defaulting; the server reports it as missing.
        errs.append(F.required(path.child("template", "spec", "restartPolicy"), 'valid values: "OnFailure", "Never"'))
    return errs


def _generated_selector(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    if spec.get("manualSelector") is True:
        return []
    template_labels = _map(_map(spec.get("template")).get("metadata")).get("labels")
    if template_labels is None:
        return []
    uid = _map(obj.get("metadata")).get("uid")
    selector = spec.get("selector")
    path = Path("spec")
    if selector is None:
        return [F.required(path.child("selector"), "")]
    if uid and selector != {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}:
        return [F.invalid(path.child("selector"), _go_label_selector(selector), "`selector` not auto-generated")]
    return []


def _job(obj: dict) -> Causes:
    return _generated_selector(obj) + job_spec_errors(obj)


def job_spec_errors(obj: dict) -> Causes:
    """ValidateJobSpec: run on create and (again) on update."""
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    selector = spec.get("selector")
    if selector is not None:
        errs += validate_label_selector(selector, path.child("selector"))
        template_labels = _map(_map(spec.get("template")).get("metadata")).get("labels")
        if not selector_matches(selector, template_labels):
            errs.append(
                F.invalid(
                    path.child("template", "metadata", "labels"),
                    GoRepr(_go_string_map(template_labels)),
                    "`selector` does not match template `labels`",
                )
            )
    return errs + _job_spec(spec, path)


def _cron_schedule_errors(schedule: str) -> list[str]:
    fields = schedule.split()
    if schedule.startswith("@"):
        if schedule in ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"):
            return []
        if schedule.startswith("@every "):
            return []
        return [f"unrecognized descriptor: {schedule}"]
    if len(fields) != 5:
        return [f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"]
    return []


def _cron_job(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    name = _map(obj.get("metadata")).get("name") or ""
    if len(name) > 52:
        errs.append(F.invalid(Path("metadata").child("name"), name, "must be no more than 52 characters"))
    schedule = spec.get("schedule") or ""
    if not schedule:
        errs.append(F.required(path.child("schedule"), ""))
    else:
        errs += [F.invalid(path.child("schedule"), schedule, m) for m in _cron_schedule_errors(schedule)]
    policy = spec.get("concurrencyPolicy")
    if policy not in ("Allow", "Forbid", "Replace"):
        errs.append(F.not_supported(path.child("concurrencyPolicy"), policy or "", ("Allow", "Forbid", "Replace")))
    job_spec = _map(_map(spec.get("jobTemplate")).get("spec"))
    errs += _job_spec(job_spec, path.child("jobTemplate", "spec"))
    return errs


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


def _pvc_spec(spec: dict, path: Path) -> Causes:
    errs: Causes = []
    if not spec.get("accessModes"):
        errs.append(F.required(path.child("accessModes"), "at least 1 access mode is required"))
    requests = _map(_map(spec.get("resources")).get("requests"))
    if "storage" not in requests:
        errs.append(F.required(path.child("resources").key("storage"), ""))
    else:
        try:
            if quantity_value(requests["storage"]) <= 0:
                errs.append(
                    F.invalid(path.child("resources").key("storage"), _quantity_text(requests["storage"]),
                              "must be greater than zero")
                )
        except QuantityError:
            pass
    return errs


def _pvc(obj: dict) -> Causes:
    return _pvc_spec(_map(obj.get("spec")), Path("spec"))


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


def _hpa(obj: dict) -> Causes:
    spec = _map(obj.get("spec"))
    path = Path("spec")
    errs: Causes = []
    min_replicas = spec.get("minReplicas")
    max_replicas = spec.get("maxReplicas") or 0
    if isinstance(min_replicas, int) and min_replicas < 1:
        errs.append(F.invalid(path.child("minReplicas"), min_replicas, "must be greater than or equal to 1"))
    if max_replicas < 1:
        errs.append(F.invalid(path.child("maxReplicas"), max_replicas, "must be greater than 0"))
    if isinstance(min_replicas, int) and max_replicas < min_replicas:
        errs.append(F.invalid(path.child("maxReplicas"), max_replicas, "must be greater than or equal to `minReplicas`"))
    ref = _map(spec.get("scaleTargetRef"))
    rp = path.child("scaleTargetRef")
    if not ref.get("kind"):
        errs.append(F.required(rp.child("kind"), ""))
    if not ref.get("name"):
        errs.append(F.required(rp.child("name"), ""))
    return errs


def _role_binding(obj: dict) -> Causes:
    errs: Causes = []
    ref = _map(obj.get("roleRef"))
    path = Path("roleRef")
    if ref.get("apiGroup", "") != "rbac.authorization.k8s.io":
        errs.append(F.not_supported(path.child("apiGroup"), ref.get("apiGroup", ""), ("rbac.authorization.k8s.io",)))
    allowed = ("Role", "ClusterRole") if obj.get("kind") == "RoleBinding" else ("ClusterRole",)
    if ref.get("kind", "") not in allowed:
        errs.append(F.not_supported(path.child("kind"), ref.get("kind", ""), allowed))
    name = ref.get("name") or ""
    if not name:
        errs.append(F.required(path.child("name"), ""))
    else:
        errs += [F.invalid(path.child("name"), name, m) for m in N.is_path_segment_name(name)]
    return errs


def _priority_class(obj: dict) -> Causes:
    errs: Causes = []
    name = _map(obj.get("metadata")).get("name") or ""
    value = obj.get("value") or 0
    if name.startswith("system-"):
        known = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
        if name not in known:
            errs.append(
                F.forbidden(
                    Path("metadata").child("name"),
                    "priority class names with 'system-' prefix are reserved for system use only. "
                    f"error: {name} is not a known system priority class",
                )
            )
    elif value > 1000000000:
        errs.append(F.forbidden(Path("value"), "maximum allowed value of a user defined priority is 1000000000"))
    policy = obj.get("preemptionPolicy")
    if policy not in (None, "Never", "PreemptLowerPriority"):
        errs.append(F.not_supported(Path("preemptionPolicy"), policy, ("Never", "PreemptLowerPriority")))
    return errs


def _event_v1(obj: dict) -> Causes:
    # events.k8s.io is validated as core Event after conversion: the field
    # names in messages are core ones (involvedObject, not regarding).
    namespace = _map(obj.get("metadata")).get("namespace") or ""
    regarding = _map(obj.get("regarding"))
    errs: Causes = []
    if regarding.get("namespace", "") != namespace and regarding.get("kind") not in ("Node", "Namespace"):
        errs.append(F.invalid(Path("involvedObject").child("namespace"), regarding.get("namespace", ""),
                              "does not match event.namespace"))
    return errs


def _storage_class(obj: dict) -> Causes:
    if not obj.get("provisioner"):
        return [F.required(Path("provisioner"), "")]
    return []


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
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (False, N.name_is_dns_subdomain, None),
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
