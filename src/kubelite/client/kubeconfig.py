"""Reading kubeconfig files the way kubectl does, and resolving them into connection settings.

Where the configuration comes from (kubectl's loading rules):
  1. `--kubeconfig FILE`: only that file, which must exist;
  2. `$KUBECONFIG`: a list of files separated by `os.pathsep`, merged; missing ones are skipped;
  3. `~/.kube/config`.
When merging, the first file to name a cluster, user or context wins, and so does the first
file that sets `current-context` (kubectl's precedence). When no file exists anywhere, the
result is `None` and the caller uses the embedded local cluster.

Files are read with PyYAML only when there is one to read (startup speed).
"""
from __future__ import annotations

import binascii
import os
import pathlib

from kubelite.record import Record, factory


class ConfigError(Exception):
    """A kubeconfig problem; `str()` is the full line kubectl prints (without a trailing newline)."""


class Overrides(Record):
    """What the command line says about the connection (`--context`, `--cluster`, ...)."""

    kubeconfig: str | None = None
    context: str | None = None
    cluster: str | None = None
    user: str | None = None
    namespace: str | None = None
    server: str | None = None
    token: str | None = None
    insecure_skip_tls_verify: bool = False
    client_certificate: str | None = None  # --client-certificate, --client-key: files
    client_key: str | None = None
    certificate_authority: str | None = None
    tls_server_name: str | None = None
    request_timeout: float | None = None
    as_user: str | None = None  # --as, --as-group, --as-uid: impersonation
    as_groups: tuple[str, ...] = ()
    as_uid: str | None = None


class KubeConfig(Record):
    """A merged kubeconfig: named clusters, users and contexts, plus where each came from."""

    clusters: dict[str, dict] = factory(dict)
    users: dict[str, dict] = factory(dict)
    contexts: dict[str, dict] = factory(dict)
    current_context: str = ""
    preferences: dict = factory(dict)
    files: list[pathlib.Path] = factory(list)  # existing files, in precedence order
    # name -> file that defined it, so that edits go back to the right file
    origin: dict[tuple[str, str], pathlib.Path] = factory(dict)

    def to_dict(self) -> dict:
        """The merged config as kubectl's `config view` prints it (before redaction)."""
        def entries(kind: str, key: str, table: dict) -> list | None:
            # kubectl holds these as maps: `config view` lists them sorted by name
            return [{"name": name, key: dict(table[name])} for name in sorted(table)] or None

        return {
            "apiVersion": "v1",
            "clusters": entries("cluster", "cluster", self.clusters),
            "contexts": entries("context", "context", self.contexts),
            "current-context": self.current_context,
            "kind": "Config",
            "preferences": dict(self.preferences),
            "users": entries("user", "user", self.users),
        }


class Connection(Record):
    """Everything needed to talk to one API server."""

    server: str | None  # None: the embedded local cluster
    namespace: str = "default"
    namespace_explicit: bool = False  # set by -n (enforced against objects from files)
    context: str = ""
    cluster_name: str = ""
    user_name: str = ""
    token: str | None = None
    username: str | None = None
    password: str | None = None
    ca_data: bytes | None = None  # PEM
    cert_data: bytes | None = None  # PEM
    key_data: bytes | None = None  # PEM
    insecure: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    request_timeout: float | None = None
    exec: dict | None = None  # an exec credential plugin (users[].user.exec), validated
    exec_cluster: dict | None = None  # the cluster as such a plugin is told about it
    impersonate_user: str | None = None  # Impersonate-* headers (kubeconfig as/as-groups or --as flags)
    impersonate_groups: tuple[str, ...] = ()
    impersonate_uid: str | None = None
    impersonate_extra: dict | None = None

    @property
    def embedded(self) -> bool:
        return self.server is None


def home() -> pathlib.Path:
    return pathlib.Path(os.environ.get("HOME") or pathlib.Path.home())


def default_paths() -> tuple[list[pathlib.Path], bool]:
    """The files kubectl would consider, and whether they come from $KUBECONFIG."""
    env = os.environ.get("KUBECONFIG")
    if env:
        seen, paths = set(), []
        for part in env.split(os.pathsep):
            if part and part not in seen:
                seen.add(part)
                paths.append(pathlib.Path(part).expanduser())
        return paths, True
    return [home() / ".kube" / "config"], False


def load(explicit: str | None = None) -> KubeConfig | None:
    """The merged kubeconfig, or None when there is no kubeconfig anywhere."""
    if explicit:
        path = pathlib.Path(explicit).expanduser()
        if not path.exists():
            raise ConfigError(f"error: stat {explicit}: no such file or directory")
        return merge([(path, read_file(path))])
    paths, _ = default_paths()
    docs = [(p, read_file(p)) for p in paths if p.is_file()]
    if not docs:
        return None
    return merge(docs)


def read_file(path: pathlib.Path) -> dict:
    from kubelite.client import kubeconfig_yaml

    try:
        text = path.read_text()
    except OSError as err:
        raise ConfigError(f"error: open {path}: {err.strerror or err}") from None
    doc = kubeconfig_yaml.load(text)  # the files kubectl writes, without PyYAML's import
    if doc is not None:
        return doc
    import yaml

    try:
        doc = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as err:
        raise ConfigError(f"error: error loading config file \"{path}\": {_one_line(err)}") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise ConfigError(f"error: error loading config file \"{path}\": the document is not a mapping")
    return doc


def _one_line(err: Exception) -> str:
    return " ".join(str(err).split())


def merge(docs: list[tuple[pathlib.Path, dict]]) -> KubeConfig:
    config = KubeConfig()
    for path, doc in docs:
        config.files.append(path)
        for key, table, item_key in (("clusters", config.clusters, "cluster"), ("users", config.users, "user"),
                                     ("contexts", config.contexts, "context")):
            entries = doc.get(key) or []
            if not isinstance(entries, list):
                raise ConfigError(f"error: error loading config file \"{path}\": {key}: must be a list")
            for index, entry in enumerate(entries):
                if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                    raise ConfigError(f"error: error loading config file \"{path}\": {key}[{index}]: "
                                      "must be a mapping with a name")
                name = entry["name"]
                if name in table:
                    continue  # the first file to define a name wins
                body = entry.get(item_key) or {}
                if not isinstance(body, dict):
                    raise ConfigError(f"error: error loading config file \"{path}\": {key}[{index}].{item_key}: "
                                      "must be a mapping")
                table[name] = dict(body)
                config.origin[(item_key, name)] = path
        current = doc.get("current-context")
        if current and not config.current_context:
            config.current_context = str(current)
            config.origin[("current-context", "")] = path
        prefs = doc.get("preferences")
        if isinstance(prefs, dict) and not config.preferences:
            config.preferences = dict(prefs)
    return config


_PATH_FIELDS = {"cluster": ("certificate-authority",), "user": ("client-certificate", "client-key", "tokenFile")}


def _relative_paths(body: dict, base: pathlib.Path, kind: str) -> dict:
    """kubectl resolves file references relative to the kubeconfig that names them."""
    body = dict(body)
    for key in _PATH_FIELDS.get(kind, ()):
        value = body.get(key)
        if isinstance(value, str) and value and not os.path.isabs(os.path.expanduser(value)):
            body[key] = str(base / value)
    return body


def resolve(config: KubeConfig | None, overrides: Overrides) -> Connection:
    """The connection the command line and the config select, as kubectl picks it."""
    if overrides.server:
        return _with_flags(Connection(server=overrides.server), overrides)
    if config is None:
        return _with_flags(Connection(server=None), overrides)
    context_name = overrides.context or config.current_context
    context: dict = {}
    if context_name:
        if context_name not in config.contexts:
            raise ConfigError(f"Error in configuration: context was not found for specified context: {context_name}")
        context = config.contexts[context_name]
    cluster_name = overrides.cluster or context.get("cluster") or ""
    user_name = overrides.user or context.get("user") or ""
    if overrides.user and user_name not in config.users:
        raise ConfigError(f'error: auth info "{user_name}" does not exist')
    cluster = config.clusters.get(cluster_name) if cluster_name else None
    if cluster_name and (cluster is None or not cluster.get("server")):
        raise ConfigError(f'error: no server found for cluster "{cluster_name}"')
    if cluster is None:
        # A config that selects no cluster: kubelite's embedded cluster rather than localhost:8080.
        conn = Connection(server=None, context=context_name or "")
        conn.namespace = context.get("namespace") or "default"
        return _with_flags(conn, overrides)
    conn = Connection(server=str(cluster["server"]), context=context_name or "", cluster_name=cluster_name,
                      user_name=user_name)
    conn.namespace = context.get("namespace") or "default"
    conn.insecure = bool(cluster.get("insecure-skip-tls-verify"))
    conn.tls_server_name = cluster.get("tls-server-name") or None
    conn.proxy_url = cluster.get("proxy-url") or None
    cluster = _relative_paths(cluster, config.origin[("cluster", cluster_name)].parent, "cluster")
    conn.ca_data = _data_or_file(cluster, "certificate-authority", "cluster", cluster_name)
    user = config.users.get(user_name) or {}
    if user:
        user = _relative_paths(user, config.origin[("user", user_name)].parent, "user")
    _apply_user(conn, user, user_name)
    if user.get("exec"):
        _apply_exec(conn, user["exec"], user_name, config.origin[("user", user_name)].parent, cluster)
    return _with_flags(conn, overrides)


def _apply_exec(conn: Connection, config, user_name: str, base: pathlib.Path, cluster: dict) -> None:
    """An exec credential plugin, used when the user has no token or client certificate itself.
    A command naming a path is relative to the kubeconfig defining it (client-go's rule)."""
    from kubelite.client import execplugin

    if not isinstance(config, dict):
        raise ConfigError(f"error: exec plugin of {user_name}: must be a mapping")
    try:
        config = execplugin.validate(config, user_name)
    except execplugin.ExecConfigError as err:
        raise ConfigError(str(err)) from None
    command = str(config["command"])
    if os.sep in command and not os.path.isabs(os.path.expanduser(command)):
        config["command"] = str(base / command)
    if conn.token or conn.cert_data:
        return
    conn.exec = config
    conn.exec_cluster = execplugin.cluster_info(cluster, conn.ca_data)


def _apply_user(conn: Connection, user: dict, name: str) -> None:
    conn.token = user.get("token") or None
    token_file = user.get("tokenFile")
    if not conn.token and token_file:
        try:
            conn.token = pathlib.Path(os.path.expanduser(token_file)).read_text().strip()
        except OSError as err:
            raise ConfigError(f"error: open {token_file}: {err.strerror or err}") from None
    conn.username = user.get("username") or None
    conn.password = user.get("password") or None
    conn.impersonate_user = user.get("as") or None
    conn.impersonate_groups = tuple(str(g) for g in user.get("as-groups") or ())
    conn.impersonate_uid = user.get("as-uid") or None
    extra = user.get("as-user-extra")
    conn.impersonate_extra = {str(k): [str(v) for v in vals or ()] for k, vals in extra.items()} \
        if isinstance(extra, dict) else None
    conn.cert_data, conn.key_data = _client_pair(user.get("client-certificate-data"), user.get("client-certificate"),
                                                 user.get("client-key-data"), user.get("client-key"), name)
    _check_client_pair(conn, name)


def _client_pair(cert_data, cert_path, key_data, key_path, name: str) -> tuple[bytes | None, bytes | None]:
    """A client certificate and key; both unreadable files are reported together, as client-go does."""
    results, errors = [], []
    for key, data, path in (("client-certificate", cert_data, cert_path), ("client-key", key_data, key_path)):
        try:
            results.append(_data_or_file({key + "-data": data, key: path}, key, "user", name))
        except ConfigError as err:
            results.append(None)
            errors.append(str(err).removeprefix("error: "))
    if len(errors) == 1:
        raise ConfigError("error: " + errors[0])
    if errors:
        raise ConfigError("Error in configuration: \n" + "\n".join("* " + e for e in errors))
    return results[0], results[1]


def _check_client_pair(conn: Connection, name: str) -> None:
    if bool(conn.cert_data) != bool(conn.key_data):
        missing = "client-key-data or client-key" if conn.cert_data else "client-cert-data or client-cert"
        raise ConfigError(f"error: {missing} must be specified for {name} to use the clientCert authentication method.")


def _data_or_file(body: dict, key: str, kind: str, name: str) -> bytes | None:
    data = body.get(key + "-data")
    if data:
        try:
            return binascii.a2b_base64(str(data))  # base64.b64decode without its import
        except ValueError:
            raise ConfigError(f"error: {kind} {name}: {key}-data: illegal base64 data") from None
    path = body.get(key)
    if path:
        try:
            return pathlib.Path(os.path.expanduser(str(path))).read_bytes()
        except OSError as err:
            label = "client-cert" if key == "client-certificate" else key  # client-go's word
            raise ConfigError(f"error: unable to read {label} {path} for {name} due to open {path}: "
                              f"{(err.strerror or str(err)).lower()}") from None
    return None


def _with_flags(conn: Connection, overrides: Overrides) -> Connection:
    if overrides.namespace:
        conn.namespace = overrides.namespace
        conn.namespace_explicit = True
    if overrides.token:
        conn.token = overrides.token
    if overrides.client_certificate or overrides.client_key:
        # The flags name files; client-go reports them for an unnamed user ("for  due to").
        cert, key = _client_pair(None, overrides.client_certificate, None, overrides.client_key, "")
        conn.cert_data = cert or conn.cert_data
        conn.key_data = key or conn.key_data
        _check_client_pair(conn, "")
    if overrides.certificate_authority:
        conn.ca_data = _data_or_file({"certificate-authority": overrides.certificate_authority},
                                     "certificate-authority", "cluster", "")
    if overrides.tls_server_name:
        conn.tls_server_name = overrides.tls_server_name
    if overrides.insecure_skip_tls_verify:
        conn.insecure = True
    if overrides.as_user:
        conn.impersonate_user = overrides.as_user
    if overrides.as_groups:
        conn.impersonate_groups = tuple(overrides.as_groups)
    if overrides.as_uid:
        conn.impersonate_uid = overrides.as_uid
    conn.request_timeout = overrides.request_timeout
    return conn
