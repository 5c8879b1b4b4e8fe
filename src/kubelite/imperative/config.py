"""create configmap, create secret generic|tls|docker-registry."""
from __future__ import annotations

import base64
import json

from .data_sources import (add_config_map_key, add_secret_key, config_map_hash, env_file_entries, file_entries,
                           parse_literal, secret_hash)
from .errors import ImperativeError
from .meta import head, object_meta


def _check_sources(name: str, files, literals, env_files) -> None:
    if not name:
        raise ImperativeError("name must be specified")
    if env_files and (files or literals):
        raise ImperativeError("from-env-file cannot be combined with from-file or from-literal")


def _finish(obj: dict, field_order: list[str]) -> dict:
    """Drop empty maps (omitempty) and put fields in struct order."""
    out = {k: obj[k] for k in ("kind", "apiVersion", "metadata")}
    for key in field_order:
        value = obj.get(key)
        if value or (key == "type" and value):
            out[key] = value
    return out


def create_config_map(name: str, *, from_file: list[str] = (), from_literal: list[str] = (),
                      from_env_file: list[str] = (), append_hash: bool = False,
                      namespace: str | None = None, environ=None) -> dict:
    _check_sources(name, from_file, from_literal, from_env_file)
    cm = head("v1", "ConfigMap", object_meta(name, namespace))
    cm["data"], cm["binaryData"] = {}, {}
    for key, raw in file_entries(list(from_file)):
        try:
            add_config_map_key(cm, key, raw.decode("utf-8"))
        except UnicodeDecodeError:
            add_config_map_key(cm, key, raw, binary=True)
    for literal in from_literal:
        add_config_map_key(cm, *parse_literal(literal))
    kwargs = {} if environ is None else {"environ": environ}
    for key, value in env_file_entries(list(from_env_file), secret=False, **kwargs):
        add_config_map_key(cm, key, value)
    if append_hash:
        cm["metadata"]["name"] = f"{name}-{config_map_hash(cm)}"
    return _finish(cm, ["data", "binaryData"])


def _secret(name: str, namespace: str | None, secret_type: str) -> dict:
    obj = head("v1", "Secret", object_meta(name, namespace))
    obj["data"] = {}
    obj["type"] = secret_type
    return obj


def _hash_name(secret: dict, append_hash: bool) -> None:
    if append_hash:
        secret["metadata"]["name"] = f"{secret['metadata']['name']}-{secret_hash(secret)}"


def create_secret_generic(name: str, *, from_file: list[str] = (), from_literal: list[str] = (),
                          from_env_file: list[str] = (), secret_type: str = "", append_hash: bool = False,
                          namespace: str | None = None, environ=None) -> dict:
    _check_sources(name, from_file, from_literal, from_env_file)
    secret = _secret(name, namespace, secret_type)
    for literal in from_literal:
        key, value = parse_literal(literal)
        add_secret_key(secret, key, value.encode())
    for key, raw in file_entries(list(from_file)):
        add_secret_key(secret, key, raw)
    kwargs = {} if environ is None else {"environ": environ}
    for key, value in env_file_entries(list(from_env_file), secret=True, **kwargs):
        add_secret_key(secret, key, value.encode())
    _hash_name(secret, append_hash)
    return _finish(secret, ["data", "type"])


def docker_config_json(username: str, password: str, email: str, server: str) -> bytes:
    from kubelite.manifest.jsonfmt import _string

    auth = base64.b64encode(f"{username}:{password}".encode()).decode()
    entry = [("username", username), ("password", password), ("email", email), ("auth", auth)]
    fields = ",".join(f"{_string(k)}:{_string(v)}" for k, v in entry if v)
    return ('{"auths":{' + _string(server) + ":{" + fields + "}}}").encode()


def create_secret_docker_registry(name: str, *, username: str = "", password: str = "", email: str = "",
                                  server: str = "https://index.docker.io/v1/", from_file: list[str] = (),
                                  append_hash: bool = False, namespace: str | None = None) -> dict:
    if not name:
        raise ImperativeError("name must be specified")
    if not from_file and (not username or not password or not server):
        raise ImperativeError("either --from-file or the combination of --docker-username, --docker-password "
                              "and --docker-server is required")
    secret = _secret(name, namespace, "kubernetes.io/dockerconfigjson")
    if from_file:
        for key, raw in file_entries(list(from_file)):
            add_secret_key(secret, key, raw)
    else:
        secret["data"][".dockerconfigjson"] = base64.b64encode(
            docker_config_json(username, password, email, server)).decode()
    _hash_name(secret, append_hash)
    return _finish(secret, ["data", "type"])


def _read_tls_file(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        reason = (err.strerror or str(err)).lower()
        raise ImperativeError(f"Cannot read file {path}, open {path}: {reason}") from None


def create_secret_tls(name: str, *, cert: str, key: str, append_hash: bool = False,
                      namespace: str | None = None) -> dict:
    if not key or not cert:
        raise ImperativeError("key and cert must be specified")
    cert_pem = _read_tls_file(cert)
    key_pem = _read_tls_file(key)
    from .tlscheck import check_key_pair

    check_key_pair(cert_pem, key_pem)
    secret = _secret(name, namespace, "kubernetes.io/tls")
    secret["data"]["tls.crt"] = base64.b64encode(cert_pem).decode()
    secret["data"]["tls.key"] = base64.b64encode(key_pem).decode()
    _hash_name(secret, append_hash)
    return _finish(secret, ["data", "type"])
