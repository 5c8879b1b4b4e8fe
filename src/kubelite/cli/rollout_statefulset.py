"""`rollout` for StatefulSets: status as kubectl words it (partitioned roll outs included); the
history, undo and restart of ControllerRevisions are shared with DaemonSets."""
from __future__ import annotations

from kubelite.cli.rollout_daemonset import RevisionedRollout
from kubelite.cli.rollout_kinds import RolloutError, register


class StatefulSets(RevisionedRollout):
    resource = "statefulsets"

    def status(self, obj: dict, revision: int) -> tuple[str, bool]:
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        strategy = spec.get("updateStrategy") or {}
        if (strategy.get("type") or "RollingUpdate") != "RollingUpdate":
            raise RolloutError("rollout status is only available for RollingUpdate strategy type")
        observed = status.get("observedGeneration") or 0
        if not observed or (obj["metadata"].get("generation") or 0) > observed:
            return "Waiting for statefulset spec update to be observed...\n", False
        replicas = spec.get("replicas")
        ready = status.get("readyReplicas") or 0
        if replicas is not None and ready < replicas:
            return f"Waiting for {replicas - ready} pods to be ready...\n", False
        updated = status.get("updatedReplicas") or 0
        rolling = strategy.get("rollingUpdate")
        if rolling is not None:
            partition = rolling.get("partition")
            if replicas is not None and partition is not None and updated < replicas - partition:
                return (f"Waiting for partitioned roll out to finish: {updated} out of {replicas - partition} new "
                        "pods have been updated...\n"), False
            return f"partitioned roll out complete: {updated} new pods have been updated...\n", True
        if status.get("updateRevision") != status.get("currentRevision"):
            return (f"waiting for statefulset rolling update to complete {updated} pods at revision "
                    f"{status.get('updateRevision')}...\n"), False
        return (f"statefulset rolling update complete {status.get('currentReplicas') or 0} pods at revision "
                f"{status.get('currentRevision')}...\n"), True


register("apps", "StatefulSet", StatefulSets())
