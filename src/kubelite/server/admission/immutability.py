"""Update validation: the create rules on the new object plus the fields a
kind forbids changing, with kube-apiserver's messages."""

from __future__ import annotations

import json

from kubelite.server.admission import field as F
from kubelite.server.admission.defaults import group_kind
from kubelite.server.admission.field import GoRepr, Path, go_quote
from kubelite.server.admission import validation as V

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["validate_update", "FIELD_IMMUTABLE"]

FIELD_IMMUTABLE = "field is immutable"
IMMUTABLE_WHEN_SET = "field is immutable when `immutable` is set"

POD_UPDATE_MESSAGE = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    "`spec.tolerations` (only additions to existing tolerations),"
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)
PVC_UPDATE_MESSAGE = (
    "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
)
STATEFULSET_UPDATE_MESSAGE = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
    "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
)


def _map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _diff(old: Any, new: Any) -> str:
    """A readable -/+ rendering of what changed (not Go's cmp.Diff layout)."""
    old_lines = json.dumps(old, indent=2, sort_keys=True).splitlines()
    new_lines = json.dumps(new, indent=2, sort_keys=True).splitlines()
    import difflib

    body = [
        line
        for line in difflib.unified_diff(old_lines, new_lines, lineterm="", n=1)
        if not line.startswith(("---", "+++"))
    ]
    return "\n".join(body) + "\n"


def _meta_update(new: dict, old: dict) -> list:
    """ObjectMeta rules on update (resourceVersion presence is the storage
    layer's check; system timestamps were restored by prepare_for_update)."""
    errs = []
    meta, old_meta = _map(new.get("metadata")), _map(old.get("metadata"))
    if old_meta.get("deletionTimestamp"):
        added = [f for f in meta.get("finalizers") or [] if f not in (old_meta.get("finalizers") or [])]
        if added:
            errs.append(
                F.forbidden(
                    Path("metadata").child("finalizers"),
                    "no new finalizers can be added if the object is being deleted, "
                    f"found new finalizers {V._go_string_slice(added)}",
                )
            )
    for key in ("name", "namespace", "uid"):
        if meta.get(key, "") != old_meta.get(key, "") and not (key == "uid" and not meta.get(key)):
            errs.append(F.invalid(Path("metadata").child(key), meta.get(key, ""), FIELD_IMMUTABLE))
    errs += V.validate_labels(meta.get("labels"), Path("metadata").child("labels"))
    errs += V.validate_annotations(meta.get("annotations"), Path("metadata").child("annotations"))
    return errs


def _selector_immutable(new: dict, old: dict) -> list:
    new_sel = _map(new.get("spec")).get("selector")
    old_sel = _map(old.get("spec")).get("selector")
    if new_sel != old_sel:
        return [F.invalid(Path("spec").child("selector"), V._go_label_selector(new_sel), FIELD_IMMUTABLE)]
    return []


def _workload(new: dict, old: dict) -> list:
    return _selector_immutable(new, old)


def _stateful_set(new: dict, old: dict) -> list:
    errs = []
    mutable = {"replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
               "minReadySeconds"}
    new_spec, old_spec = _map(new.get("spec")), _map(old.get("spec"))
    keys = (set(new_spec) | set(old_spec)) - mutable
    if any(new_spec.get(k) != old_spec.get(k) for k in keys):
        errs.append(F.forbidden(Path("spec"), STATEFULSET_UPDATE_MESSAGE))
    return errs


def _job(new: dict, old: dict) -> list:
    # kube-apiserver runs the spec rules a second time inside the update check.
    errs = V.job_spec_errors(new)
    new_spec, old_spec = _map(new.get("spec")), _map(old.get("spec"))
    if new_spec.get("completionMode", "NonIndexed") == "NonIndexed" and new_spec.get("completions") != old_spec.get(
        "completions"
    ):
        errs.append(F.invalid(Path("spec").child("completions"), new_spec.get("completions"), FIELD_IMMUTABLE))
    errs += _selector_immutable(new, old)
    if new_spec.get("template") != old_spec.get("template") and not old_spec.get("suspend"):
        errs.append(
            # kube-apiserver prints the whole internal PodTemplateSpec with %#v here.
            F.invalid(Path("spec").child("template"),
                      GoRepr("core.PodTemplateSpec" + json.dumps(new_spec.get("template"), sort_keys=True)),
                      FIELD_IMMUTABLE)
        )
    return errs


def _cron_job(new: dict, old: dict) -> list:
    return []


def _service(new: dict, old: dict) -> list:
    new_spec, old_spec = _map(new.get("spec")), _map(old.get("spec"))
    errs = []
    old_ips = old_spec.get("clusterIPs") or []
    new_ips = new_spec.get("clusterIPs") or []
    switching_to_external = new_spec.get("type") == "ExternalName" and old_spec.get("type") != "ExternalName"
    if old_ips and new_ips and not switching_to_external and new_ips[0] != old_ips[0]:
        errs.append(
            F.invalid(Path("spec").child("clusterIPs").index(0), GoRepr(V._go_string_slice(new_ips)), "may not change once set")
        )
    return errs


def _immutable_data(new: dict, old: dict, data_keys: tuple[str, ...]) -> list:
    errs = []
    if old.get("immutable") is True:
        if new.get("immutable") is not True:
            errs.append(F.forbidden(Path("immutable"), IMMUTABLE_WHEN_SET))
        for key in data_keys:
            if (new.get(key) or None) != (old.get(key) or None):
                errs.append(F.forbidden(Path(key), IMMUTABLE_WHEN_SET))
    return errs


def _config_map(new: dict, old: dict) -> list:
    return _immutable_data(new, old, ("data", "binaryData"))


def _secret(new: dict, old: dict) -> list:
    errs = []
    if new.get("type") != old.get("type"):
        errs.append(F.invalid(Path("type"), new.get("type") or "", FIELD_IMMUTABLE))
    return errs + _immutable_data(new, old, ("data",))


def _pod(new: dict, old: dict) -> list:
    if _map(new.get("spec")) == _map(old.get("spec")):
        return []  # a status write: nothing to copy over and compare as JSON
    new_spec = json.loads(json.dumps(_map(new.get("spec"))))
    old_spec = json.loads(json.dumps(_map(old.get("spec"))))
    # Allowed changes are copied over before comparing.
    for key in ("containers", "initContainers"):
        for mine, theirs in zip(new_spec.get(key) or [], old_spec.get(key) or []):
            if isinstance(mine, dict) and isinstance(theirs, dict):
                theirs["image"] = mine.get("image")
    for key in ("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"):
        if key in new_spec:
            old_spec[key] = new_spec[key]
        else:
            old_spec.pop(key, None)
    if new_spec != old_spec:
        return [F.forbidden(Path("spec"), POD_UPDATE_MESSAGE + "\n" + _diff(old_spec, new_spec))]
    return []


def _pvc(new: dict, old: dict) -> list:
    new_spec = json.loads(json.dumps(_map(new.get("spec"))))
    old_spec = json.loads(json.dumps(_map(old.get("spec"))))
    for spec in (new_spec, old_spec):
        _map(spec.get("resources")).pop("requests", None)
        spec.pop("volumeAttributesClassName", None)
    if new_spec != old_spec:
        return [F.forbidden(Path("spec"), PVC_UPDATE_MESSAGE + "\n" + _diff(old_spec, new_spec))]
    return []


def _role_binding(new: dict, old: dict) -> list:
    ref = _map(new.get("roleRef"))
    if ref != _map(old.get("roleRef")):
        repr_ = GoRepr(
            f"rbac.RoleRef{{APIGroup:{go_quote(ref.get('apiGroup', ''))}, Kind:{go_quote(ref.get('kind', ''))}, "
            f"Name:{go_quote(ref.get('name', ''))}}}"
        )
        return [F.invalid(Path("roleRef"), repr_, "cannot change roleRef")]
    return []


def _storage_class(new: dict, old: dict) -> list:
    errs = []
    if (new.get("parameters") or None) != (old.get("parameters") or None):
        errs.append(F.forbidden(Path("parameters"), "updates to parameters are forbidden."))
    if new.get("provisioner") != old.get("provisioner"):
        errs.append(F.forbidden(Path("provisioner"), "updates to provisioner are forbidden."))
    if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errs.append(F.forbidden(Path("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
    if new.get("volumeBindingMode") != old.get("volumeBindingMode"):
        errs.append(F.invalid(Path("volumeBindingMode"), new.get("volumeBindingMode") or "", FIELD_IMMUTABLE))
    return errs


def _priority_class(new: dict, old: dict) -> list:
    errs = []
    if new.get("value") != old.get("value"):
        errs.append(F.forbidden(Path("value"), "may not be changed in an update."))
    if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
        errs.append(F.invalid(Path("preemptionPolicy"), new.get("preemptionPolicy") or "", FIELD_IMMUTABLE))
    return errs


def _crd(new: dict, old: dict) -> list:
    errs = []
    new_spec, old_spec = _map(new.get("spec")), _map(old.get("spec"))
    if new_spec.get("scope") != old_spec.get("scope"):
        errs.append(F.invalid(Path("spec").child("scope"), new_spec.get("scope") or "", FIELD_IMMUTABLE))
    return errs


_UPDATE: dict[tuple[str, str], Callable[[dict, dict], list]] = {
    ("apps", "Deployment"): _workload,
    ("apps", "ReplicaSet"): _workload,
    ("apps", "DaemonSet"): _workload,
    ("apps", "StatefulSet"): lambda n, o: _workload(n, o) + _stateful_set(n, o),
    ("batch", "Job"): _job,
    ("batch", "CronJob"): _cron_job,
    ("", "Service"): _service,
    ("", "ConfigMap"): _config_map,
    ("", "Secret"): _secret,
    ("", "Pod"): _pod,
    ("", "PersistentVolumeClaim"): _pvc,
    ("rbac.authorization.k8s.io", "RoleBinding"): _role_binding,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _role_binding,
    ("storage.k8s.io", "StorageClass"): _storage_class,
    ("scheduling.k8s.io", "PriorityClass"): _priority_class,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _crd,
}

# Kinds whose update checks the immutable fields before re-validating the
# new object (as the matching kube-apiserver validators are written).
_IMMUTABILITY_FIRST = {("", "ConfigMap"), ("", "Secret"), ("storage.k8s.io", "StorageClass"),
                       ("scheduling.k8s.io", "PriorityClass")}
# Kinds whose update does not re-run the create-time body rules.
_NO_CREATE_RULES = {("scheduling.k8s.io", "PriorityClass"), ("", "Pod"), ("", "PersistentVolumeClaim")}


def validate_update(new: dict, old: dict, *, namespaced: bool | None = None) -> list:
    """Causes for replacing ``old`` by ``new`` (both defaulted, ``new`` passed
    through prepare_for_update).

    As in kube-apiserver, generic ObjectMeta checks run first and the kind's
    own update rules (which repeat the ObjectMeta update checks) follow, so a
    metadata problem is listed twice in the causes (once in the message).
    """
    gk = group_kind(new)
    if namespaced is None:
        namespaced = V.kind_is_namespaced(new)
    meta_errs = _meta_update(new, old)
    common = V.validate_object_meta(new.get("metadata"), namespaced, _path_segment_name) + meta_errs
    immut = _UPDATE.get(gk, lambda n, o: [])(new, old)
    if gk in _NO_CREATE_RULES:
        return common + meta_errs + immut
    body = V.validate_body(new)
    if gk in _IMMUTABILITY_FIRST:
        return common + meta_errs + immut + body
    return common + meta_errs + body + immut


def _path_segment_name(name: str, prefix: bool) -> list:
    from kubelite.server.admission import names

    return names.is_path_segment_name(name)
