"""ConfigMap and Secret contents from --from-literal, --from-file and --from-env-file, and --append-hash."""
from __future__ import annotations

import base64
import hashlib
import os
import posixpath

from .errors import ImperativeError
from .validation import config_map_key_errors, env_var_name_errors


def parse_literal(source: str) -> tuple[str, str]:
    if source.startswith("=") or "=" not in source:
        raise ImperativeError(f"invalid literal source {source}, expected key=value")
    key, value = source.split("=", 1)
    return key, value


def parse_file_source(source: str) -> tuple[str, str]:
    count = source.count("=")
    if count == 0:
        return posixpath.basename(source) if source else ".", source
    if count == 1 and source.startswith("="):
        raise ImperativeError(f"key name for file path {source[1:]} missing")
    if count == 1 and source.endswith("="):
        raise ImperativeError(f"file path for key name {source[:-1]} missing")
    if count > 1:
        raise ImperativeError("key names or file paths cannot contain '='")
    key, path = source.split("=")
    return key, path


def _stat(path: str, what: str = "") -> os.stat_result:
    try:
        return os.stat(path)
    except OSError as err:
        raise ImperativeError(f"error reading {path}: {_go_errno(err)}") from None


def _go_errno(err: OSError) -> str:
    return (err.strerror or str(err)).lower() if err.errno is not None else str(err)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise ImperativeError(f"open {path}: {_go_errno(err)}") from None


def file_entries(sources: list[str]):
    """(key, bytes) pairs for --from-file values: files, key=file, directories (regular files only)."""
    for source in sources:
        key, path = parse_file_source(source)
        info = _stat(path)
        import stat as _st

        if _st.S_ISDIR(info.st_mode):
            if "=" in source:
                raise ImperativeError("cannot give a key name for a directory path")
            try:
                names = sorted(os.listdir(path))
            except OSError as err:
                raise ImperativeError(f"error listing files in {path}: {_go_errno(err)}") from None
            for name in names:
                item = os.path.join(path, name)
                if os.path.isfile(item) and not os.path.islink(item):
                    yield name, _read(item)
        else:
            yield key, _read(path)


def env_file_entries(sources: list[str], *, secret: bool, environ=os.environ):
    """(key, value) pairs of env files (``KEY=value`` lines, ``#`` comments, bare ``KEY`` from the environment)."""
    for source in sources:
        info = _stat(source)
        import stat as _st

        if _st.S_ISDIR(info.st_mode):
            raise ImperativeError("env secret file cannot be a directory" if secret
                                  else "env config file cannot be a directory")
        data = _read(source)
        for number, raw in enumerate(_scan_lines(data)):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                shown = "[" + " ".join(str(b) for b in raw) + "]"
                raise ImperativeError(
                    f"env file {source} contains invalid utf8 bytes at line {number + 1}: {shown}") from None
            if number == 0 and line.startswith("\ufeff"):
                line = line[1:]
            line = line.lstrip(" \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                                "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition("=")
            errs = env_var_name_errors(key)
            if errs:
                raise ImperativeError(f"{_go_quote(key)} is not a valid key name: {';'.join(errs)}")
            yield key, (value if sep else environ.get(key, ""))


def _scan_lines(data: bytes):
    """bufio.Scanner lines: split at \\n, drop one trailing \\r, no empty final line."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def _go_quote(text: str) -> str:
    from kubelite.manifest.jsonfmt import _string

    return _string(text).replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")


def add_config_map_key(cm: dict, key: str, value: str | bytes, binary: bool = False) -> None:
    errs = config_map_key_errors(key)
    if errs:
        raise ImperativeError(f"{_go_quote(key)} is not a valid key name for a ConfigMap: {','.join(errs)}")
    name = cm["metadata"].get("name", "")
    if key in cm["data"]:
        raise ImperativeError(f"cannot add key {_go_quote(key)}, another key by that name already exists "
                              f"in Data for ConfigMap {_go_quote(name)}")
    if key in cm["binaryData"]:
        raise ImperativeError(f"cannot add key {_go_quote(key)}, another key by that name already exists "
                              f"in BinaryData for ConfigMap {_go_quote(name)}")
    if binary:
        cm["binaryData"][key] = base64.b64encode(value).decode()
    else:
        cm["data"][key] = value


def add_secret_key(secret: dict, key: str, value: bytes) -> None:
    errs = config_map_key_errors(key)
    if errs:
        raise ImperativeError(f"{_go_quote(key)} is not valid key name for a Secret {';'.join(errs)}")
    if key in secret["data"]:
        raise ImperativeError(f"cannot add key {key}, another key by that name already exists")
    secret["data"][key] = base64.b64encode(value).decode()


def _encode_hash(hex_digest: str) -> str:
    return hex_digest[:10].translate(str.maketrans("013ae", "ghkmt"))


def config_map_hash(cm: dict) -> str:
    from kubelite.manifest.jsonfmt import to_compact_json

    doc = {"kind": "ConfigMap", "name": cm["metadata"].get("name", ""), "data": cm.get("data") or {}}
    if cm.get("binaryData"):
        doc["binaryData"] = cm["binaryData"]
    return _encode_hash(hashlib.sha256(to_compact_json(doc).encode()).hexdigest())


def secret_hash(secret: dict) -> str:
    from kubelite.manifest.jsonfmt import to_compact_json

    doc = {"kind": "Secret", "type": secret.get("type", ""), "name": secret["metadata"].get("name", ""),
           "data": secret.get("data") or {}}
    return _encode_hash(hashlib.sha256(to_compact_json(doc).encode()).hexdigest())
