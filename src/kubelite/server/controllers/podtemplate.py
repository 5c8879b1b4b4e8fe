"""Pods made from a workload's pod template, and the pod facts workload controllers share.

Every workload controller (ReplicaSet, ReplicationController, StatefulSet, DaemonSet, Job) makes
its pods the same way kube-controller-manager's pod control does: the template's labels,
annotations, finalizers and spec, a controller ownerReference to the workload, and a name
generated from the workload's name unless the caller names the pod itself. Creation is recorded
as a `SuccessfulCreate` / `FailedCreate` Event on the owner.

Stable API (other controllers import these):
    controller_reference(owner) -> dict
    pod_from_template(template, owner, *, name=None, generate_name=None, labels=None) -> dict
    create_pod(controller, template, owner, *, name=None, labels=None, record=True, errors=None) -> dict | None
                                               # the created pod's metadata (name, uid)
    delete_pod(controller, pod, owner, *, record=True) -> bool
    selects(selector, labels) -> bool          # a metav1.LabelSelector, as controllers match
    selector_matcher(selector) -> (labels -> bool)   # selects(selector, ·), for a scan of many objects
    is_controlled_by(obj, owner) -> bool
    claim(controller, owner, rid, candidates, matches) -> list   # adopt orphans, release strays
    pod_is_active / pod_is_terminating / pod_is_ready / pod_ready_since / pod_is_available
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
import re

from kubelite.server.errors import StatusError

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def controller_reference(owner: dict) -> dict:
    """The ownerReference a controller puts on what it creates: controller and blocking deletion."""
    meta = owner.get("metadata") or {}
    return {"apiVersion": owner.get("apiVersion"), "kind": owner.get("kind"), "name": meta.get("name"),
            "uid": meta.get("uid"), "controller": True, "blockOwnerDeletion": True}


def pod_name_prefix(owner_name: str) -> str:
    """`<owner>-` for generateName, or the bare name when the dash would make it invalid."""
    prefix = f"{owner_name}-"
    # The server appends 5 characters; a prefix that cannot become a valid name is cut by it anyway.
    if len(prefix) <= 253 and _DNS_SUBDOMAIN.match(prefix[:-1] + "a"):
        return prefix
    return owner_name


def pod_from_template(template: dict, owner: dict, *, name: str | None = None,
                      generate_name: str | None = None, labels: dict | None = None) -> dict:
    """The Pod a controller creates from `template` (a PodTemplateSpec), owned by `owner`."""
    template = template or {}
    tmeta = template.get("metadata") or {}
    owner_meta = owner.get("metadata") or {}
    meta: dict = {}
    if name:
        meta["name"] = name
    else:
        meta["generateName"] = generate_name or pod_name_prefix(owner_meta.get("name", ""))
    meta["namespace"] = owner_meta.get("namespace")
    pod_labels = dict(tmeta.get("labels") or {})
    pod_labels.update(labels or {})
    if pod_labels:
        meta["labels"] = pod_labels
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    if tmeta.get("finalizers"):
        meta["finalizers"] = list(tmeta["finalizers"])
    meta["ownerReferences"] = [controller_reference(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": clone(template.get("spec") or {})}


def create_pod(controller, template: dict, owner: dict, *, name: str | None = None,
               labels: dict | None = None, record: bool = True, errors: list | None = None) -> dict | None:
    """Create a pod of `owner` through the API; record SuccessfulCreate / FailedCreate.

    Returns the created pod's metadata as stored (its name and uid; no resourceVersion: the pod
    itself is not decoded, the watch brings it), or None when the server refused it (the refusal
    is an Event on the owner, as kube-controller-manager reports it; a terminating namespace is
    not reported); the refusal's message is appended to `errors` when given."""
    pod = pod_from_template(template, owner, name=name, labels=labels)
    try:
        created = controller.client.create_meta("pods", pod)
    except StatusError as err:
        if errors is not None:
            errors.append(err.message)
        if record and not _namespace_terminating(err):
            controller.events.warning(owner, "FailedCreate", f"Error creating: {err.message}")
        if err.code == 409 and name:
            raise
        return None
    if record:
        controller.events.normal(owner, "SuccessfulCreate", f"Created pod: {created['name']}")
    return created


def delete_pod(controller, pod: dict, owner: dict, *, record: bool = True) -> bool:
    """Delete one pod of `owner` (by uid, so a namesake is spared); record SuccessfulDelete."""
    meta = pod.get("metadata") or {}
    try:
        deleted = controller.client.delete("pods", meta.get("namespace", ""), meta.get("name"), uid=meta.get("uid"))
    except StatusError as err:
        if record:
            controller.events.warning(owner, "FailedDelete", f"Error deleting: {err.message}")
        raise
    if deleted and record:
        controller.events.normal(owner, "SuccessfulDelete", f"Deleted pod: {meta.get('name')}")
    return deleted


def _namespace_terminating(err: StatusError) -> bool:
    return err.code == 403 and "being terminated" in (err.message or "")


# -- selectors and ownership -------------------------------------------------------------------

def selects(selector, labels) -> bool:
    """Whether a metav1.LabelSelector selects `labels`; an absent or empty selector selects
    nothing (controllers never act on everything)."""
    from kubelite.server.admission.validation_meta import selector_matches

    if not selector or not ((selector.get("matchLabels") or selector.get("matchExpressions"))):
        return False
    return selector_matches(selector, labels or {})


def selector_matcher(selector):
    """selects(selector, ·) with the selector read once: a sync scans every pod of a namespace
    (1,000s) against one selector. The selector must not change while the matcher is used."""
    if not selector or not ((selector.get("matchLabels") or selector.get("matchExpressions"))):
        return _selects_nothing
    wanted = selector.get("matchLabels")
    if isinstance(wanted, dict) and not selector.get("matchExpressions"):
        wanted = tuple(wanted.items())

        def matches(labels) -> bool:
            if not isinstance(labels, dict):
                labels = {}
            for key, value in wanted:
                if labels.get(key) != value:
                    return False
            return True

        return matches
    from kubelite.server.admission.validation_meta import selector_matches

    return lambda labels: selector_matches(selector, labels or {})


def _selects_nothing(labels) -> bool:
    return False


def is_controlled_by(obj: dict, owner: dict) -> bool:
    uid = (owner.get("metadata") or {}).get("uid")
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller") and ref.get("uid") == uid:
            return True
    return False


# -- pod state ---------------------------------------------------------------------------------

def pod_is_terminating(pod: dict) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def pod_is_active(pod: dict) -> bool:
    """Not finished and not being deleted (what a workload counts as one of its replicas)."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod_is_terminating(pod)


def _ready_condition(pod: dict) -> dict | None:
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "Ready":
            return cond
    return None


def pod_is_ready(pod: dict) -> bool:
    cond = _ready_condition(pod)
    return bool(cond and cond.get("status") == "True")


def pod_ready_since(pod: dict) -> float | None:
    """Epoch seconds of the Ready condition's last transition, if the pod is ready."""
    from kubelite.server.clock import parse_time

    cond = _ready_condition(pod)
    if not cond or cond.get("status") != "True":
        return None
    return parse_time(cond.get("lastTransitionTime"))


def pod_is_available(pod: dict, min_ready_seconds: int, now: float) -> bool:
    """Ready for at least `min_ready_seconds` (ready at all when it is 0)."""
    if not pod_is_ready(pod):
        return False
    if not min_ready_seconds:
        return True
    since = pod_ready_since(pod)
    return since is not None and since + min_ready_seconds <= now


# -- adoption and release ----------------------------------------------------------------------

def claim(controller, owner: dict, rid: str, candidates: list[dict], matches) -> list[dict]:
    """The objects `owner` controls among `candidates` (same namespace), as ControllerRefManager
    claims them: orphans that `matches` selects are adopted (an ownerReference patched in), owned
    ones it no longer selects are released (their ownerReference patched out)."""
    owner_meta = owner.get("metadata") or {}
    owner_uid = owner_meta.get("uid")
    owner_deleting = bool(owner_meta.get("deletionTimestamp"))
    claimed = []
    for obj in candidates:
        ref = _controller_ref(obj)
        if ref is not None:
            if ref.get("uid") != owner_uid:
                continue
            if matches(obj):
                claimed.append(obj)
            elif not owner_deleting:
                _release(controller, rid, obj, owner_uid)
            continue
        if owner_deleting or not matches(obj) or (obj.get("metadata") or {}).get("deletionTimestamp"):
            continue
        adopted = _adopt(controller, rid, obj, owner)
        if adopted is not None:
            claimed.append(adopted)
    return claimed


def _controller_ref(obj: dict) -> dict | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def _adopt(controller, rid: str, obj: dict, owner: dict) -> dict | None:
    meta = obj.get("metadata") or {}
    patch = {"metadata": {"ownerReferences": [controller_reference(owner)], "uid": meta.get("uid")}}
    try:
        return controller.client.patch(rid, meta.get("namespace", ""), meta.get("name"), patch,
                                       "application/strategic-merge-patch+json")
    except StatusError as err:
        if err.code in (404, 409, 422):
            return None
        raise


def _release(controller, rid: str, obj: dict, owner_uid: str) -> None:
    meta = obj.get("metadata") or {}
    patch = {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": owner_uid}], "uid": meta.get("uid")}}
    try:
        controller.client.patch(rid, meta.get("namespace", ""), meta.get("name"), patch,
                                "application/strategic-merge-patch+json")
    except StatusError as err:
        if err.code not in (404, 409, 422):
            raise
