"""Resources with the identity bookkeeping Kustomize keeps for them.

A ResId is (group, version, kind, name, namespace). Besides the object itself a
Resource remembers its earlier ids (renames, namespace moves, kind changes), the
name prefixes/suffixes applied to it and generator settings; Kustomize keeps these
in internal annotations, here they are plain attributes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

# Kinds that live outside namespaces, with the API groups that define them: kyaml decides
# from its built-in schema by apiVersion and kind, so a `Namespace` of another group is an
# ordinary namespaced object.
_CLUSTER_SCOPED_GROUPS = {
    "": "ComponentStatus Namespace Node PersistentVolume",
    "admissionregistration.k8s.io": "MutatingAdmissionPolicy MutatingAdmissionPolicyBinding "
                                    "MutatingWebhookConfiguration ValidatingAdmissionPolicy "
                                    "ValidatingAdmissionPolicyBinding ValidatingWebhookConfiguration",
    "apiextensions.k8s.io": "CustomResourceDefinition",
    "apiregistration.k8s.io": "APIService",
    "authentication.k8s.io": "SelfSubjectReview TokenReview",
    "authorization.k8s.io": "SelfSubjectAccessReview SelfSubjectRulesReview SubjectAccessReview",
    "certificates.k8s.io": "CertificateSigningRequest ClusterTrustBundle",
    "extensions": "PodSecurityPolicy",
    "flowcontrol.apiserver.k8s.io": "FlowSchema PriorityLevelConfiguration",
    "networking.k8s.io": "IngressClass IPAddress ServiceCIDR",
    "node.k8s.io": "RuntimeClass",
    "policy": "PodSecurityPolicy",
    "rbac.authorization.k8s.io": "ClusterRole ClusterRoleBinding",
    "scheduling.k8s.io": "PriorityClass",
    "storage.k8s.io": "CSIDriver CSINode StorageClass VolumeAttachment VolumeAttributesClass",
    "storagemigration.k8s.io": "StorageVersionMigration",
}
CLUSTER_SCOPED = frozenset((group, kind) for group, kinds in _CLUSTER_SCOPED_GROUPS.items() for kind in kinds.split())

NOT_A_NAMESPACE = "~X"


def split_api_version(api_version: str) -> tuple[str, str]:
    if "/" in api_version:
        group, _, version = api_version.partition("/")
        return group, version
    return "", api_version


def scalar_text(value: object) -> str:
    """kyaml reads a kind or name as the scalar's text: `kind: 5` is kind "5", `name: true` is
    "true"; maps, lists and null are no name at all."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return ""


class Gvk(NamedTuple):
    group: str
    version: str
    kind: str

    def selected_by(self, group: str = "", version: str = "", kind: str = "") -> bool:
        return (not group or group == self.group) and (not version or version == self.version) and (
            not kind or kind == self.kind)

    def __str__(self) -> str:
        return f"{self.kind or '[noKind]'}.{self.version or '[noVer]'}.{self.group or '[noGrp]'}"

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


class ResId(NamedTuple):
    gvk: Gvk
    name: str
    namespace: str

    @property
    def cluster_scoped(self) -> bool:
        return (self.gvk.group, self.gvk.kind) in CLUSTER_SCOPED

    def effective_namespace(self) -> str:
        if self.cluster_scoped:
            return NOT_A_NAMESPACE
        return self.namespace or "default"

    def ns_equals(self, other: "ResId") -> bool:
        return self.effective_namespace() == other.effective_namespace()

    def equals(self, other: "ResId") -> bool:
        return self.gvk == other.gvk and self.name == other.name and self.ns_equals(other)

    def __str__(self) -> str:
        return f"{self.gvk}/{self.name or '[noName]'}.{self.namespace or '[noNs]'}"


def gvk_of(obj: dict) -> Gvk:
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    group, version = split_api_version(api_version if isinstance(api_version, str) else "")
    return Gvk(group, version, scalar_text(kind))


@dataclass(eq=False)
class Resource:
    obj: dict
    prev_ids: list = field(default_factory=list)
    prefixes: list = field(default_factory=list)
    suffixes: list = field(default_factory=list)
    needs_hash: bool = False
    behavior: str = ""
    generated: bool = False
    origin: dict | None = None
    transformations: list = field(default_factory=list)
    refby: list = field(default_factory=list)
    refvars: list = field(default_factory=list)
    # yaml.v3's complaints about keys given twice in the source, raised when Kustomize
    # decodes the object (printing it, or configuring a plugin with it)
    yaml_errors: list = field(default_factory=list)

    # -- plain accessors ------------------------------------------------------------
    @property
    def meta(self) -> dict:
        meta = self.obj.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
            self.obj["metadata"] = meta
        return meta

    @property
    def kind(self) -> str:
        return scalar_text(self.obj.get("kind"))

    @property
    def name(self) -> str:
        meta = self.obj.get("metadata")
        return scalar_text(meta.get("name") if isinstance(meta, dict) else None)

    @name.setter
    def name(self, value: str) -> None:
        self.meta["name"] = value

    @property
    def namespace(self) -> str:
        meta = self.obj.get("metadata")
        ns = meta.get("namespace") if isinstance(meta, dict) else None
        return ns if isinstance(ns, str) else ""

    @namespace.setter
    def namespace(self, value: str) -> None:
        self.meta["namespace"] = value

    @property
    def gvk(self) -> Gvk:
        return gvk_of(self.obj)

    def cur_id(self) -> ResId:
        return ResId(self.gvk, self.name, self.namespace)

    def org_id(self) -> ResId:
        return self.prev_ids[0] if self.prev_ids else self.cur_id()

    def all_ids(self) -> list:
        return [self.cur_id(), *self.prev_ids]

    def store_previous_id(self) -> None:
        cur = self.cur_id()
        ns = cur.effective_namespace()
        self.prev_ids.append(ResId(cur.gvk, cur.name, "" if ns == NOT_A_NAMESPACE else ns))

    def labels(self) -> dict:
        labels = self.meta.get("labels")
        return labels if isinstance(labels, dict) else {}

    def annotations(self) -> dict:
        annotations = self.meta.get("annotations")
        return annotations if isinstance(annotations, dict) else {}

    def copy(self) -> "Resource":
        import copy

        return Resource(
            copy.deepcopy(self.obj), list(self.prev_ids), list(self.prefixes), list(self.suffixes),
            self.needs_hash, self.behavior, self.generated,
            dict(self.origin) if self.origin else None, list(self.transformations), list(self.refby),
            list(self.refvars), list(self.yaml_errors))

    def copy_tracking_from(self, other: "Resource") -> None:
        self.prev_ids = list(other.prev_ids)
        self.prefixes = list(other.prefixes)
        self.suffixes = list(other.suffixes)
        self.refby = list(other.refby)
        self.refvars = list(other.refvars)
