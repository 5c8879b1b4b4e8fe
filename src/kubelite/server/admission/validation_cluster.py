"""RoleBinding/ClusterRoleBinding, PriorityClass and events.k8s.io Event validation."""

from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.server.admission.field import Path
from kubelite.server.admission.validation_common import Causes, _map


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
