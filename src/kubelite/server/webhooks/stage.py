"""The webhook stages inside a write, between the API server's own admission steps.

`APIServer` calls `mutating` after its built-in mutating admission (defaults, plugins) and
before validation, and `validating` after validation, before storage — kube-apiserver's order:
ValidatingAdmissionPolicies (`policies`), then the validating webhooks.
A patched object goes on as the API server's would: decoded (defaults), the built-in mutating
admission again, the registry strategy (status, generation, pruning of custom resources).
"""
from __future__ import annotations

from kubelite.server import errors
from kubelite.server.auth import user as users
from kubelite.server.webhooks.dispatch import WebhookAdmission
from kubelite.server.webhooks.matching import Attributes
from kubelite.server.webhooks.policies import PolicyAdmission

# Who the API server's own clients are when a write carries no user (controllers, bootstrap).
_INTERNAL_USERS = {
    "kube-controller-manager": users.authenticated("system:kube-controller-manager"),
    "kube-scheduler": users.authenticated("system:kube-scheduler"),
}
_OPTIONS_KINDS = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}
_SYSTEM_FIELDS = ("uid", "creationTimestamp", "generation")
_APISERVER = users.authenticated("system:apiserver", (users.MASTERS,))
_NEVER = object()  # equal to no version


class WebhookStage:
    def __init__(self, api):
        self.api = api
        self.admission = WebhookAdmission(api)
        self.policies = PolicyAdmission(api, self.admission)  # ValidatingAdmissionPolicies
        # The group's version at which neither webhooks nor policies were configured: a write that
        # reads it again has nothing to look at (six locked looks at what was read, each stage).
        self._idle: object = _NEVER
        self._version: tuple[int, object] = (0, None)  # (epoch of the APIServer's look, version read in it)

    def version(self, opts, look: tuple[int, bool] | None = None) -> object:
        """The configurations' version (the store's look at their group) for a write's two stages
        to share, as kube-apiserver's plugins read one informer: one look per write, not one per
        stage. None when the stages pass this write by anyway. `look`: the APIServer's look at
        its own writes (_OwnWrites.look()), by which the version read in its epoch still holds."""
        if _passed_by(opts):
            return None
        if look is not None:
            epoch, version = self._version
            if look[1] and epoch == look[0]:
                return version
        version = self.admission.configurations.group.version()
        if look is not None:
            self._version = (look[0], version)
        return version

    def mutating(self, r, obj: dict, old: dict | None, opts, subresource: str = "",
                 requested_name: str | None = None, version: object = None) -> tuple[dict, list[str]]:
        """`requested_name` (create): the name the request gave, "" when the server generates one.
        `version`: version(opts), as the write has read it (None: read here)."""
        attr = self._attributes(r, obj, old, opts, subresource, requested_name=requested_name, version=version)
        if attr is None:
            return obj, []
        system = {}
        if old is None:
            # kube-apiserver fills these after mutating admission (the name too, when it is
            # generated): its mutating webhooks never see them.
            attr.obj = dict(obj, metadata=dict(obj["metadata"]))
            fields = _SYSTEM_FIELDS + (("name",) if requested_name == "" else ())
            system = {k: attr.obj["metadata"].pop(k) for k in fields if k in attr.obj["metadata"]}
        sent = attr.obj
        patched, warnings = self.admission.mutate(attr)
        if patched is sent:
            return obj, warnings
        if isinstance(patched.get("metadata"), dict):
            # The server sets its system fields whatever a webhook wrote; a generated name only
            # when the webhook did not give one.
            meta = patched["metadata"]
            meta.update({k: v for k, v in system.items() if k != "name" or k not in meta})
        return self._decoded(r, obj, patched, old, subresource), warnings

    def validating(self, r, obj: dict, old: dict | None, opts, subresource: str = "",
                   requested_name: str | None = None, version: object = None) -> list[str]:
        attr = self._attributes(r, obj, old, opts, subresource, requested_name=requested_name, version=version)
        if attr is None:
            return []
        warnings = self.policies.validate(attr)  # kube-apiserver: ValidatingAdmissionPolicy, then the webhooks
        return warnings + self.admission.validate(attr)

    def deleting(self, r, obj: dict, opts) -> None:
        """DELETE: mutating webhooks are told of the request alone (no object: they may not
        patch), validating ones see the object being deleted as oldObject, as kube-apiserver's."""
        attr = self._attributes(r, obj, obj, opts, "", operation="DELETE")
        if attr is None:
            return
        attr.obj = attr.old = None
        self.admission.mutate(attr)
        attr.old = obj
        self.policies.validate(attr)
        self.admission.validate(attr)

    def _attributes(self, r, obj: dict, old: dict | None, opts, subresource: str,
                    operation: str = "", requested_name: str | None = None,
                    version: object = None) -> Attributes | None:
        if subresource == "scale" or _passed_by(opts):
            # scale writes are presented to webhooks as autoscaling/v1 Scale objects: not done
            return None
        if version is None:
            version = self.admission.configurations.group.version()  # one look at the store for both
        if version == self._idle:
            return None
        if not (self.admission.configured(version) or self.policies.configured(version)):
            self._idle = version
            return None  # the common case: nothing to build the attributes for
        user = getattr(opts, "user", None)
        operation = operation or ("CREATE" if old is None else "UPDATE")
        meta = obj.get("metadata") or {}
        attr = Attributes(
            operation=operation,
            group=r.group, version=r.version, resource=r.resource, kind=r.kind,
            namespace=str(meta.get("namespace") or "") if r.namespaced else "",
            name=str(meta.get("name") or "") if requested_name is None else requested_name, obj=obj, old=old,
            user=user if user is not None else _INTERNAL_USERS.get(getattr(opts, "field_manager", ""), _APISERVER),
            subresource=subresource, dry_run=bool(opts.dry_run),
            options=_options(_OPTIONS_KINDS[operation], opts),
        )
        if r.group == "" and r.resource == "namespaces":
            attr.namespace = attr.name  # kube-apiserver's attributes name the namespace itself
        return attr if self.admission.active(attr) or self.policies.active(attr) else None

    def _decoded(self, r, before: dict, patched: dict, old: dict | None, subresource: str) -> dict:
        """The patched object as the API server goes on with it: decoded (defaults), the built-in
        mutating admission run again (as kube-apiserver reinvokes it after a webhook changed the
        object) and the registry strategy's preparation (status kept, generation, pruning)."""
        meta, was = patched.get("metadata"), before.get("metadata") or {}
        if not isinstance(meta, dict):
            raise errors.internal_error("Object 'metadata' is not an object in the patched object")
        for identity in ("name", "namespace"):
            if meta.get(identity) != was.get(identity):
                raise errors.bad_request(f"the {identity} of the object was changed by an admission webhook")
        patched["apiVersion"], patched["kind"] = r.api_version, r.kind
        if old is None:
            return self.api._prepare_create(r, patched)
        return self.api._prepare_update(r, old, patched, subresource)


def _passed_by(opts) -> bool:
    # A dry run without a user is the server's own look-ahead (RBAC escalation checks).
    return getattr(opts, "user", None) is None and bool(opts.dry_run)


def _options(kind: str, opts) -> dict:
    out = {"kind": kind, "apiVersion": "meta.k8s.io/v1"}
    if opts.dry_run:
        out["dryRun"] = ["All"]
    if getattr(opts, "field_manager", ""):
        out["fieldManager"] = opts.field_manager
    if getattr(opts, "propagation_policy", None):
        out["propagationPolicy"] = opts.propagation_policy
    if getattr(opts, "grace_period_seconds", None) is not None:
        out["gracePeriodSeconds"] = opts.grace_period_seconds
    return out
