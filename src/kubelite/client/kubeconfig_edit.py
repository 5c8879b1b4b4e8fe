"""Changing kubeconfig files the way kubectl's config subcommands change them.

kubectl reads every kubeconfig into client-go's in-memory form and writes a changed file back from
that form, so a written file is normalized: unknown fields are gone, clusters/contexts/users are
listed sorted by name, every key is in sorted order, fields that client-go always writes appear even
when empty (`server: ""`, `preferences: {}`, `contexts: null`, an exec plugin's `args: null`), and
defaults applied on reading are written out (an exec plugin of v1beta1 gains
`interactiveMode: IfAvailable`). `Config` holds that form: each stanza as the dict kubectl would
write, plus the file each one came from.

Which file a change goes to follows client-go's ModifyConfig: a changed or deleted stanza goes back
to the file that defined it, a new one to the "default file" (--kubeconfig; else the only
$KUBECONFIG entry, or the first one that exists, or the last; else ~/.kube/config); a new
current-context goes to the default file, and clearing it clears the first file that sets one.
Only the files touched are rewritten; a new file is created with mode 0600, an existing file keeps
its mode. While writing, every candidate file is locked with a `FILE.lock` beside it, as kubectl does.
"""
from __future__ import annotations

import base64
import binascii
import copy
import os
from dataclasses import dataclass, field

from kubelite.client.kubeconfig import ConfigError

KINDS = ("clusters", "contexts", "users")
_ITEM = {"clusters": "cluster", "contexts": "context", "users": "user"}
_INTERACTIVE_DEFAULT_VERSIONS = ("client.authentication.k8s.io/v1beta1", "client.authentication.k8s.io/v1alpha1")


@dataclass
class Config:
    """One file, or the merge of several: stanzas as kubectl writes them, and where each came from."""

    clusters: dict = field(default_factory=dict)
    contexts: dict = field(default_factory=dict)
    users: dict = field(default_factory=dict)
    current_context: str = ""
    preferences: dict = field(default_factory=dict)
    extensions: list | None = None
    origin: dict = field(default_factory=dict)  # (kind, name) -> file path as given

    def table(self, kind: str) -> dict:
        return getattr(self, kind)

    def copy(self) -> "Config":
        return copy.deepcopy(self)

    def to_document(self) -> dict:
        def listed(kind: str) -> list | None:
            table = self.table(kind)
            return [{"name": name, _ITEM[kind]: table[name]} for name in sorted(table)] or None

        doc = {"apiVersion": "v1", "clusters": listed("clusters"), "contexts": listed("contexts"),
               "current-context": self.current_context, "kind": "Config", "preferences": self.preferences,
               "users": listed("users")}
        if self.extensions:
            doc["extensions"] = self.extensions
        return doc

    def to_yaml(self) -> str:
        from kubelite.manifest.yamlfmt import to_yaml

        return to_yaml(self.to_document())


# -- reading --------------------------------------------------------------------------------------

def load_file(path: str) -> Config:
    """One kubeconfig file in kubectl's form; a missing file is an empty configuration."""
    import pathlib

    from kubelite.client.kubeconfig import read_file

    if not os.path.exists(path):
        return Config()
    doc = read_file(pathlib.Path(path))
    return from_document(doc, path)


def from_document(doc: dict, path: str) -> Config:
    config = Config()
    for kind in KINDS:
        entries = doc.get(kind) or []
        if not isinstance(entries, list):
            raise _bad(path, kind, "must be a list")
        for index, entry in enumerate(entries):
            where = f"{kind}[{index}]"
            if not isinstance(entry, dict):
                raise _bad(path, where, "must be a mapping")
            name = entry.get("name")
            name = "" if name is None else name
            if not isinstance(name, str):
                raise _bad(path, where + ".name", "must be a string")
            body = entry.get(_ITEM[kind])
            body = {} if body is None else body
            if not isinstance(body, dict):
                raise _bad(path, f"{where}.{_ITEM[kind]}", "must be a mapping")
            config.table(kind)[name] = _NORMALIZE[kind](body, path, f"{where}.{_ITEM[kind]}")
            config.origin[(kind, name)] = path
    config.current_context = _string(doc.get("current-context"), path, "current-context")
    prefs = doc.get("preferences") or {}
    if not isinstance(prefs, dict):
        raise _bad(path, "preferences", "must be a mapping")
    config.preferences = _preferences(prefs, path)
    config.extensions = _extensions(doc.get("extensions"), path, "extensions")
    return config


def _bad(path: str, where: str, what: str) -> ConfigError:
    return ConfigError(f'error: error loading config file "{path}": {where}: {what}')


def _string(value, path: str, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _bad(path, where, "must be a string")
    return value


def _boolean(value, path: str, where: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _bad(path, where, "must be a boolean")
    return value


def _data(value, path: str, where: str) -> str:
    """Binary fields are base64 in the file; kubectl decodes and re-encodes them."""
    text = _string(value, path, where)
    if not text:
        return ""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise _bad(path, where, "illegal base64 data") from None
    return base64.b64encode(raw).decode()


def _strings(value, path: str, where: str) -> list | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(path, where, "must be a list of strings")
    return list(value)


def _extensions(value, path: str, where: str) -> list | None:
    """Named extensions, kept as they are, sorted by name (kubectl holds them in a map)."""
    if not value:
        return None
    if not isinstance(value, list):
        raise _bad(path, where, "must be a list")
    by_name = {}
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise _bad(path, f"{where}[{index}]", "must be a mapping")
        name = _string(entry.get("name"), path, f"{where}[{index}].name")
        by_name[name] = {"extension": entry.get("extension"), "name": name}
    return [by_name[n] for n in sorted(by_name)]


def _fields(body: dict, path: str, where: str, strings=(), booleans=(), data=(), always=()) -> dict:
    out = {}
    for key in strings:
        value = _string(body.get(key), path, f"{where}.{key}")
        if value or key in always:
            out[key] = value
    for key in booleans:
        value = _boolean(body.get(key), path, f"{where}.{key}")
        if value or key in always:
            out[key] = value
    for key in data:
        value = _data(body.get(key), path, f"{where}.{key}")
        if value:
            out[key] = value
    ext = _extensions(body.get("extensions"), path, f"{where}.extensions")
    if ext:
        out["extensions"] = ext
    return out


def _cluster(body: dict, path: str, where: str) -> dict:
    return _fields(body, path, where, strings=("server", "tls-server-name", "certificate-authority", "proxy-url"),
                   booleans=("insecure-skip-tls-verify", "disable-compression"),
                   data=("certificate-authority-data",), always=("server",))


def _context(body: dict, path: str, where: str) -> dict:
    return _fields(body, path, where, strings=("cluster", "user", "namespace"), always=("cluster", "user"))


def _user(body: dict, path: str, where: str) -> dict:
    out = _fields(body, path, where, strings=("client-certificate", "client-key", "token", "tokenFile", "as",
                                              "as-uid", "username", "password"),
                  data=("client-certificate-data", "client-key-data"))
    groups = _strings(body.get("as-groups"), path, f"{where}.as-groups")
    if groups:
        out["as-groups"] = groups
    extra = body.get("as-user-extra")
    if extra:
        if not isinstance(extra, dict):
            raise _bad(path, f"{where}.as-user-extra", "must be a mapping")
        out["as-user-extra"] = {str(k): _strings(v, path, f"{where}.as-user-extra.{k}") for k, v in extra.items()}
    provider = body.get("auth-provider")
    if provider is not None:
        if not isinstance(provider, dict):
            raise _bad(path, f"{where}.auth-provider", "must be a mapping")
        settings = provider.get("config")
        if settings is not None and not isinstance(settings, dict):
            raise _bad(path, f"{where}.auth-provider.config", "must be a mapping")
        out["auth-provider"] = {"config": None if settings is None else {str(k): _string(v, path, where)
                                                                       for k, v in settings.items()},
                                "name": _string(provider.get("name"), path, f"{where}.auth-provider.name")}
    exec_ = body.get("exec")
    if exec_ is not None:
        if not isinstance(exec_, dict):
            raise _bad(path, f"{where}.exec", "must be a mapping")
        out["exec"] = _exec(exec_, path, f"{where}.exec")
    return out


def _exec(body: dict, path: str, where: str) -> dict:
    out = _fields(body, path, where, strings=("command", "apiVersion", "installHint", "interactiveMode"),
                  booleans=("provideClusterInfo",), always=("command", "provideClusterInfo"))
    out.pop("extensions", None)
    out["args"] = _strings(body.get("args"), path, f"{where}.args")
    env = body.get("env")
    if env is not None:
        if not isinstance(env, list) or not all(isinstance(e, dict) for e in env):
            raise _bad(path, f"{where}.env", "must be a list of name/value mappings")
        env = [{"name": _string(e.get("name"), path, f"{where}.env"),
                "value": _string(e.get("value"), path, f"{where}.env")} for e in env]
    out["env"] = env
    if not out.get("interactiveMode") and out.get("apiVersion") in _INTERACTIVE_DEFAULT_VERSIONS:
        out["interactiveMode"] = "IfAvailable"  # client-go's default for these versions, applied on reading
    return out


def _preferences(body: dict, path: str) -> dict:
    return _fields(body, path, "preferences", booleans=("colors",))


_NORMALIZE = {"clusters": _cluster, "contexts": _context, "users": _user}


# -- which files ----------------------------------------------------------------------------------

@dataclass
class Access:
    """The kubeconfig files a config subcommand reads and writes (--kubeconfig, $KUBECONFIG, ~/.kube/config)."""

    explicit: str | None = None

    def env_files(self) -> list[str]:
        files: list[str] = []
        for part in (os.environ.get("KUBECONFIG") or "").split(os.pathsep):
            if part and part not in files:
                files.append(part)
        return files

    def precedence(self) -> list[str]:
        if self.explicit:
            return [self.explicit]
        return self.env_files() or [self.global_file()]

    @staticmethod
    def global_file() -> str:
        from kubelite.client.kubeconfig import home

        return os.path.join(str(home()), ".kube", "config")

    def default_file(self) -> str:
        """Where a new stanza goes."""
        if self.explicit:
            return self.explicit
        files = self.env_files()
        if len(files) == 1:
            return files[0]
        if files:
            return next((f for f in files if os.path.exists(f)), files[-1])
        return self.global_file()

    def starting(self) -> Config:
        """The merged configuration: the first file to name a stanza wins, and so for current-context."""
        merged = Config()
        for path in self.precedence():
            if not os.path.exists(path):
                continue
            one = load_file(path)
            for kind in KINDS:
                for name, body in one.table(kind).items():
                    if name not in merged.table(kind):
                        merged.table(kind)[name] = body
                        merged.origin[(kind, name)] = path
            if not merged.current_context:
                merged.current_context = one.current_context
            for key, value in one.preferences.items():
                merged.preferences.setdefault(key, value)
            if merged.extensions is None:
                merged.extensions = one.extensions
        return merged


# -- writing --------------------------------------------------------------------------------------

def write_file(config: Config, path: str) -> None:
    parent = os.path.dirname(path)
    if parent and not os.path.exists(parent):
        os.makedirs(parent, mode=0o755, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # an existing file keeps its mode
    with os.fdopen(fd, "w") as f:
        f.write(config.to_yaml())


class _Locks:
    """kubectl's FILE.lock for each candidate file, taken in sorted order and always released."""

    def __init__(self, files: list[str]):
        self.files = sorted(files)
        self.taken: list[str] = []

    def __enter__(self):
        try:
            for path in self.files:
                parent = os.path.dirname(path)
                if parent:
                    os.makedirs(parent, mode=0o755, exist_ok=True)
                lock = path + ".lock"
                try:
                    os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                except FileExistsError:
                    raise ConfigError(f"error: open {lock}: file exists") from None
                self.taken.append(lock)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *_):
        for lock in self.taken:
            try:
                os.remove(lock)
            except OSError:
                pass
        self.taken = []


_FILE_REFS = {"clusters": ("certificate-authority",), "users": ("client-certificate", "client-key", "tokenFile")}


def relativize(kind: str, body: dict, destination: str) -> dict:
    """File references become relative to the kubeconfig's directory when they lie below it."""
    base = os.path.abspath(os.path.dirname(destination))
    body = copy.deepcopy(body)
    holders = [(body, key) for key in _FILE_REFS.get(kind, ())]
    if kind == "users" and isinstance(body.get("exec"), dict) and os.sep in (body["exec"].get("command") or ""):
        holders.append((body["exec"], "command"))
    for holder, key in holders:
        value = holder.get(key)
        if not value:
            continue
        if not os.path.isabs(value):
            value = os.path.normpath(os.path.join(base, value))
        relative = os.path.relpath(value, base)
        holder[key] = value if relative.startswith("..") else relative
    return body


def modify(access: Access, new: Config, relativize_paths: bool) -> None:
    """Write `new` (the starting configuration, changed) back as client-go's ModifyConfig does."""
    with _Locks(access.precedence()):
        start = access.starting()
        if _same(start, new):
            return
        if start.current_context != new.current_context:
            _write_current_context(access, new.current_context)
        if start.preferences != new.preferences:
            _write_preferences(access, new.preferences)
        for kind in KINDS:
            _write_changed(access, start, new, kind, relativize_paths)
        for kind in KINDS:
            for name in start.table(kind):
                if name not in new.table(kind):
                    destination = start.origin.get((kind, name)) or access.default_file()
                    target = load_file(destination)
                    target.table(kind).pop(name, None)
                    write_file(target, destination)


def _same(a: Config, b: Config) -> bool:
    return (a.clusters, a.contexts, a.users, a.current_context, a.preferences) == \
        (b.clusters, b.contexts, b.users, b.current_context, b.preferences)


def _write_changed(access: Access, start: Config, new: Config, kind: str, relativize_paths: bool) -> None:
    for name, body in new.table(kind).items():
        if name in start.table(kind) and start.table(kind)[name] == body \
                and start.origin.get((kind, name)) == new.origin.get((kind, name)):
            continue
        destination = new.origin.get((kind, name)) or access.default_file()
        target = load_file(destination)
        if relativize_paths and kind != "contexts":
            body = relativize(kind, body, destination)
        target.table(kind)[name] = copy.deepcopy(body)
        write_file(target, destination)


def _write_current_context(access: Access, name: str) -> None:
    if access.explicit or name:
        destination = access.explicit or access.default_file()
        target = load_file(destination)
        target.current_context = name
        write_file(target, destination)
        return
    for path in access.precedence():  # clearing: the first file that sets one
        if os.path.exists(path):
            target = load_file(path)
            if target.current_context:
                target.current_context = ""
                write_file(target, path)
                return
    raise ConfigError("error: no config found to write context")


def _write_preferences(access: Access, preferences: dict) -> None:
    for path in access.precedence():
        target = load_file(path)
        if access.explicit or target.preferences != preferences:
            target.preferences = copy.deepcopy(preferences)
            write_file(target, path)
            return
    raise ConfigError("error: no config found to write preferences")
