"""The TTL-after-finished controller: a Job with `ttlSecondsAfterFinished` is deleted that many
seconds after it completed or failed, with Foreground propagation (so its pods go first, as the
recorded `job-ttl` case shows the `foregroundDeletion` finalizer on the Job)."""
from __future__ import annotations

from kubelite.server.clock import parse_time
from kubelite.server.controllers.base import Controller, split_key
from kubelite.server.controllers.job_policy import condition


def finished_at(job: dict) -> float | None:
    """When the Job finished: the transition time of its Complete or Failed condition."""
    for ctype in ("Complete", "Failed"):
        cond = condition(job, ctype)
        if cond and cond.get("status") == "True":
            return parse_time(cond.get("lastTransitionTime")) or parse_time((job.get("status") or {})
                                                                             .get("completionTime"))
    return None


class TTLAfterFinishedController(Controller):
    name = "ttl-after-finished"
    component = "ttl-after-finished-controller"
    watches = ("batch/jobs",)

    def sync(self, key: str) -> None:
        ns, name = split_key(key)
        job = self.cache.get("batch/jobs", ns, name)
        if job is None or job["metadata"].get("deletionTimestamp"):
            return
        ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
        done = finished_at(job)
        if ttl is None or done is None:
            return
        remaining = done + ttl - self.clock.time()
        if remaining > 0:
            self.queue.add_after(key, remaining)
            return
        self.client.delete("batch/jobs", ns, name, propagation="Foreground", uid=job["metadata"].get("uid"))
