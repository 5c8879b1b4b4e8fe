"""ApplySet-based pruning (KEP-3659), written the way kubectl 1.32 writes it.

The set's parent object (a Secret by default, a ConfigMap, or a custom resource whose CRD is
labelled `applyset.kubernetes.io/is-parent-type`) carries the set's id label and annotations
listing the kinds and extra namespaces of its members; every member carries the
`applyset.kubernetes.io/part-of` label. An apply first widens the parent to the union of the
old and new kinds/namespaces, applies, prunes members not applied now, then narrows the
parent to what this apply holds. Because the id, labels and annotations are kubectl's,
kubectl and kubelite manage the same sets.

The parent is written as kubectl writes it: a forced server-side apply of its metadata
(field manager `kubectl-applyset`), which also creates it.
"""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field

PART_OF = "applyset.kubernetes.io/part-of"
ID_LABEL = "applyset.kubernetes.io/id"
TOOLING = "applyset.kubernetes.io/tooling"
KINDS = "applyset.kubernetes.io/contains-group-kinds"
DEPRECATED_RESOURCES = "applyset.kubernetes.io/contains-group-resources"
NAMESPACES = "applyset.kubernetes.io/additional-namespaces"
PARENT_TYPE_LABEL = "applyset.kubernetes.io/is-parent-type"

# The tooling name decides who may manage a set: kubectl refuses parents whose tooling is not
# `kubectl/...`. kubelite implements kubectl's apply, so it signs as kubectl (with its own
# version) to share sets with it.
TOOLING_NAME = "kubectl"
FIELD_MANAGER = f"{TOOLING_NAME}-applyset"
BUILTIN_PARENTS = {("", "secrets"), ("", "configmaps")}


class ApplySetError(ValueError):
    """A problem with the ApplySet; the message is kubectl's."""


# -- pure pieces -----------------------------------------------------------------------------------


def applyset_id(name: str, namespace: str, kind: str, group: str) -> str:
    """kubectl's v1 id: base64url (no padding) of sha256 over `name.namespace.Kind.group`."""
    digest = hashlib.sha256(".".join([name, namespace, kind, group]).encode()).digest()
    return "applyset-" + base64.urlsafe_b64encode(digest).decode().rstrip("=") + "-v1"


def group_kind(kind: str, group: str) -> str:
    """Go's schema.GroupKind.String(): `Deployment.apps`, or `ConfigMap` in the core group."""
    return f"{kind}.{group}" if group else kind


def parse_group_kind(text: str) -> tuple[str, str]:
    """(kind, group) from `Kind.group` (schema.ParseGroupKind: the kind ends at the first dot)."""
    kind, _, group = text.partition(".")
    return kind, group


def kinds_annotation(group_kinds) -> str:
    return ",".join(sorted(group_kinds))


def namespaces_annotation(namespaces, skip: str) -> str:
    return ",".join(sorted(ns for ns in namespaces if ns != skip))


def tooling_base(text: str) -> str:
    """`kubectl/v1.32.4` -> `kubectl` (everything before the last slash)."""
    head, slash, _ = text.rpartition("/")
    return head if slash else text


def tooling_value() -> str:
    from kubelite.cli.version import client_version

    return f"{TOOLING_NAME}/{client_version()['gitVersion']}"


def with_member_label(obj: dict, set_id: str) -> dict:
    """The object labelled as a member (a copy); kubectl's error if the file already sets it."""
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    labels = metadata.get("labels") if isinstance(metadata.get("labels"), dict) else {}
    if PART_OF in labels:
        raise ApplySetError(f'ApplySet label "{PART_OF}" already set in input data')
    return {**obj, "metadata": {**metadata, "labels": {**labels, PART_OF: set_id}}}


# -- the set during one apply --------------------------------------------------------------------------


@dataclass
class ApplySet:
    session: object
    resource: object          # the parent's ResourceInfo
    name: str
    namespace: str            # "" for a cluster-scoped parent
    current_kinds: set = field(default_factory=set)        # from the parent before this apply
    current_namespaces: set = field(default_factory=set)
    updated_kinds: set = field(default_factory=set)        # what this apply holds
    updated_namespaces: set = field(default_factory=set)

    # -- setting up --------------------------------------------------------------------------

    @classmethod
    def for_run(cls, session, reference: str, *, namespace: str, namespace_explicit: bool) -> "ApplySet":
        resource, name = parse_parent_ref(session, reference)
        # kubectl takes the parent's namespace from -n only, never from the kubeconfig context.
        parent_ns = namespace if namespace_explicit and resource.namespaced else ""
        applyset = cls(session, resource, name, parent_ns)
        applyset.validate()
        return applyset

    @property
    def id(self) -> str:
        return applyset_id(self.name, self.namespace, self.resource.kind, self.resource.group)

    def describe(self) -> str:
        """kubectl's ApplySetParentRef.String(): `secrets./name`, `foos.example.com/name`."""
        return f"{self.resource.resource}.{self.resource.group}/{self.name}"

    def validate(self) -> None:
        problems = []
        if self.resource.namespaced and not self.namespace:
            problems.append("namespace is required to use namespace-scoped ApplySet")
        if (self.resource.group, self.resource.resource) not in BUILTIN_PARENTS:
            if f"{self.resource.resource}.{self.resource.group}" not in self._parent_crds():
                r = self.resource
                problems.append(f'resource "{r.group}/{r.version}, Resource={r.resource}" is not permitted as an '
                                "ApplySet parent")
        if len(problems) == 1:
            raise ApplySetError(problems[0])
        if problems:
            raise ApplySetError("[" + ", ".join(problems) + "]")

    def _parent_crds(self) -> set:
        registry = self.session.discovery.registry
        crds = registry.by_kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
        listed = self.session.client.list(crds, None, label_selector=PARENT_TYPE_LABEL)
        return {(item.get("metadata") or {}).get("name") for item in listed.get("items") or []}

    def label_members(self, items) -> None:
        for item in items:
            item.obj = with_member_label(item.obj, self.id)

    # -- before applying ------------------------------------------------------------------------

    def before_apply(self, applier, items, dry_run: str) -> None:
        """Read the parent, record this apply's kinds, widen the parent to the union."""
        from kubelite.apply.objects import ObjectError

        try:
            self.label_members(items)
            labelling_error = None
        except ApplySetError as err:
            # kubectl finds this while reading the files, then still updates the parent with
            # no objects before reporting it
            labelling_error, items = err, []
        self.fetch_parent()
        for item in items:
            try:
                applier.resolve(item)
            except ObjectError:
                continue  # reported when the item is applied
            self.add(item.resource, item.namespace)
        self.write_parent(superset=True, dry_run=dry_run, validation=applier.options.validation)
        if labelling_error is not None:
            raise labelling_error

    def add(self, resource, namespace: str) -> None:
        self.updated_kinds.add(group_kind(resource.kind, resource.group))
        if resource.namespaced and namespace:
            self.updated_namespaces.add(namespace)

    def fetch_parent(self) -> None:
        from kubelite.client.errors import ApiError, is_not_found

        try:
            parent = self.session.client.get(self.resource, self.name, self.namespace or None)
        except ApiError as err:
            if not is_not_found(err):
                raise ApplySetError(f'failed to fetch ApplySet parent object "{self.describe()}": {err}') from None
            if (self.resource.group, self.resource.resource) not in BUILTIN_PARENTS:
                raise ApplySetError("custom resource ApplySet parents cannot be created automatically") from None
            return
        metadata = parent.get("metadata") or {}
        labels, annotations = metadata.get("labels") or {}, metadata.get("annotations") or {}
        ref = self.describe()
        if TOOLING not in annotations:
            raise ApplySetError(f'ApplySet parent object "{ref}" already exists and is missing required annotation '
                                f'"{TOOLING}"')
        managed_by = tooling_base(annotations[TOOLING])
        if managed_by != TOOLING_NAME:
            raise ApplySetError(f'ApplySet parent object "{ref}" already exists and is managed by tooling '
                                f'"{managed_by}" instead of "{TOOLING_NAME}"')
        if ID_LABEL not in labels:
            raise ApplySetError(f'ApplySet parent object "{ref}" exists and does not have required label {ID_LABEL}')
        if labels[ID_LABEL] != self.id:
            raise ApplySetError(f'ApplySet parent object "{ref}" exists and has incorrect value for label '
                                f'"{ID_LABEL}" (got: {labels[ID_LABEL]}, want: {self.id})')
        self.current_kinds = self._parse_kinds(annotations)
        text = annotations.get(NAMESPACES) or ""
        self.current_namespaces = set(text.split(",")) if text else set()
        if self.resource.namespaced:
            self.current_namespaces.add(self.namespace)

    def _parse_kinds(self, annotations: dict) -> set:
        if KINDS not in annotations:
            if annotations.get(DEPRECATED_RESOURCES):
                return self._parse_deprecated(annotations[DEPRECATED_RESOURCES])
            raise ApplySetError(f'parsing ApplySet annotation on "{self.describe()}": kubectl requires the "{KINDS}" '
                                "annotation to be set on all ApplySet parent objects")
        text = annotations[KINDS]
        kinds = set(text.split(",")) if text else set()
        for gk in kinds:
            if self._resource_for(gk) is None:
                kind, group = parse_group_kind(gk)
                raise ApplySetError(f'parsing ApplySet annotation on "{self.describe()}": could not find mapping for '
                                    f'kind in "{KINDS}" annotation: no matches for kind "{kind}" in group "{group}"')
        return kinds

    def _parse_deprecated(self, text: str) -> set:
        kinds = set()
        for gr in text.split(","):
            resource, _, group = gr.partition(".")
            found = next((r for r in self.session.discovery.registry.preferred()
                          if r.group == group and r.resource == resource), None)
            if found is None:
                raise ApplySetError(f'parsing ApplySet annotation on "{self.describe()}": invalid group resource in '
                                    f'"{DEPRECATED_RESOURCES}" annotation: no matches for {group}/, Resource={resource}')
            kinds.add(group_kind(found.kind, found.group))
        return kinds

    def _resource_for(self, gk: str):
        kind, group = parse_group_kind(gk)
        registry = self.session.discovery.registry
        for candidates in (registry.preferred(), registry.all()):
            for r in candidates:
                if r.group == group and r.kind == kind:
                    return r
        return None

    # -- writing the parent -----------------------------------------------------------------------

    def parent_metadata(self, superset: bool) -> dict:
        kinds = self.current_kinds | self.updated_kinds if superset else self.updated_kinds
        namespaces = self.current_namespaces | self.updated_namespaces if superset else self.updated_namespaces
        return {
            "name": self.name, **({"namespace": self.namespace} if self.namespace else {}),
            "labels": {ID_LABEL: self.id},
            "annotations": {TOOLING: tooling_value(), KINDS: kinds_annotation(kinds),
                            NAMESPACES: namespaces_annotation(namespaces, self.namespace)},
        }

    def write_parent(self, *, superset: bool, dry_run: str, validation: str = "Strict") -> dict | None:
        from kubelite.client.dynamic import WriteParams
        from kubelite.client.errors import ApiError
        from kubelite.patch.strategic import to_json

        if dry_run == "client":
            return None
        metadata = self.parent_metadata(superset)
        params = WriteParams(dry_run=dry_run == "server", field_manager=FIELD_MANAGER, field_validation=validation)
        client, ns = self.session.client, self.namespace or None
        body = {"apiVersion": self.resource.api_version, "kind": self.resource.kind, "metadata": metadata}
        try:
            return client.patch(self.resource, ns, self.name, to_json(body), "apply", params, force=True)
        except ApiError as err:
            raise ApplySetError(f"failed to update ApplySet: {err}") from None

    # -- pruning ------------------------------------------------------------------------------------

    def prune(self, applier, result, dry_run: str, *, propagation: str = "Background",
              grace_period: int = -1) -> list[dict]:
        """Delete the set's members this apply did not apply; then narrow the parent."""
        from kubelite.apply.prune import delete
        from kubelite.client.errors import ApiError

        for outcome in result.outcomes:  # kinds resolved only during the run (CRs of a new CRD)
            if outcome.error is None and outcome.item.resource is not None:
                self.add(outcome.item.resource, outcome.item.namespace)
        pruned = []
        for obj, resource in self.find_members_to_prune(result.visited_uids):
            metadata = obj.get("metadata") or {}
            if dry_run != "client":
                try:
                    delete(self.session.client, resource, obj, grace_period=grace_period,
                           server_dry_run=dry_run == "server", propagation=propagation)
                except ApiError as err:
                    where = f"{metadata.get('namespace')}/" if metadata.get("namespace") else ""
                    raise ApplySetError(f"pruning {group_kind(resource.kind, resource.group)} {where}"
                                        f"{metadata.get('name')}: {err}") from None
            pruned.append(obj)
        try:
            self.write_parent(superset=False, dry_run=dry_run, validation=applier.options.validation)
        except ApplySetError as err:
            raise ApplySetError(f"apply and prune succeeded, but ApplySet update failed: {err}") from None
        return pruned

    def find_members_to_prune(self, visited_uids: set) -> list[tuple[dict, object]]:
        selector = f"{PART_OF}={self.id}"
        found = []
        for gk in sorted(self.current_kinds):
            resource = self._resource_for(gk)
            if resource is None:
                continue
            scopes = sorted(self.current_namespaces) if resource.namespaced else [None]
            for namespace in scopes:
                listed = self.session.client.list(resource, namespace, label_selector=selector)
                for obj in listed.get("items") or []:
                    if (obj.get("metadata") or {}).get("uid") in visited_uids:
                        continue
                    found.append(({"apiVersion": resource.api_version, "kind": resource.kind, **obj}, resource))
        return found


def parse_parent_ref(session, reference: str):
    """(resource, name) from `NAME`, `RESOURCE/NAME` or `RESOURCE.GROUP/NAME` (kubectl's rules)."""
    from kubelite.client.errors import ClientError

    typed, slash, name = reference.partition("/")
    if not slash:
        typed, name = "secrets", reference
    if not name:
        raise ApplySetError(f'invalid parent reference "{reference}": name cannot be blank')
    resource_name, _, group = typed.partition(".")
    registry = session.discovery.registry
    for candidates in (registry.preferred(), registry.all()):
        for r in candidates:
            if r.group == group and resource_name in (r.resource, r.singular or r.kind.lower()):
                return r, name
    try:
        # a CRD created moments ago: let discovery look again
        return session.discovery.resolve(typed), name
    except ClientError:
        pass
    raise ApplySetError(f'invalid parent reference "{reference}": no matches for {group}/, Resource={resource_name}')
