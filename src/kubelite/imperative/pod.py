"""kubectl run: the Pod it generates (generator run-pod/v1)."""
from __future__ import annotations

import re

from .cluster import resource_list
from .errors import ImperativeError
from .meta import container, head, object_meta, parse_selector_labels
from .validation import env_var_name_errors

# distribution/reference's ReferenceRegexp, which kubectl checks --image against
_COMPONENT = r"(?:[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_IPV6 = r"\[(?:[a-fA-F0-9:]+)\]"
_DOMAIN_NAME = rf"{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*"
_HOST = rf"(?:{_DOMAIN_NAME}|{_IPV6})"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_NAME = rf"(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
IMAGE_REFERENCE = re.compile(rf"^({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?$", re.ASCII)


def check_image(image: str) -> None:
    if not image:
        raise ImperativeError("--image is required")
    if not IMAGE_REFERENCE.match(image):
        raise ImperativeError(f'Invalid image name "{image}": invalid reference format')


def parse_envs(envs: list[str]) -> list[dict]:
    out = []
    for env in envs:
        name, sep, value = env.partition("=")
        if not sep or not name or env_var_name_errors(name):
            raise ImperativeError(f"invalid env: {env}")
        out.append({"name": name, "value": value})
    return out


def parse_pairs(pairs: list[str], kind: str) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ImperativeError(f"invalid {kind}: {pair}")
        out[key] = value
    return out


def _atoi(text: str, flag: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ImperativeError(f'strconv.Atoi: parsing "{text}": invalid syntax')
    return int(text)


def create_pod(name: str, image: str, *, args: list[str] | None = None, command: bool = False,
               labels: str = "", annotations: list[str] = (), env: list[str] = (), port: str = "",
               hostport: str = "", restart: str = "", image_pull_policy: str = "", requests: str = "",
               limits: str = "", service_account: str = "", privileged: bool = False, stdin: bool = False,
               leave_stdin_open: bool = False, tty: bool = False, namespace: str | None = None) -> dict:
    if not name:
        raise ImperativeError("'name' is a required parameter")
    envs = parse_envs(list(env))
    notes = parse_pairs(list(annotations), "annotations") if annotations else None
    pod_labels = parse_selector_labels(labels) if labels else {"run": name}
    resources: dict = {}
    lim = resource_list(limits)
    req = resource_list(requests)
    if lim:
        resources["limits"] = lim
    if req:
        resources["requests"] = req
    port_num = _atoi(port, "port") if port else -1
    host_num = _atoi(hostport, "hostport") if hostport else -1
    if hostport and host_num > 0 and port_num < 0:
        raise ImperativeError("--hostport requires --port to be specified")
    ports = None
    if port:
        ports = [{"containerPort": port_num}]
        if host_num > 0:
            ports[0]["hostPort"] = host_num
    c = container(name, image, list(args or []) if command else None,
                  args=None if command else list(args or []), ports=ports, env=envs, resources=resources,
                  image_pull_policy=image_pull_policy,
                  security_context={"privileged": True} if privileged else None,
                  stdin=stdin, stdin_once=stdin and not leave_stdin_open, tty=tty)
    spec: dict = {"containers": [c], "restartPolicy": restart or "Always", "dnsPolicy": "ClusterFirst"}
    if service_account:
        spec["serviceAccountName"] = service_account
    obj = head("v1", "Pod", object_meta(name, namespace, pod_labels, notes))
    obj["spec"] = spec
    obj["status"] = {}
    return obj


def apply_overrides(obj: dict, overrides: str) -> dict:
    """--overrides: a JSON strategic merge patch over the generated object."""
    import json

    from kubelite.patch import strategic
    from kubelite.schema import for_kind

    try:
        patch = json.loads(overrides)
    except ValueError as err:
        raise ImperativeError(f"error: unable to parse overrides: {err}") from None
    from kubelite.patch import PatchError

    try:
        return strategic.apply(obj, patch, for_kind(obj["apiVersion"], obj["kind"]))
    except PatchError as err:
        raise ImperativeError(str(err)) from None
