"""configMapGenerator and secretGenerator."""
from __future__ import annotations

import base64
import posixpath

from .errors import KustomizeError
from .fs import Loader
from .resource import Resource


def merge_options(local: dict | None, global_: dict | None) -> dict:
    """Per-generator options over the kustomization's generatorOptions."""
    local = dict(local or {})
    global_ = global_ or {}
    for key in ("labels", "annotations"):
        merged = dict(global_.get(key) or {})
        merged.update(local.get(key) or {})
        if merged:
            local[key] = merged
    for key in ("disableNameSuffixHash", "immutable"):
        if global_.get(key):
            local[key] = True
    return local


def _literal(source: str, what: str) -> tuple[str, str]:
    if source.startswith("=") or "=" not in source:
        raise KustomizeError(f"invalid literal source {source}, expected key=value")
    key, _, value = source.partition("=")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return key, value


def _env_pairs(text: str, path: str) -> list[tuple[str, str]]:
    """KEY=value lines; a line without `=` is a key with an empty value. Kustomize
    neither trims the key's right side nor consults the environment."""
    out = []
    for number, line in enumerate(text.split("\n")):
        if line.endswith("\r"):
            line = line[:-1]
        if number == 0 and line.startswith("\ufeff"):
            line = line[1:]
        line = line.lstrip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        out.append((key, value))
    return out


def _file_source(source: str) -> tuple[str, str]:
    from kubelite.manifest.jsonpath import go_quote

    count = source.count("=")
    if count == 0:
        return posixpath.basename(source), source
    if count == 1 and source.startswith("="):
        raise KustomizeError(f"missing key name for file path {go_quote(source[1:])} in source {go_quote(source)}")
    if count == 1 and source.endswith("="):
        raise KustomizeError(f"missing file path for key name {go_quote(source[:-1])} in source {go_quote(source)}")
    if count > 1:
        raise KustomizeError(f"source {go_quote(source)} key name or file path contains '='")
    key, _, path = source.partition("=")
    return key, path


def _collect(args: dict, loader: Loader, kind: str, name: str) -> list[tuple[str, bytes | str]]:
    pairs: list[tuple[str, bytes | str]] = []
    envs = list(args.get("envs") or [])
    if args.get("env"):
        envs.append(args["env"])
    try:
        try:
            for env in envs:
                pairs.extend(_env_pairs(loader.load(env), env))
        except KustomizeError as exc:
            raise KustomizeError(f"env source files: {_go_list(envs)}: {exc}") from None
        literals = [str(lit) for lit in args.get("literals") or []]
        try:
            for lit in literals:
                pairs.append(_literal(lit, kind))
        except KustomizeError as exc:
            raise KustomizeError(f"literal sources {_go_list(literals)}: {exc}") from None
        files = [str(src) for src in args.get("files") or []]
        try:
            for src in files:
                key, path = _file_source(src)
                pairs.append((key, loader.load_bytes(path)))
        except KustomizeError as exc:
            raise KustomizeError(f"file sources: {_go_list(files)}: {exc}") from None
    except KustomizeError as exc:
        raise KustomizeError(f"loading KV pairs: {exc}") from None
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise KustomizeError(f"configmap {name} illegally repeats the key `{key}`")
        seen.add(key)
    return pairs


def _go_list(items: list) -> str:
    """Go's %v of a []string."""
    return "[" + " ".join(items) + "]"


def _text(value: bytes | str) -> str | None:
    if isinstance(value, str):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _b64(value: bytes | str) -> str:
    """Base64 as kyaml writes Secret data: lines of 70 characters when longer than one line."""
    raw = value.encode("utf-8") if isinstance(value, str) else value
    encoded = base64.b64encode(raw).decode("ascii")
    if len(encoded) // 70 + 1 <= 1:
        return encoded
    return "".join(encoded[i:i + 70] + "\n" for i in range(0, len(encoded), 70))


def generate(args: dict, kind: str, loader: Loader, global_options: dict | None) -> Resource:
    if not isinstance(args, dict):
        raise KustomizeError(f"{kind} generator entry must be a mapping")
    name = args.get("name") or ""
    if not name:
        raise KustomizeError("a configmap must have a name")
    options = merge_options(args.get("options"), global_options)
    meta: dict = {"name": name}
    if args.get("namespace"):
        meta["namespace"] = args["namespace"]
    obj: dict = {"apiVersion": "v1", "kind": kind, "metadata": meta}
    pairs = _collect(args, loader, kind, name)
    if kind == "ConfigMap":
        data, binary = {}, {}
        for key, value in pairs:
            text = _text(value)
            if text is None:
                binary[key] = _b64(value)
            else:
                data[key] = text
        if data:
            obj["data"] = data
        if binary:
            obj["binaryData"] = binary
    else:
        obj["type"] = args.get("type") or "Opaque"
        data = {key: _b64(value) for key, value in pairs}
        if data:
            obj["data"] = data
    if options.get("labels"):
        meta["labels"] = {str(k): str(v) for k, v in options["labels"].items()}
    if options.get("annotations"):
        meta["annotations"] = {str(k): str(v) for k, v in options["annotations"].items()}
    if options.get("immutable"):
        obj["immutable"] = True
    # an unknown behavior is Kustomize's "unspecified", which adds like create
    behavior = args.get("behavior") or "create"
    return Resource(obj, needs_hash=not options.get("disableNameSuffixHash"), behavior=behavior, generated=True)
