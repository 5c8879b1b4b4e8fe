"""create deployment, create job, create cronjob."""
from __future__ import annotations

import random
import string

from .errors import ImperativeError
from .meta import container, head, object_meta, template_meta


def _container_name(image: str, rand=random) -> str:
    name = image.split("/")[-1]
    name = name.split(":")[0]
    name = name.split("@")[0]
    if "_" in name or "." in name:
        # kubectl makes such names valid and unique with a random suffix
        alphabet = "bcdfghjklmnpqrstvwxz2456789"
        name = name.replace("_", "-").replace(".", "-") + "-" + "".join(rand.choice(alphabet) for _ in range(5))
    return name


def create_deployment(name: str, images: list[str], *, replicas: int = 1, port: int = -1,
                      command: list[str] | None = None, namespace: str | None = None) -> dict:
    if len(images) > 1 and command:
        raise ImperativeError("cannot specify multiple --image options and command")
    labels = {"app": name}
    containers = [container(_container_name(image), image, command) for image in images]
    if port >= 0 and containers:
        containers[0] = container(containers[0]["name"], containers[0].get("image", ""), command,
                                  ports=[{"containerPort": port}])
    spec = {
        "replicas": replicas,
        "selector": {"matchLabels": dict(labels)},
        "template": {"metadata": template_meta(labels), "spec": {"containers": containers}},
        "strategy": {},
    }
    obj = head("apps/v1", "Deployment", object_meta(name, namespace, labels))
    obj["spec"] = spec
    obj["status"] = {}
    return obj


def validate_job(image: str, from_: str, command: list[str] | None) -> None:
    if bool(image) == bool(from_):
        raise ImperativeError("either --image or --from must be specified")
    if command and from_:
        raise ImperativeError("cannot specify --from and command")


def create_job(name: str, image: str, command: list[str] | None = None, *, namespace: str | None = None) -> dict:
    obj = head("batch/v1", "Job", object_meta(name, namespace))
    obj["spec"] = {"template": {"metadata": template_meta(),
                                "spec": {"containers": [container(name, image, command)],
                                         "restartPolicy": "Never"}}}
    obj["status"] = {}
    return obj


def parse_from(from_: str) -> tuple[str, str]:
    """``--from=cronjob/NAME`` -> (resource, name), as kubectl splits it."""
    parts = from_.split("/", 1)
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise ImperativeError(f"from must be of the form <resource>/<name>")
    return parts[0], parts[1]


def job_from_cron_job(name: str, cron_job: dict, *, namespace: str | None = None) -> dict:
    template = (cron_job.get("spec") or {}).get("jobTemplate") or {}
    tmeta = template.get("metadata") or {}
    annotations = {"cronjob.kubernetes.io/instantiate": "manual"}
    annotations.update(tmeta.get("annotations") or {})
    meta = object_meta(name, namespace, tmeta.get("labels"), annotations)
    meta["ownerReferences"] = [{
        "apiVersion": "batch/v1", "kind": "CronJob", "name": cron_job["metadata"]["name"],
        "uid": cron_job["metadata"].get("uid", ""), "controller": True,
    }]
    obj = head("batch/v1", "Job", meta)
    obj["spec"] = template.get("spec") or {"template": {"metadata": template_meta(), "spec": {"containers": None}}}
    obj["status"] = {}
    return obj


def create_cron_job(name: str, image: str, schedule: str, *, restart: str = "OnFailure",
                    command: list[str] | None = None, namespace: str | None = None) -> dict:
    pod_spec: dict = {"containers": [container(name, image, command)]}
    if restart:
        pod_spec["restartPolicy"] = restart
    obj = head("batch/v1", "CronJob", object_meta(name, namespace))
    obj["spec"] = {"schedule": schedule,
                   "jobTemplate": {"metadata": object_meta(name),
                                   "spec": {"template": {"metadata": template_meta(), "spec": pod_spec}}}}
    obj["status"] = {}
    return obj
