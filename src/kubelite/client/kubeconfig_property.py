"""`config set` / `config unset`: a dotted PROPERTY_NAME walked through kubectl's in-memory kubeconfig.

kubectl resolves the name against the field names of client-go's internal types (not the file's:
a user's `as` is `act-as` there), where a map level (clusters, contexts, users) takes as its key every
part up to the next part that names a field of the map's values, so `clusters.my.cluster.server`
addresses the `server` of cluster `my.cluster`. The values below are those types, field by field,
with their zero values; the messages are kubectl's.
"""
from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from kubelite.client.kubeconfig import ConfigError
from kubelite.client.kubeconfig_edit import Config

STR, BOOL, BYTES, STRINGS, POINTER, OBJECTS, ORIGIN = "string", "bool", "bytes", "strings", "pointer", "objects", "origin"


@dataclass(frozen=True)
class Struct:
    name: str                  # as Go prints the type: api.Cluster
    fields: tuple              # ((internal json name, file key or None, kind), ...)

    def kinds(self) -> dict:
        return {name: kind for name, _, kind in self.fields}


@dataclass(frozen=True)
class Map:
    values: object             # Struct, or STRINGS for act-as-user-extra


PREFERENCES = Struct("api.Preferences", (("colors", "colors", BOOL), ("extensions", "extensions", OBJECTS)))
CLUSTER = Struct("api.Cluster", (
    ("", None, ORIGIN), ("server", "server", STR), ("tls-server-name", "tls-server-name", STR),
    ("insecure-skip-tls-verify", "insecure-skip-tls-verify", BOOL),
    ("certificate-authority", "certificate-authority", STR),
    ("certificate-authority-data", "certificate-authority-data", BYTES), ("proxy-url", "proxy-url", STR),
    ("disable-compression", "disable-compression", BOOL), ("extensions", "extensions", OBJECTS)))
USER = Struct("api.AuthInfo", (
    ("", None, ORIGIN), ("client-certificate", "client-certificate", STR),
    ("client-certificate-data", "client-certificate-data", BYTES), ("client-key", "client-key", STR),
    ("client-key-data", "client-key-data", BYTES), ("token", "token", STR), ("tokenFile", "tokenFile", STR),
    ("act-as", "as", STR), ("act-as-uid", "as-uid", STR), ("act-as-groups", "as-groups", STRINGS),
    ("act-as-user-extra", "as-user-extra", Map(STRINGS)), ("username", "username", STR),
    ("password", "password", STR), ("auth-provider", "auth-provider", POINTER), ("exec", "exec", POINTER),
    ("extensions", "extensions", OBJECTS)))
CONTEXT = Struct("api.Context", (
    ("", None, ORIGIN), ("cluster", "cluster", STR), ("user", "user", STR), ("namespace", "namespace", STR),
    ("extensions", "extensions", OBJECTS)))
CONFIG = Struct("api.Config", (
    ("kind", None, STR), ("apiVersion", None, STR), ("preferences", "preferences", PREFERENCES),
    ("clusters", "clusters", Map(CLUSTER)), ("users", "users", Map(USER)), ("contexts", "contexts", Map(CONTEXT)),
    ("current-context", "current-context", STR), ("extensions", None, OBJECTS)))


@dataclass
class Step:
    value: str
    kind: object


def parse(path: str) -> list[Step]:
    """The steps a property name stands for, or kubectl's complaint about it."""
    parts = path.split(".")
    steps: list[Step] = []
    current: object = CONFIG
    i = 0
    while i < len(parts):
        if isinstance(current, Map):
            values = current.values
            if not isinstance(values, Struct):
                raise ConfigError(f"error: {values if values != STRINGS else 'string'} is not of type struct")
            name = _name_step(parts[i:], set(values.kinds()))
            steps.append(Step(name, values))
            i += len(name.split("."))
            current = values
        elif isinstance(current, Struct):
            part = parts[i]
            kinds = current.kinds()
            if part not in kinds:
                raise ConfigError(f"error: unable to parse {path} after {_go_steps(steps)} at {current.name}")
            steps.append(Step(part, kinds[part]))
            i += 1
            current = kinds[part]
        elif current == OBJECTS:
            raise ConfigError(f"error: unable to parse {path}: extensions cannot be addressed")
        else:
            raise ConfigError(f"error: unable to parse one or more field values of {path}")
    return steps


def _name_step(parts: list[str], fields: set) -> str:
    """A map key runs up to (not including) the next part naming a field of the map's values."""
    for index, part in enumerate(parts[1:], start=1):
        if part in fields:
            return ".".join(parts[:index])
    return ".".join(parts)


def _go_steps(steps: list[Step]) -> str:
    # Go prints the steps' type pointers as addresses; any address reads the same to a person
    return "[" + " ".join(f"{{{s.value} 0xc000{0x100000 + 0x200 * n:06x}}}" for n, s in enumerate(steps)) + "]"


# -- the walk ---------------------------------------------------------------------------------------

def apply(config: Config, path: str, value: str, unset: bool, raw_bytes: bool) -> Config:
    """`config` with the property set (or unset), as kubectl's walk leaves it."""
    steps = parse(path)
    tree = _to_tree(config)
    walker = _Walk(steps, value, unset, raw_bytes)
    walker.visit(tree, "root", CONFIG)  # the root is a struct: never replaced
    return _from_tree(tree["root"], config)


class _Walk:
    def __init__(self, steps: list[Step], value: str, unset: bool, raw_bytes: bool):
        self.steps, self.index = steps, 0
        self.value, self.unset, self.raw_bytes = value, unset, raw_bytes

    def more(self) -> bool:
        return self.index < len(self.steps)

    def pop(self) -> str:
        if self.more():
            self.index += 1
            return self.steps[self.index - 1].value
        return ""

    def visit(self, holder: dict, key: str, kind) -> None:
        step = self.pop()
        current = holder[key]
        if isinstance(kind, Map) or kind == OBJECTS:
            self._map(current, step, kind)
        elif kind in (STR, ORIGIN):
            holder[key] = self.value
        elif kind == BYTES:
            holder[key] = None if self.unset else self._bytes()
        elif kind == BOOL:
            holder[key] = _to_bool(self.value)
        elif kind == STRINGS:
            raise ConfigError("error: unrecognized slice type. string")
        elif isinstance(kind, Struct):
            self._struct(current, step, kind)
        else:  # a pointer (auth-provider, exec): kubectl cannot walk into one either (it panics)
            raise ConfigError(f"error: unrecognized type: {key} cannot be set as a whole")

    def _map(self, current: dict, step: str, kind) -> None:
        if not self.more() and not self.unset:
            raise ConfigError(f"error: can't set a map to a value: {_go_map(current)}")
        if not self.more():
            current.pop(step, None)
            return
        if step not in current:
            if self.unset:
                raise ConfigError(f"error: current map key `{step}` is invalid")
            current[step] = _zero(kind.values)
        self.visit(current, step, kind.values)

    def _struct(self, current: dict, step: str, kind: Struct) -> None:
        kinds = kind.kinds()
        if step not in kinds:
            raise ConfigError(f'error: unable to locate path config.navigationStep{{stepValue:"{step}", '
                              f"stepType:reflect.Type(nil)}} under {_go_struct(current, kind)}")
        field_kind = kinds[step]
        if (isinstance(field_kind, Map) or field_kind == OBJECTS) and current[step] is None:
            current[step] = {}
            if not self.more() and self.unset:
                return
        if not self.more() and self.unset:
            current[step] = _zero(field_kind)
            return
        self.visit(current, step, field_kind)

    def _bytes(self) -> bytes:
        if self.raw_bytes:
            return self.value.encode()
        return _go_b64decode(self.value)


def _to_bool(text: str) -> bool:
    if not text:
        return False
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise ConfigError(f'error: strconv.ParseBool: parsing "{text}": invalid syntax')


_B64 = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _go_b64decode(text: str) -> bytes:
    """Standard, padded base64, failing at the byte Go's decoder names (line breaks are skipped)."""
    data = text.replace("\r", "").replace("\n", "").encode()
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        pass
    for index, byte in enumerate(data):
        if byte not in _B64 and byte != ord("="):
            position = index
            break
    else:
        position = len(data) - (len(data) % 4 or 4)  # the quantum that is cut short or mis-padded
        padding = data.find(b"=")
        if 0 <= padding < position:
            position = padding
    raise ConfigError(f"error: error decoding input value: illegal base64 data at input byte {max(position, 0)}")


def _go_map(value: dict) -> str:
    return "map[" + " ".join(f"{k}:0xc000{0x300000 + 0x100 * n:06x}" for n, k in enumerate(sorted(value))) + "]"


def _go_struct(value: dict, kind: Struct) -> str:
    parts = []
    for name, _, field_kind in kind.fields:
        v = value.get(name)
        if field_kind == BOOL:
            parts.append("true" if v else "false")
        elif field_kind == OBJECTS:
            parts.append(_go_map(v or {}).replace("0xc", "0xc", 1))
        else:
            parts.append(str(v or ""))
    return "{" + " ".join(parts) + "}"


# -- between kubeconfig_edit.Config and the internal field tree -------------------------------------

def _zero(kind):
    if isinstance(kind, Struct):
        return {name: _zero(k) for name, _, k in kind.fields}
    if kind == BOOL:
        return False
    if kind in (STR, ORIGIN):
        return ""
    return None


def _struct_from_body(body: dict, kind: Struct, origin: str = "") -> dict:
    out = _zero(kind)
    for name, key, field_kind in kind.fields:
        if field_kind == ORIGIN:
            out[name] = origin
        elif key is not None and key in body:
            value = body[key]
            if field_kind == BYTES:
                value = base64.b64decode(value) if value else None
            elif field_kind == OBJECTS:
                value = {e["name"]: e["extension"] for e in value} if value else None
            out[name] = value
    return out


def _body_from_struct(tree: dict, kind: Struct) -> dict:
    body = {}
    for name, key, field_kind in kind.fields:
        value = tree.get(name)
        if key is None or value in (None, "", False, b"", {}, []):
            continue
        if field_kind == BYTES:
            value = base64.b64encode(value).decode()
        elif field_kind == OBJECTS:
            value = [{"extension": value[n], "name": n} for n in sorted(value)]
        body[key] = value
    for always in {"api.Cluster": ("server",), "api.Context": ("cluster", "user")}.get(kind.name, ()):
        body.setdefault(always, "")
    return body


def _to_tree(config: Config) -> dict:
    tree = _zero(CONFIG)
    tree["preferences"] = _struct_from_body(config.preferences, PREFERENCES)
    tree["current-context"] = config.current_context
    for kind, struct in (("clusters", CLUSTER), ("users", USER), ("contexts", CONTEXT)):
        tree[kind] = {name: _struct_from_body(body, struct, config.origin.get((kind, name), ""))
                      for name, body in config.table(kind).items()}
    return {"root": tree}


def _from_tree(tree: dict, old: Config) -> Config:
    from kubelite.client.kubeconfig_edit import from_document

    new = Config(current_context=tree["current-context"] or "", extensions=old.extensions)
    new.preferences = _body_from_struct(tree["preferences"] or {}, PREFERENCES)
    for kind, struct in (("clusters", CLUSTER), ("users", USER), ("contexts", CONTEXT)):
        for name, value in (tree[kind] or {}).items():
            body = _body_from_struct(value, struct)
            # through the reader's normalization, so a set value reads as a loaded one would
            one = from_document({kind: [{"name": name, struct_key(kind): body}]}, "")
            new.table(kind)[name] = one.table(kind)[name]
            if value.get(""):
                new.origin[(kind, name)] = value[""]
    return new


def struct_key(kind: str) -> str:
    return {"clusters": "cluster", "contexts": "context", "users": "user"}[kind]
