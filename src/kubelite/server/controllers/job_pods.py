"""The pods a Job creates: its template with the owner reference, the tracking finalizer and, for
Indexed Jobs, the completion index (annotation, label, hostname, JOB_COMPLETION_INDEX)."""
from __future__ import annotations

from kubelite.server.controllers.job_policy import INDEX_FAILURE_COUNT, INDEX_KEY, TRACKING_FINALIZER
from kubelite.server.controllers.podtemplate import pod_from_template


def job_pod(job: dict, index: int | None, index_failures: int = 0) -> dict:
    name = job["metadata"]["name"]
    spec = job.get("spec") or {}
    generate = f"{name}-{index}-" if index is not None else f"{name}-"
    pod = pod_from_template(spec.get("template") or {}, job, generate_name=generate)
    meta = pod["metadata"]
    meta["finalizers"] = list(meta.get("finalizers") or []) + [TRACKING_FINALIZER]
    if index is None:
        return pod
    meta.setdefault("annotations", {})[INDEX_KEY] = str(index)
    meta.setdefault("labels", {})[INDEX_KEY] = str(index)
    if spec.get("backoffLimitPerIndex") is not None:
        meta["annotations"][INDEX_FAILURE_COUNT] = str(index_failures)
    pod["spec"]["hostname"] = f"{name}-{index}"
    for key in ("initContainers", "containers"):
        for container in pod["spec"].get(key) or []:
            env = container.setdefault("env", [])
            if not any(e.get("name") == "JOB_COMPLETION_INDEX" for e in env):
                env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                    "apiVersion": "v1", "fieldPath": f"metadata.labels['{INDEX_KEY}']"}}})
    return pod
