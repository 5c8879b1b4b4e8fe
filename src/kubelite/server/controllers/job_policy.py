"""The Job controller's pure decisions: which pods count, which indexes are done, what a failure
policy says, whether the success or failure criteria are met. No API calls here."""
from __future__ import annotations

from kubelite.server.controllers.podtemplate import pod_is_active as is_active  # noqa: F401 (re-exported)
from kubelite.server.controllers.podtemplate import pod_is_ready as is_ready  # noqa: F401
from kubelite.server.controllers.podtemplate import pod_is_terminating as is_terminating

TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
INDEX_KEY = "batch.kubernetes.io/job-completion-index"
INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
# Backoff before re-creating a failed pod: 10 s doubling per consecutive failure, at most 6 min.
BACKOFF_BASE = 10.0
BACKOFF_MAX = 360.0


def condition(job: dict, ctype: str) -> dict | None:
    for cond in (job.get("status") or {}).get("conditions") or []:
        if cond.get("type") == ctype:
            return cond
    return None


def condition_true(job: dict, ctype: str) -> bool:
    cond = condition(job, ctype)
    return bool(cond) and cond.get("status") == "True"


def is_finished(job: dict) -> bool:
    return condition_true(job, "Complete") or condition_true(job, "Failed")


def is_indexed(job: dict) -> bool:
    return (job.get("spec") or {}).get("completionMode") == "Indexed"


def pod_index(pod: dict) -> int | None:
    meta = pod.get("metadata") or {}
    value = (meta.get("annotations") or {}).get(INDEX_KEY) or (meta.get("labels") or {}).get(INDEX_KEY)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or "Pending"


def only_replaces_failed(job: dict) -> bool:
    spec = job.get("spec") or {}
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def is_failed(pod: dict, job: dict) -> bool:
    """A pod that counts as failed: phase Failed, or (as upstream counts orphans that never reach
    Failed) deleted before it succeeded, unless the Job only replaces pods once Failed."""
    if phase(pod) == "Failed":
        return True
    if only_replaces_failed(job):
        return False
    return is_terminating(pod) and phase(pod) != "Succeeded"


def has_finalizer(pod: dict) -> bool:
    return TRACKING_FINALIZER in ((pod.get("metadata") or {}).get("finalizers") or [])


def exit_codes(pod: dict) -> list[tuple[str, int]]:
    """(container name, exit code) of terminated containers, init containers first."""
    status = pod.get("status") or {}
    out = []
    for key in ("initContainerStatuses", "containerStatuses"):
        for cs in status.get(key) or []:
            term = (cs.get("state") or {}).get("terminated")
            if term is not None and term.get("exitCode") is not None:
                out.append((cs.get("name"), int(term["exitCode"])))
    return out


def match_failure_policy(job: dict, pod: dict) -> tuple[str | None, str | None, int | None]:
    """The action of the first podFailurePolicy rule matching a failed pod, with the message a
    FailJob rule gives and the rule's index; (None, None, None) when no rule matches."""
    rules = ((job.get("spec") or {}).get("podFailurePolicy") or {}).get("rules") or []
    meta = pod.get("metadata") or {}
    for i, rule in enumerate(rules):
        on_codes = rule.get("onExitCodes")
        if on_codes:
            wanted = set(on_codes.get("values") or [])
            for name, code in exit_codes(pod):
                if on_codes.get("containerName") and on_codes["containerName"] != name:
                    continue
                if code == 0:
                    continue
                inside = code in wanted
                if (on_codes.get("operator") == "In") == inside:
                    msg = (f"Container {name} for pod {meta.get('namespace')}/{meta.get('name')} failed with "
                           f"exit code {code} matching {rule.get('action')} rule at index {i}")
                    return rule.get("action"), msg, i
        for pattern in rule.get("onPodConditions") or []:
            for cond in (pod.get("status") or {}).get("conditions") or []:
                if cond.get("type") == pattern.get("type") and cond.get("status") == pattern.get("status", "True"):
                    msg = (f"Pod {meta.get('namespace')}/{meta.get('name')} has condition {cond.get('type')} "
                           f"matching {rule.get('action')} rule at index {i}")
                    return rule.get("action"), msg, i
    return None, None, None


def parse_indexes(text: str | None) -> set[int]:
    """"0,2-4" -> {0, 2, 3, 4}."""
    out: set[int] = set()
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            lo, hi = int(first), int(last or first)
        except ValueError:
            continue
        out.update(range(lo, hi + 1))
    return out


def format_indexes(indexes: set[int]) -> str:
    """Intervals as the Job controller writes them: "0-2", a pair as "0,1", a single index as "5"."""
    parts: list[str] = []
    ordered = sorted(indexes)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        lo, hi = ordered[i], ordered[j]
        if hi == lo:
            parts.append(str(lo))
        elif hi == lo + 1:
            parts.append(f"{lo},{hi}")
        else:
            parts.append(f"{lo}-{hi}")
        i = j + 1
    return ",".join(parts)


def success_policy_met(job: dict, succeeded_indexes: set[int]) -> int | None:
    """Index of the first successPolicy rule the succeeded indexes satisfy."""
    rules = ((job.get("spec") or {}).get("successPolicy") or {}).get("rules") or []
    for i, rule in enumerate(rules):
        pool = succeeded_indexes
        if rule.get("succeededIndexes") is not None:
            wanted = parse_indexes(rule["succeededIndexes"])
            pool = succeeded_indexes & wanted
            if rule.get("succeededCount") is None and pool != wanted:
                continue
        count = rule.get("succeededCount")
        if count is not None and len(pool) < count:
            continue
        return i
    return None


def backoff_delay(failures: int) -> float:
    if failures <= 0:
        return 0.0
    # the exponent capped: 2 ** 1024 is no float (a backoffLimit in the millions reaches it)
    return min(BACKOFF_BASE * 2 ** min(failures - 1, 64), BACKOFF_MAX)
