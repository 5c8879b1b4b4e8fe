"""Kustomize's built-in transformer configuration (its default field specs).

Expressed as data built from a few tables: the pod spec locations of each
workload kind and the fields inside a pod spec that name other objects.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import KustomizeError
from .fieldspec import FieldSpec
from .resource import Gvk

# Where the pod spec sits in each kind that embeds one (for name references).
_POD_SPEC_AT = {
    "Pod": "spec",
    "PodTemplate": "template/spec",
    "Deployment": "spec/template/spec",
    "ReplicaSet": "spec/template/spec",
    "DaemonSet": "spec/template/spec",
    "StatefulSet": "spec/template/spec",
    "Job": "spec/template/spec",
    "CronJob": "spec/jobTemplate/spec/template/spec",
    "ReplicationController": "spec/template/spec",
}
_CM_IN_POD = (
    "volumes/configMap/name", "containers/env/valueFrom/configMapKeyRef/name",
    "initContainers/env/valueFrom/configMapKeyRef/name", "containers/envFrom/configMapRef/name",
    "initContainers/envFrom/configMapRef/name", "volumes/projected/sources/configMap/name",
)
_SECRET_IN_POD = (
    "volumes/secret/secretName", "containers/env/valueFrom/secretKeyRef/name",
    "initContainers/env/valueFrom/secretKeyRef/name", "containers/envFrom/secretRef/name",
    "initContainers/envFrom/secretRef/name", "imagePullSecrets/name",
    "volumes/projected/sources/secret/name",
)
_CM_SECRET_KINDS = ("Pod", "PodTemplate", "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "Job", "CronJob")
_SA_PVC_PRIO_KINDS = ("Pod", "StatefulSet", "Deployment", "ReplicationController", "CronJob", "Job", "DaemonSet")


def _in_pods(kinds, fields, version_for_pod: bool = True) -> list[FieldSpec]:
    out = []
    for kind in kinds:
        for f in fields:
            version = "v1" if (kind == "Pod" and version_for_pod) else ""
            out.append(FieldSpec(f"{_POD_SPEC_AT[kind]}/{f}", kind=kind, version=version))
    return out


@dataclass
class NameBackRef:
    """Objects of kind `gvk` are referred to by name from the fields `referrers`."""

    group: str
    version: str
    kind: str
    referrers: list = field(default_factory=list)


def _name_references() -> list[NameBackRef]:
    scale = [FieldSpec("spec/scaleTargetRef/name", kind="HorizontalPodAutoscaler")]
    refs = [NameBackRef("", "", k, list(scale)) for k in ("Deployment", "ReplicationController", "ReplicaSet", "StatefulSet")]
    cm = _in_pods(_CM_SECRET_KINDS, _CM_IN_POD) + [
        FieldSpec("spec/configSource/configMap", kind="Node"),
        FieldSpec("rules/resourceNames", kind="Role"),
        FieldSpec("rules/resourceNames", kind="ClusterRole"),
        FieldSpec("metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", kind="Ingress"),
    ]
    refs.append(NameBackRef("", "v1", "ConfigMap", cm))
    secret = _in_pods(_CM_SECRET_KINDS, _SECRET_IN_POD) + [
        FieldSpec("spec/tls/secretName", kind="Ingress"),
        FieldSpec("metadata/annotations/ingress.kubernetes.io\\/auth-secret", kind="Ingress"),
        FieldSpec("metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret", kind="Ingress"),
        FieldSpec("metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret", kind="Ingress"),
        FieldSpec("imagePullSecrets/name", kind="ServiceAccount"),
        *(FieldSpec(f"parameters/{p}", kind="StorageClass") for p in ("secretName", "adminSecretName", "userSecretName", "secretRef")),
        FieldSpec("rules/resourceNames", kind="Role"),
        FieldSpec("rules/resourceNames", kind="ClusterRole"),
        FieldSpec("spec/template/spec/containers/env/valueFrom/secretKeyRef/name", kind="Service", group="serving.knative.dev", version="v1"),
        FieldSpec("spec/azureFile/secretName", kind="PersistentVolume"),
    ]
    refs.append(NameBackRef("", "v1", "Secret", secret))
    adm = "admissionregistration.k8s.io"
    refs.append(NameBackRef("", "v1", "Service", [
        FieldSpec("spec/serviceName", kind="StatefulSet", group="apps"),
        FieldSpec("spec/rules/http/paths/backend/serviceName", kind="Ingress"),
        FieldSpec("spec/backend/serviceName", kind="Ingress"),
        FieldSpec("spec/rules/http/paths/backend/service/name", kind="Ingress"),
        FieldSpec("spec/defaultBackend/service/name", kind="Ingress"),
        FieldSpec("spec/service/name", kind="APIService", group="apiregistration.k8s.io"),
        FieldSpec("webhooks/clientConfig/service", kind="ValidatingWebhookConfiguration", group=adm),
        FieldSpec("webhooks/clientConfig/service", kind="MutatingWebhookConfiguration", group=adm),
    ]))
    rbac = "rbac.authorization.k8s.io"
    refs.append(NameBackRef(rbac, "", "Role", [FieldSpec("roleRef/name", kind="RoleBinding", group=rbac)]))
    refs.append(NameBackRef(rbac, "", "ClusterRole", [
        FieldSpec("roleRef/name", kind="RoleBinding", group=rbac),
        FieldSpec("roleRef/name", kind="ClusterRoleBinding", group=rbac)]))
    sa = [FieldSpec("subjects", kind="RoleBinding", group=rbac), FieldSpec("subjects", kind="ClusterRoleBinding", group=rbac)]
    sa += [FieldSpec(f"{_POD_SPEC_AT[k]}/serviceAccountName", kind=k) for k in _SA_PVC_PRIO_KINDS]
    refs.append(NameBackRef("", "v1", "ServiceAccount", sa))
    refs.append(NameBackRef("", "v1", "PersistentVolumeClaim", [
        FieldSpec(f"{_POD_SPEC_AT[k]}/volumes/persistentVolumeClaim/claimName", kind=k) for k in _SA_PVC_PRIO_KINDS]))
    refs.append(NameBackRef("", "v1", "PersistentVolume", [
        FieldSpec("spec/volumeName", kind="PersistentVolumeClaim"), FieldSpec("rules/resourceNames", kind="ClusterRole")]))
    refs.append(NameBackRef("storage.k8s.io", "v1", "StorageClass", [
        FieldSpec("spec/storageClassName", kind="PersistentVolume"),
        FieldSpec("spec/storageClassName", kind="PersistentVolumeClaim"),
        FieldSpec("spec/volumeClaimTemplates/spec/storageClassName", kind="StatefulSet")]))
    refs.append(NameBackRef("scheduling.k8s.io", "v1", "PriorityClass", [
        FieldSpec(f"{_POD_SPEC_AT[k]}/priorityClassName", kind=k) for k in _SA_PVC_PRIO_KINDS]))
    refs.append(NameBackRef("networking.k8s.io/v1", "v1", "IngressClass", [FieldSpec("spec/ingressClassName", kind="Ingress")]))
    refs.append(NameBackRef(adm, "", "ValidatingAdmissionPolicy", [
        FieldSpec("spec/policyName", kind="ValidatingAdmissionPolicyBinding", group=adm)]))
    return refs


_TEMPLATED = (("ReplicationController", "", "v1"), ("Deployment", "", ""), ("ReplicaSet", "", ""),
              ("DaemonSet", "", ""))


def _metadata_labels() -> list[FieldSpec]:
    out = [FieldSpec("metadata/labels", create=True)]
    out += [FieldSpec("spec/template/metadata/labels", kind=k, group=g, version=v, create=True) for k, g, v in _TEMPLATED]
    out += [
        FieldSpec("spec/template/metadata/labels", kind="StatefulSet", group="apps", create=True),
        FieldSpec("spec/volumeClaimTemplates[]/metadata/labels", kind="StatefulSet", group="apps", create=True),
        FieldSpec("spec/template/metadata/labels", kind="Job", group="batch", create=True),
        FieldSpec("spec/jobTemplate/metadata/labels", kind="CronJob", group="batch", create=True),
        FieldSpec("spec/jobTemplate/spec/template/metadata/labels", kind="CronJob", group="batch", create=True),
    ]
    return out


def _affinity(kind: str) -> list[FieldSpec]:
    base = "spec/template/spec/affinity"
    term = "labelSelector/matchLabels"
    paths = [f"{base}/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/{term}",
             f"{base}/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/{term}",
             f"{base}/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/{term}",
             f"{base}/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/{term}",
             f"spec/template/spec/topologySpreadConstraints/{term}"]
    return [FieldSpec(p, kind=kind, group="apps") for p in paths]


def _common_labels() -> list[FieldSpec]:
    out = [
        FieldSpec("spec/selector", kind="Service", version="v1", create=True),
        FieldSpec("spec/selector", kind="ReplicationController", version="v1", create=True),
        FieldSpec("spec/selector/matchLabels", kind="Deployment", create=True),
        *_affinity("Deployment"),
        FieldSpec("spec/selector/matchLabels", kind="ReplicaSet", create=True),
        FieldSpec("spec/selector/matchLabels", kind="DaemonSet", create=True),
        FieldSpec("spec/selector/matchLabels", kind="StatefulSet", group="apps", create=True),
        *_affinity("StatefulSet"),
        FieldSpec("spec/selector/matchLabels", kind="Job", group="batch"),
        FieldSpec("spec/jobTemplate/spec/selector/matchLabels", kind="CronJob", group="batch"),
        FieldSpec("spec/selector/matchLabels", kind="PodDisruptionBudget", group="policy"),
        FieldSpec("spec/podSelector/matchLabels", kind="NetworkPolicy", group="networking.k8s.io"),
        FieldSpec("spec/ingress/from/podSelector/matchLabels", kind="NetworkPolicy", group="networking.k8s.io"),
        FieldSpec("spec/egress/to/podSelector/matchLabels", kind="NetworkPolicy", group="networking.k8s.io"),
    ]
    return out + _metadata_labels()


def _common_annotations() -> list[FieldSpec]:
    out = [FieldSpec("metadata/annotations", create=True)]
    out += [FieldSpec("spec/template/metadata/annotations", kind=k, group=g, version=v, create=True) for k, g, v in _TEMPLATED]
    out += [
        FieldSpec("spec/template/metadata/annotations", kind="StatefulSet", create=True),
        FieldSpec("spec/template/metadata/annotations", kind="Job", group="batch", create=True),
        FieldSpec("spec/jobTemplate/metadata/annotations", kind="CronJob", group="batch", create=True),
        FieldSpec("spec/jobTemplate/spec/template/metadata/annotations", kind="CronJob", group="batch", create=True),
    ]
    return out


def _var_references() -> list[FieldSpec]:
    out = []
    container_fields = ("args", "command", "env/value", "volumeMounts/mountPath")
    for kind, at in (("CronJob", "spec/jobTemplate/spec/template/spec"), ("DaemonSet", "spec/template/spec"),
                     ("Deployment", "spec/template/spec"), ("Job", "spec/template/spec"), ("Pod", "spec"),
                     ("ReplicaSet", "spec/template/spec"), ("StatefulSet", "spec/template/spec")):
        for c in ("containers", "initContainers"):
            out += [FieldSpec(f"{at}/{c}/{f}", kind=kind) for f in container_fields]
        nfs = {"CronJob": "spec/jobTemplate/spec/template/volumes/nfs/server",
               "StatefulSet": "spec/volumeClaimTemplates/spec/nfs/server"}.get(kind, f"{at}/volumes/nfs/server")
        out.append(FieldSpec(nfs, kind=kind))
        if kind == "Deployment":
            out.append(FieldSpec("spec/template/metadata/annotations", kind=kind))
    out += [FieldSpec("spec/rules/host", kind="Ingress"), FieldSpec("spec/tls/hosts", kind="Ingress"),
            FieldSpec("spec/tls/secretName", kind="Ingress"),
            FieldSpec("spec/ports/port", kind="Service"), FieldSpec("spec/ports/targetPort", kind="Service"),
            FieldSpec("spec/nfs/server", kind="PersistentVolume"),
            FieldSpec("metadata/labels"), FieldSpec("metadata/annotations")]
    return out


def _images() -> list[FieldSpec]:
    out = []
    for at in ("spec", "spec/template/spec"):
        out += [FieldSpec(f"{at}/containers[]/image", create=True), FieldSpec(f"{at}/initContainers[]/image", create=True),
                FieldSpec(f"{at}/volumes[]/image/reference", create=True)]
    return out


_SPEC_LISTS = (("name_prefix", "NamePrefix"), ("name_suffix", "NameSuffix"), ("namespace", "NameSpace"),
               ("common_annotations", "CommonAnnotations"), ("common_labels", "CommonLabels"), ("labels", "Labels"),
               ("template_labels", "TemplateLabels"), ("var_reference", "VarReference"), ("images", "Images"),
               ("replicas", "Replicas"))


def merge_specs(mine: list, incoming: list, go_name: str) -> list:
    """Kustomize's FsSlice.MergeAll then sort: a spec is left out when one already there has
    its path and is selected by its group/version/kind (a spec for every kind is selected by
    any), with a create flag that must then agree; the list is sorted by kind priority and
    group/version/kind. Merged into an empty config in that order, a kind's own spec sorts
    before the spec for every kind of the same path, which is then left out."""
    out = list(mine)
    for spec in sorted(incoming, key=gvk_order):  # Kustomize's configs are always sorted
        there = next((s for s in out if s.path == spec.path
                      and Gvk(s.group, s.version, s.kind).selected_by(spec.group, spec.version, spec.kind)), None)
        if there is None:
            out.append(spec)
        elif there.create != spec.create:
            raise KustomizeError(f"failed to merge {go_name} fieldSpec: conflicting fieldspecs")
    return sorted(out, key=gvk_order)


def gvk_order(item) -> tuple:
    """Kustomize's Gvk.IsLessThan as a sort key (field specs and name references have a
    group, version and kind): kind priority, then group_version_kind."""
    from .sorting import DEFAULT_FIRST, DEFAULT_LAST

    if item.kind in DEFAULT_FIRST:
        rank = DEFAULT_FIRST.index(item.kind) - len(DEFAULT_FIRST)
    elif item.kind in DEFAULT_LAST:
        rank = DEFAULT_LAST.index(item.kind) + 1
    else:
        rank = 0
    return rank, "_".join((item.group or "~G", item.version or "~V", item.kind or "~K"))


@dataclass
class TransformerConfig:
    name_prefix: list = field(default_factory=list)
    name_suffix: list = field(default_factory=list)
    namespace: list = field(default_factory=list)
    common_labels: list = field(default_factory=list)
    template_labels: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    common_annotations: list = field(default_factory=list)
    name_reference: list = field(default_factory=list)
    var_reference: list = field(default_factory=list)
    images: list = field(default_factory=list)
    replicas: list = field(default_factory=list)

    def merge(self, other: "TransformerConfig") -> None:
        for name, go_name in _SPEC_LISTS:
            setattr(self, name, merge_specs(getattr(self, name), getattr(other, name), go_name))
        for ref in other.name_reference:
            for existing in self.name_reference:
                if (existing.group, existing.version, existing.kind) == (ref.group, ref.version, ref.kind):
                    for spec in ref.referrers:
                        if spec not in existing.referrers:
                            existing.referrers.append(spec)
                    break
            else:
                self.name_reference.append(NameBackRef(ref.group, ref.version, ref.kind, list(ref.referrers)))


def default_config() -> TransformerConfig:
    return TransformerConfig(
        name_prefix=[FieldSpec("metadata/name")],
        name_suffix=[FieldSpec("metadata/name")],
        namespace=[
            FieldSpec("metadata/name", kind="Namespace", create=True),
            FieldSpec("spec/service/namespace", group="apiregistration.k8s.io", kind="APIService", create=True),
            FieldSpec("spec/conversion/webhook/clientConfig/service/namespace", group="apiextensions.k8s.io",
                      kind="CustomResourceDefinition"),
        ],
        common_labels=_common_labels(),
        template_labels=_metadata_labels(),
        common_annotations=_common_annotations(),
        name_reference=_name_references(),
        var_reference=_var_references(),
        images=_images(),
        replicas=[FieldSpec("spec/replicas", kind=k, create=True) for k in ("Deployment", "ReplicationController", "ReplicaSet", "StatefulSet")],
    )
