"""The two webhook admission stages, as kube-apiserver's dispatchers run them.

Mutating: the matching webhooks in order (configurations by name, webhooks in their order),
one at a time, each seeing the previous one's patch; when a patch changed the object, the
webhooks with reinvocationPolicy IfNeeded called before that change are called once more.
Validating: every matching webhook (kube-apiserver calls them in parallel); the first refusal
in order is the answer. For both: `failurePolicy: Ignore` forgives a webhook that could not be
called or answered nonsense, never one that refused; a dry-run request is refused for a webhook
whose sideEffects are not None/NoneOnDryRun.
"""
from __future__ import annotations

import json

from kubelite.lazylog import LazyLogger
from kubelite.server import errors
from kubelite.server.webhooks.config import GROUP, MUTATING, VALIDATING, Configurations
from kubelite.server.webhooks.matching import Attributes, Matcher
from kubelite.server.webhooks.versions import to_version

log = LazyLogger("kubelite.server.webhooks")  # logging imported at the first message

# Never sent to webhooks, so that a broken webhook cannot lock its own configuration in.
_EXEMPT_KINDS = frozenset({"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
                           "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                           "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"})
_SIDE_EFFECTS_SAFE_ON_DRY_RUN = ("None", "NoneOnDryRun")


class _CallingError(Exception):
    """kube-apiserver's ErrCallingWebhook: subject to the failure policy."""

    def __init__(self, name: str, reason: str, status: errors.StatusError):
        super().__init__(f'failed calling webhook "{name}": {reason}')
        self.status = status


class WebhookAdmission:
    """The webhook stages of one API server (`api`: its registry and store)."""

    def __init__(self, api):
        self.api = api
        self.configurations = Configurations(api.store)
        self.matcher = Matcher(self._namespace_labels, self._equivalents)
        self._resolver = None

    @property
    def resolver(self):
        """Where a webhook lives; its module (with ssl and the HTTPS call) and the review's are
        loaded when a webhook is first called, not at every write's look for configurations."""
        if self._resolver is None:
            from kubelite.server.webhooks import caller

            self._resolver = caller.Resolver(self._read, self._slices)
        return self._resolver

    def active(self, attr: Attributes) -> bool:
        if attr.group == GROUP and attr.kind in _EXEMPT_KINDS:
            return False
        return self.configured()

    def configured(self, version: object = None) -> bool:
        """Whether any webhook is configured (none: no request needs looking at). `version`: the
        group's version() as the caller has just read it."""
        if version is None:
            version = self.configurations.group.version()
        return bool(self.configurations.hooks(MUTATING, version) or self.configurations.hooks(VALIDATING, version))

    # -- mutating --------------------------------------------------------------------------------

    def mutate(self, attr: Attributes) -> tuple[dict | None, list[str]]:
        """Call the mutating webhooks; the object as patched, and the webhooks' warnings."""
        warnings: list[str] = []
        hooks = self.configurations.hooks(MUTATING)
        if not hooks or not self.active(attr):
            return attr.obj, warnings
        invoked_reinvocable: list[str] = []
        to_reinvoke: set[str] = set()
        changed_any = False
        for hook in hooks:
            changed = self._mutating_round(hook, attr, warnings)
            if changed is None:
                continue
            if changed:
                changed_any = True
                to_reinvoke.update(invoked_reinvocable)
                invoked_reinvocable.clear()
            if hook.spec.get("reinvocationPolicy") == "IfNeeded":
                invoked_reinvocable.append(hook.uid)
        if changed_any and to_reinvoke:
            for hook in hooks:
                if hook.uid in to_reinvoke:
                    self._mutating_round(hook, attr, warnings)
        return attr.obj, warnings

    def _mutating_round(self, hook, attr: Attributes, warnings: list[str]) -> bool | None:
        """Call one mutating webhook if it matches: None when it was not called, else whether its
        patch changed the object (attr.obj is replaced)."""
        invocation = self.matcher.invocation(hook, attr)
        if invocation is None:
            return None
        try:
            response = self._call(hook, invocation, attr, mutating=True)
        except _CallingError as err:
            return self._failed(hook, err)
        warnings.extend(str(w) for w in response.get("warnings") or ())
        if not response.get("allowed"):
            raise denied(hook.name, response.get("status"))
        from kubelite.server.webhooks import review

        try:
            patch = review.patch_bytes(response)
        except ValueError as err:
            return self._failed(hook, _CallingError(hook.name, f"failed to call webhook: {err}",
                                                    errors.StatusError(503, "ServiceUnavailable",
                                                                       "error calling webhook")))
        if not patch:
            return False
        patched = self._apply_patch(hook, invocation, attr, patch, response.get("patchType"))
        if patched is None:
            return False
        changed = patched != attr.obj
        attr.obj = patched
        return changed

    def _apply_patch(self, hook, invocation, attr: Attributes, patch: bytes, patch_type) -> dict | None:
        from kubelite.patch import PatchError, json_patch

        try:
            ops = json.loads(patch)
        except ValueError as err:
            self._failed(hook, _CallingError(
                hook.name, f"received undecodable patch in webhook response: {err}",
                errors.StatusError(503, "ServiceUnavailable", "error decoding patch in webhook response")))
            return None
        if not isinstance(ops, list):
            self._failed(hook, _CallingError(
                hook.name, "received undecodable patch in webhook response: json: cannot unmarshal object into "
                           "Go value of type jsonpatch.Patch",
                errors.StatusError(503, "ServiceUnavailable", "error decoding patch in webhook response")))
            return None
        if not ops:
            return None
        if attr.obj is None:
            raise errors.internal_error(f'admission webhook "{hook.name}" attempted to modify the object, which '
                                        "is not supported for this operation")
        if patch_type != "JSONPatch":
            self._failed(hook, _CallingError(hook.name, f'unsupported patch type "{patch_type}"', denied(hook.name, None)))
            return None
        seen = to_version(attr.obj, invocation.group, invocation.version, invocation.kind)
        try:
            patched = json_patch.apply(seen, ops, kubectl_compat=True)
        except PatchError as err:
            raise errors.internal_error(str(err)) from None  # the json-patch library's own text
        if not isinstance(patched, dict):
            raise errors.internal_error("Object 'Kind' is missing in patched object")
        return to_version(patched, attr.group, attr.version, attr.kind)

    # -- validating ------------------------------------------------------------------------------

    def validate(self, attr: Attributes) -> list[str]:
        """Call the validating webhooks; their warnings, or the first refusal raised."""
        warnings: list[str] = []
        hooks = self.configurations.hooks(VALIDATING)
        if not hooks or not self.active(attr):
            return warnings
        invocations = [inv for inv in (self.matcher.invocation(h, attr) for h in hooks) if inv is not None]
        failure = None
        for invocation, outcome in zip(invocations, self._outcomes(invocations, attr)):
            hook = invocation.hook
            if isinstance(outcome, _CallingError):
                if hook.failure_ignored:
                    log.warning("Failed calling webhook, failing open %s: %s", hook.name, outcome)
                    continue
                failure = failure or errors.internal_error(str(outcome))
                continue
            if isinstance(outcome, Exception):
                failure = failure or outcome
                continue
            warnings.extend(str(w) for w in outcome.get("warnings") or ())
            if not outcome.get("allowed"):
                failure = failure or denied(hook.name, outcome.get("status"))
        if failure is not None:
            raise failure
        return warnings

    def _outcomes(self, invocations: list, attr: Attributes) -> list:
        """Each validating webhook's response or error; several are called at once, as
        kube-apiserver does (the first refusal in configuration order is the answer here)."""
        def outcome(invocation):
            try:
                return self._call(invocation.hook, invocation, attr, mutating=False)
            except (_CallingError, errors.StatusError) as err:
                return err

        if len(invocations) < 2:
            return [outcome(invocation) for invocation in invocations]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(invocations), 8),
                                thread_name_prefix="kubelite-validating-webhooks") as pool:
            return list(pool.map(outcome, invocations))

    # -- one call --------------------------------------------------------------------------------

    def _call(self, hook, invocation, attr: Attributes, mutating: bool) -> dict:
        from kubelite.server.webhooks import caller, review

        spec = hook.spec
        if attr.dry_run and spec.get("sideEffects") not in _SIDE_EFFECTS_SAFE_ON_DRY_RUN:
            if spec.get("sideEffects") is None:
                raise _CallingError(hook.name, "Webhook SideEffects is nil", errors.bad_request("Webhook SideEffects is nil"))
            raise errors.bad_request(f'admission webhook "{hook.name}" does not support dry run')
        versions = [str(v) for v in spec.get("admissionReviewVersions") or ()]
        if "v1" not in versions:
            raise _CallingError(hook.name, "could not create admission objects: webhook does not accept known "
                                           "AdmissionReview versions (v1, v1beta1)",
                                errors.bad_request("error creating admission objects"))
        uid = review.new_uid()
        body = review.request(uid, attr, invocation,
                              to_version(attr.obj, invocation.group, invocation.version, invocation.kind),
                              to_version(attr.old, invocation.group, invocation.version, invocation.kind))
        timeout = _timeout(spec.get("timeoutSeconds"))
        try:
            target = self.resolver.target(spec.get("clientConfig") or {})
            answer = caller.post(target, (spec.get("clientConfig") or {}).get("caBundle"), body, timeout)
        except caller.CallFailed as err:
            status = err.status or errors.StatusError(503, "ServiceUnavailable", "error calling webhook")
            raise _CallingError(hook.name, f"failed to call webhook: {err.reason}", status) from None
        try:
            return review.verify(uid, answer, mutating)
        except review.InvalidResponse as err:
            raise _CallingError(hook.name, f"received invalid webhook response: {err}",
                                errors.StatusError(503, "ServiceUnavailable", "error validating webhook response")) \
                from None

    @staticmethod
    def _failed(hook, err: _CallingError) -> None:
        """A webhook that could not be called: forgiven under Ignore, else the request fails."""
        if hook.failure_ignored:
            log.warning("Failed calling webhook, failing open %s: %s", hook.name, err)
            return None
        log.warning("Failed calling webhook, failing closed %s: %s", hook.name, err)
        raise errors.internal_error(str(err))

    # -- cluster state ---------------------------------------------------------------------------

    def _read(self, group: str, resource: str, namespace: str, name: str) -> dict | None:
        kv = self.api.store.get(f"/registry/{group or 'core'}/{resource}/{namespace + '/' if namespace else ''}{name}")
        return json.loads(kv.value) if kv is not None else None

    def _namespace_labels(self, name: str) -> dict | None:
        namespace = self._read("", "namespaces", "", name)
        if namespace is None:
            return None
        labels = (namespace.get("metadata") or {}).get("labels")
        return labels if isinstance(labels, dict) else {}

    def _slices(self, namespace: str, service: str) -> list[dict]:
        out = []
        for kv in self.api.store.range(f"/registry/discovery.k8s.io/endpointslices/{namespace}/").kvs:
            eps = json.loads(kv.value)
            if ((eps.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/service-name") == service:
                out.append(eps)
        return out

    def _equivalents(self, group: str, resource: str) -> list[tuple[str, str, str, str]]:
        return [(r.group, r.version, r.resource, r.kind) for r in self.api.registry.all()
                if r.group == group and r.resource == resource]


def _timeout(value) -> int:
    try:
        seconds = int(value)
    except (TypeError, ValueError):
        return 10
    return min(max(seconds, 1), 30)


def denied(name: str, result) -> errors.StatusError:
    """The refusal of webhook `name`, built from its response.status (kube-apiserver's ToStatusErr)."""
    result = result if isinstance(result, dict) else {}
    prefix = f'admission webhook "{name}" denied the request'
    message, reason = str(result.get("message") or ""), str(result.get("reason") or "")
    if message:
        text = f"{prefix}: {message}"
    elif reason:
        text = f"{prefix}: {reason}"
    else:
        text = f"{prefix} without explanation"
    try:
        code = int(result.get("code") or 0)
    except (TypeError, ValueError):
        code = 0
    details = result.get("details") if isinstance(result.get("details"), dict) else {}
    return errors.StatusError(
        code if code >= 400 else 400, reason, text,
        name=str(details.get("name") or ""), group=str(details.get("group") or ""),
        kind=str(details.get("kind") or ""), uid=str(details.get("uid") or ""),
        causes=[c for c in details.get("causes") or () if isinstance(c, dict)],
        retry_after_seconds=details.get("retryAfterSeconds") if isinstance(details.get("retryAfterSeconds"), int)
        else None,
        has_details=bool(details))
