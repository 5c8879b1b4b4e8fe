"""ConfigMap and Secret validation (data keys, sizes, type-required keys)."""

from __future__ import annotations

from kubelite.server.admission import field as F
from kubelite.server.admission import names as N
from kubelite.server.admission.field import Path
from kubelite.server.admission.validation_common import Causes, _map

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Any


MAX_CONFIG_DATA_SIZE = 1024 * 1024


def _config_data(obj: dict, *, binary_key: str = "binaryData") -> Causes:
    errs: Causes = []
    total = 0
    data = _map(obj.get("data"))
    binary = _map(obj.get(binary_key))
    for key, value in sorted(data.items()):
        problems = N.is_config_map_key(key)
        if problems:  # a path is spelled for a key only when something is said of it
            errs += [F.invalid(Path("data").key(key), key, m) for m in problems]
        total += len(str(value or "").encode())
    for key, value in sorted(binary.items()):
        problems = N.is_config_map_key(key)
        if problems:
            errs += [F.invalid(Path(binary_key).key(key), key, m) for m in problems]
        if key in data:
            errs.append(F.invalid(Path("data").key(key), key, "duplicate of key present in binaryData"))
        total += len(str(value or "").encode())
    if total > MAX_CONFIG_DATA_SIZE:
        errs.append(F.too_long("[]", MAX_CONFIG_DATA_SIZE))
    return errs


def _config_map(obj: dict) -> Causes:
    return _config_data(obj)


def _decoded_size(value: Any) -> int:
    """Secret data is limited by its decoded size (base64 is decoded on the wire)."""
    import base64
    import binascii

    try:
        return len(base64.b64decode(str(value or ""), validate=True))
    except (binascii.Error, ValueError):
        return len(str(value or ""))


_SECRET_REQUIRED_KEYS = {
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}


def _secret(obj: dict) -> Causes:
    errs: Causes = []
    data = _map(obj.get("data"))
    total = 0
    for key, value in sorted(data.items()):
        kp = Path("data").key(key)
        errs += [F.invalid(kp, key, m) for m in N.is_config_map_key(key)]
        total += _decoded_size(value)
    if total > MAX_CONFIG_DATA_SIZE:
        errs.append(F.too_long("data", MAX_CONFIG_DATA_SIZE))
    secret_type = obj.get("type")
    if secret_type == "kubernetes.io/service-account-token":
        annotations = _map(_map(obj.get("metadata")).get("annotations"))
        if not annotations.get("kubernetes.io/service-account.name"):
            errs.append(
                F.required(Path("metadata").child("annotations").key("kubernetes.io/service-account.name"), "")
            )
    for key in _SECRET_REQUIRED_KEYS.get(secret_type or "", ()):
        if key not in data:
            errs.append(F.required(Path("data").key(key), ""))
    if secret_type == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            errs.append(F.required(Path("data").key("username"), ""))
            errs.append(F.required(Path("data").key("password"), ""))
    if secret_type == "kubernetes.io/ssh-auth" and "ssh-privatekey" not in data:
        errs.append(F.required(Path("data").key("ssh-privatekey"), ""))
    return errs
