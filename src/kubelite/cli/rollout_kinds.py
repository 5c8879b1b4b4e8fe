"""What `rollout` does per kind: a small table (group, kind) -> implementation.

An implementation answers `status` (a message and whether the rollout is done), `history` (the
revisions: number -> the object holding that revision's pod template), `template` / `change_cause`
of one such object, `rollback`, and the `pause` / `resume` / `restart` changes of the object.
Deployments are here; other kinds register themselves with `register(group, kind, impl)` from
their own module (listed in `_PLUGINS`, imported when a kind is first looked up).
"""
from __future__ import annotations

import copy
import json

CHANGE_CAUSE = "kubernetes.io/change-cause"
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
# Deployment annotations `rollout undo` neither copies from the ReplicaSet nor drops.
UNDO_KEEPS = ("kubectl.kubernetes.io/last-applied-configuration", REVISION, "deployment.kubernetes.io/revision-history",
              "deployment.kubernetes.io/desired-replicas", "deployment.kubernetes.io/max-replicas",
              "deprecated.deployment.rollback.to")

# Modules that register more kinds (DaemonSet, StatefulSet) when imported.
_PLUGINS = ("kubelite.cli.rollout_daemonset", "kubelite.cli.rollout_statefulset")
_KINDS: dict[tuple[str, str], object] = {}
_loaded = False


class RolloutError(Exception):
    """A failure kubectl reports as `error: <message>`."""


def register(group: str, kind: str, impl) -> None:
    _KINDS[(group, kind)] = impl


def lookup(group: str, kind: str):
    global _loaded
    if not _loaded:
        _loaded = True
        import importlib

        for name in _PLUGINS:
            try:
                importlib.import_module(name)
            except ImportError:
                pass
    return _KINDS.get((group, kind))


def template_without_hash(template: dict) -> dict:
    out = copy.deepcopy(template or {})
    md = out.get("metadata") or {}
    labels = md.get("labels") or {}
    labels.pop(HASH_LABEL, None)
    if "labels" in md and not labels:
        del md["labels"]
    md.pop("creationTimestamp", None)
    if "metadata" in out and not md:
        del out["metadata"]
    return out


class Deployments:
    """Deployments: revisions are the ReplicaSets the Deployment controls."""

    resource = "deployments"

    # -- status --------------------------------------------------------------------------------

    def status(self, obj: dict, revision: int) -> tuple[str, bool]:
        name = obj["metadata"]["name"]
        if revision > 0:
            current = _int((obj["metadata"].get("annotations") or {}).get(REVISION)) or 0
            if current != revision:
                raise RolloutError(f"desired revision ({revision}) is different from the running revision ({current})")
        status = obj.get("status") or {}
        if (obj["metadata"].get("generation") or 0) > (status.get("observedGeneration") or 0):
            return "Waiting for deployment spec update to be observed...\n", False
        for cond in status.get("conditions") or []:
            if cond.get("type") == "Progressing" and cond.get("reason") == "ProgressDeadlineExceeded":
                raise RolloutError(f'deployment "{name}" exceeded its progress deadline')
        desired = (obj.get("spec") or {}).get("replicas", 1)
        updated = status.get("updatedReplicas") or 0
        replicas = status.get("replicas") or 0
        available = status.get("availableReplicas") or 0
        prefix = f'Waiting for deployment "{name}" rollout to finish: '
        if desired is not None and updated < desired:
            return f"{prefix}{updated} out of {desired} new replicas have been updated...\n", False
        if replicas > updated:
            return f"{prefix}{replicas - updated} old replicas are pending termination...\n", False
        if available < updated:
            return f"{prefix}{available} of {updated} updated replicas are available...\n", False
        return f'deployment "{name}" successfully rolled out\n', True

    # -- history ---------------------------------------------------------------------------------

    def history(self, sess, obj: dict) -> dict[int, dict]:
        """Revision -> ReplicaSet, for the ReplicaSets this Deployment controls."""
        from kubelite.server.printers.formats import InvalidSelector, selector_string

        rs_info = sess.discovery.resolve("replicasets.apps")
        uid = obj["metadata"].get("uid")
        try:  # as kubectl: the ReplicaSets its selector matches, then those it controls
            selector = selector_string((obj.get("spec") or {}).get("selector")) or None
        except InvalidSelector:
            selector = None
        items = sess.client.list(rs_info, obj["metadata"].get("namespace"), label_selector=selector).get("items") or []
        out: dict[int, dict] = {}
        for rs in items:
            if not any(ref.get("controller") and ref.get("uid") == uid
                       for ref in rs["metadata"].get("ownerReferences") or []):
                continue
            revision = _int((rs["metadata"].get("annotations") or {}).get(REVISION))
            if revision is None:
                continue
            rs.setdefault("apiVersion", "apps/v1")
            rs.setdefault("kind", "ReplicaSet")
            out[revision] = rs
        return out

    def template(self, revision_obj: dict) -> dict:
        return (revision_obj.get("spec") or {}).get("template") or {}

    def change_cause(self, revision_obj: dict) -> str:
        return (revision_obj["metadata"].get("annotations") or {}).get(CHANGE_CAUSE, "")

    # -- undo ------------------------------------------------------------------------------------

    def rollback(self, sess, info, obj: dict, to_revision: int, dry_run: str) -> str:
        if to_revision < 0:
            raise RolloutError(f"unable to find specified revision {to_revision} in history")
        ns, name = obj["metadata"].get("namespace"), obj["metadata"]["name"]
        live = sess.client.get(info, name, ns)
        target = self._revision_to_restore(sess, live, to_revision)
        template = copy.deepcopy(self.template(target))
        if dry_run == "client":
            return _describe_template(template)
        if (live.get("spec") or {}).get("paused"):
            raise RolloutError("you cannot rollback a paused deployment; resume it first with 'kubectl rollout "
                               "resume' and try again")
        if template_without_hash(template) == template_without_hash((live.get("spec") or {}).get("template") or {}):
            return f"skipped rollback (current template already matches revision {to_revision})"
        labels = (template.get("metadata") or {}).get("labels")
        if labels:
            labels.pop(HASH_LABEL, None)
        live_ann = live["metadata"].get("annotations") or {}
        annotations = {k: live_ann[k] for k in UNDO_KEEPS if k in live_ann}
        annotations.update({k: v for k, v in (target["metadata"].get("annotations") or {}).items()
                            if k not in UNDO_KEEPS})
        patch = [{"op": "replace", "path": "/spec/template", "value": template},
                 {"op": "replace", "path": "/metadata/annotations", "value": annotations}]
        from kubelite.client.dynamic import WriteParams

        try:
            sess.client.patch(info, ns, name, json.dumps(patch), "json", WriteParams(dry_run=dry_run == "server"))
        except Exception as err:  # kubectl wraps the server's refusal
            from kubelite.client.errors import ApiError

            if isinstance(err, ApiError):
                raise RolloutError(f"failed restoring revision {to_revision}: {err.message}") from err
            raise
        return "rolled back"

    def _revision_to_restore(self, sess, live: dict, to_revision: int) -> dict:
        history = self.history(sess, live)
        if to_revision > 0:
            if to_revision not in history:
                raise RolloutError(f"unable to find specified revision {to_revision} in history")
            return history[to_revision]
        revisions = sorted(history)
        if len(revisions) < 2:
            raise RolloutError(f'no rollout history found for deployment "{live["metadata"]["name"]}"')
        return history[revisions[-2]]

    # -- pause / resume / restart ------------------------------------------------------------------

    def pause(self, obj: dict) -> dict:
        if (obj.get("spec") or {}).get("paused"):
            raise RolloutError("is already paused")
        out = copy.deepcopy(obj)
        out.setdefault("spec", {})["paused"] = True
        return out

    def resume(self, obj: dict) -> dict:
        if not (obj.get("spec") or {}).get("paused"):
            raise RolloutError("is not paused")
        out = copy.deepcopy(obj)
        # kubectl sets Paused=false on the Go struct, which omitempty drops: its patch is {"paused":null},
        # so the field leaves the object and no manager (kubectl-rollout included) owns it afterwards
        del out["spec"]["paused"]
        return out

    def restart(self, obj: dict, now: str) -> dict:
        if (obj.get("spec") or {}).get("paused"):
            raise RolloutError("can't restart paused deployment (run rollout resume first)")
        out = copy.deepcopy(obj)
        template = out.setdefault("spec", {}).setdefault("template", {})
        template.setdefault("metadata", {}).setdefault("annotations", {})[RESTARTED_AT] = now
        return out


def _int(text) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def describe_template(template: dict) -> str:
    """A pod template as `rollout history --revision` prints it (describe's layout, no alignment)."""
    return _describe_template(template)


def _describe_template(template: dict) -> str:
    from kubelite.describe.parts import pod_template
    from kubelite.describe.writer import Writer

    w = Writer()
    pod_template(w, template)
    # kubectl writes these lines straight out, without the tab alignment describe applies, and
    # its continuation lines of labels and annotations start at the tab.
    import re

    return re.sub(r"(?m)^ +\t", "\t", "".join(w._parts))


register("apps", "Deployment", Deployments())
