"""The content hash Kustomize appends to generated ConfigMap and Secret names."""
from __future__ import annotations

import hashlib
import json

_SWAP = str.maketrans({"0": "g", "1": "h", "3": "k", "a": "m", "e": "t"})


def _go_json(value: object) -> str:
    """encoding/json's compact output: sorted keys, HTML characters escaped."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _field(obj: dict, name: str) -> object:
    value = obj.get(name)
    return "" if value is None else value


def content_hash(obj: dict) -> str:
    kind = obj.get("kind")
    # Kustomize looks the name up as one field called "metadata/name", which never
    # exists: the hash always sees an empty name.
    name = ""
    if kind == "ConfigMap":
        m = {"kind": "ConfigMap", "name": name, "data": _field(obj, "data")}
        if isinstance(obj.get("binaryData"), dict):
            m["binaryData"] = obj["binaryData"]
    elif kind == "Secret":
        m = {"kind": "Secret", "type": _field(obj, "type"), "name": name, "data": _field(obj, "data")}
        if isinstance(obj.get("stringData"), dict):
            m["stringData"] = obj["stringData"]
    else:
        m = obj
    digest = hashlib.sha256(_go_json(m).encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:10].translate(_SWAP)
