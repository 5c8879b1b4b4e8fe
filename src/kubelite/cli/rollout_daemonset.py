"""`rollout` for DaemonSets (and, through `RevisionedRollout`, StatefulSets): the revisions are the
ControllerRevisions the object controls, each holding its pod template as a strategic-merge
patch that `undo` sends back; pause and resume are not supported, as with kubectl."""
from __future__ import annotations

import copy
import json

from kubelite.cli.rollout_kinds import CHANGE_CAUSE, RESTARTED_AT, RolloutError, describe_template, register


class RevisionedRollout:
    """What DaemonSets and StatefulSets share: history, undo and restart over ControllerRevisions."""

    resource = ""

    def history(self, sess, obj: dict) -> dict[int, dict]:
        info = sess.discovery.resolve("controllerrevisions.apps")
        selector = _selector_text((obj.get("spec") or {}).get("selector") or {})
        items = sess.client.list(info, obj["metadata"].get("namespace"), label_selector=selector or None)
        uid = obj["metadata"].get("uid")
        return {int(rev.get("revision") or 0): rev for rev in items.get("items") or []
                if any(ref.get("controller") and ref.get("uid") == uid
                       for ref in rev["metadata"].get("ownerReferences") or [])}

    def template(self, revision_obj: dict) -> dict:
        template = copy.deepcopy((((revision_obj.get("data") or {}).get("spec") or {}).get("template")) or {})
        template.pop("$patch", None)
        return template

    def change_cause(self, revision_obj: dict) -> str:
        return (revision_obj["metadata"].get("annotations") or {}).get(CHANGE_CAUSE, "")

    def rollback(self, sess, info, obj: dict, to_revision: int, dry_run: str) -> str:
        if to_revision < 0:
            raise RolloutError(f"unable to find specified revision {to_revision} in history")
        ns, name = obj["metadata"].get("namespace"), obj["metadata"]["name"]
        live = sess.client.get(info, name, ns)
        history = self.history(sess, live)
        if to_revision == 0 and len(history) <= 1:
            raise RolloutError("no last revision to roll back to")
        revisions = sorted(history)
        target = history.get(to_revision) if to_revision > 0 else (history[revisions[-2]] if len(revisions) > 1
                                                                    else None)
        if target is None:
            raise RolloutError(f"unable to find specified revision {to_revision} in history")
        template = self.template(target)
        if dry_run == "client":
            return "will roll back to " + describe_template(template)
        if template == ((live.get("spec") or {}).get("template") or {}):
            return f"skipped rollback (current template already matches revision {to_revision})"
        from kubelite.client.dynamic import WriteParams
        from kubelite.client.errors import ApiError

        try:
            sess.client.patch(info, ns, name, json.dumps(target.get("data") or {}), "strategic",
                              WriteParams(dry_run=dry_run == "server"))
        except ApiError as err:
            raise RolloutError(f"failed restoring revision {to_revision}: {err.message}") from err
        return "rolled back"

    def pause(self, obj: dict) -> dict:
        raise RolloutError("pausing is not supported")

    def resume(self, obj: dict) -> dict:
        raise RolloutError("resuming is not supported")

    def restart(self, obj: dict, now: str) -> dict:
        out = copy.deepcopy(obj)
        template = out.setdefault("spec", {}).setdefault("template", {})
        template.setdefault("metadata", {}).setdefault("annotations", {})[RESTARTED_AT] = now
        return out


def _selector_text(selector: dict) -> str:
    from kubelite.server.printers.formats import InvalidSelector, selector_string

    try:
        return selector_string(selector)
    except InvalidSelector as err:
        raise RolloutError(f"failed to create selector: {err}") from err


class DaemonSets(RevisionedRollout):
    resource = "daemonsets"

    def status(self, obj: dict, revision: int) -> tuple[str, bool]:
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        if ((spec.get("updateStrategy") or {}).get("type") or "RollingUpdate") != "RollingUpdate":
            raise RolloutError("rollout status is only available for RollingUpdate strategy type")
        name = obj["metadata"]["name"]
        if (obj["metadata"].get("generation") or 0) > (status.get("observedGeneration") or 0):
            return "Waiting for daemon set spec update to be observed...\n", False
        desired = status.get("desiredNumberScheduled") or 0
        updated = status.get("updatedNumberScheduled") or 0
        available = status.get("numberAvailable") or 0
        prefix = f'Waiting for daemon set "{name}" rollout to finish: '
        if updated < desired:
            return f"{prefix}{updated} out of {desired} new pods have been updated...\n", False
        if available < desired:
            return f"{prefix}{available} of {desired} updated pods are available...\n", False
        return f'daemon set "{name}" successfully rolled out\n', True


register("apps", "DaemonSet", DaemonSets())
