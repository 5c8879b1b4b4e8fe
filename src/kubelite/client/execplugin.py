"""Exec credential plugins (`users[].user.exec` in a kubeconfig), as client-go runs them.

The plugin is a program printing an ExecCredential (client.authentication.k8s.io/v1 or v1beta1)
whose `status` carries a bearer token or a client certificate and key, optionally with an
`expirationTimestamp`. It learns about the request from `$KUBERNETES_EXEC_INFO` (whether it may
talk to the user, and the cluster when `provideClusterInfo` is set), gets the kubeconfig's `env`
on top of ours, and writes its own messages to our stderr.

The credential is kept for the life of the process and fetched again once it has expired or
the server turned it down (401), as client-go does; nothing is written to disk.
"""
from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from kubelite.client.errors import ConnectionFailed

API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
_NOT_INSTALLED = ("It looks like you are trying to use a client-go credential plugin that is not installed.\n\n"
                  "To learn more about this feature, consult the documentation available at:\n"
                  "      https://kubernetes.io/docs/reference/access-authn-authz/authentication/"
                  "#client-go-credential-plugins")
_KIND_STRUCT = ('struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
                'Kind string "json:\\"kind,omitempty\\"" }')


class ExecConfigError(ValueError):
    """The kubeconfig's exec section cannot be used; the message is kubectl's line."""


@dataclass
class Credential:
    token: str | None = None
    cert_data: bytes | None = None
    key_data: bytes | None = None
    expires: datetime.datetime | None = None

    def expired(self, now: datetime.datetime | None = None) -> bool:
        now = now or datetime.datetime.now(datetime.timezone.utc)
        return self.expires is not None and now >= self.expires


def validate(config: dict, user_name: str) -> dict:
    """The exec section with client-go's defaults, or ExecConfigError."""
    api_version = str(config.get("apiVersion") or "")
    if api_version not in API_VERSIONS:
        raise ExecConfigError(f'error: exec plugin: invalid apiVersion "{api_version}"')
    if not config.get("command"):
        raise ExecConfigError(f"error: command must be specified for {user_name} to use exec authentication plugin")
    mode = config.get("interactiveMode") or ""
    if not mode:
        if api_version.endswith("/v1"):
            raise ExecConfigError(f"error: interactiveMode must be specified for {user_name} to use exec "
                                  "authentication plugin")
        mode = "IfAvailable"
    if mode not in INTERACTIVE_MODES:
        raise ExecConfigError(f'error: invalid interactiveMode: {mode}')
    for index, entry in enumerate(config.get("env") or ()):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ExecConfigError(f"error: exec plugin of {user_name}: env[{index}] must have a name and a value")
    return {**config, "interactiveMode": mode}


def cluster_info(cluster: dict, ca_data: bytes | None) -> dict:
    """What `provideClusterInfo` hands the plugin: the cluster in ExecCredential's field order."""
    import base64

    info: dict = {"server": cluster.get("server", "")}
    if cluster.get("tls-server-name"):
        info["tls-server-name"] = cluster["tls-server-name"]
    if cluster.get("insecure-skip-tls-verify"):
        info["insecure-skip-tls-verify"] = True
    if ca_data:
        info["certificate-authority-data"] = base64.b64encode(ca_data).decode("ascii")
    if cluster.get("proxy-url"):
        info["proxy-url"] = cluster["proxy-url"]
    if cluster.get("disable-compression"):
        info["disable-compression"] = True
    info["config"] = None
    for ext in cluster.get("extensions") or ():
        if isinstance(ext, dict) and ext.get("name") == "client.authentication.k8s.io/exec":
            info["config"] = ext.get("extension")
    return info


class ExecPlugin:
    def __init__(self, config: dict, cluster: dict | None = None):
        self.config = config
        self.cluster = cluster
        self._credential: Credential | None = None

    def credential(self) -> Credential:
        if self._credential is None or self._credential.expired():
            self._credential = self._run()
        return self._credential

    def invalidate(self) -> None:
        """The server refused the credential: the next request asks the plugin again."""
        self._credential = None

    # -- running the plugin ------------------------------------------------------------------------

    def _run(self) -> Credential:
        command = str(self.config["command"])
        executable = command if os.sep in command else shutil.which(command)
        if not executable or not os.path.exists(executable):
            hint = self.config.get("installHint") or ""
            raise _failure(f"exec: executable {command} not found\n\n{_NOT_INSTALLED}" + (f"\n\n{hint}" if hint else ""))
        interactive = self._interactive()
        env = dict(os.environ)
        for entry in self.config.get("env") or ():
            env[entry["name"]] = str(entry.get("value", ""))
        env["KUBERNETES_EXEC_INFO"] = json.dumps(self._exec_info(interactive), separators=(",", ":"))
        try:
            done = subprocess.run([executable, *[str(a) for a in self.config.get("args") or ()]], env=env,
                                  stdin=None if interactive else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=None)
        except OSError as err:
            raise _failure(f"exec: {err.strerror or err}") from None
        if done.returncode != 0:
            raise _failure(f"exec: executable {command} failed with exit code {done.returncode}")
        return self._parse(done.stdout)

    def _interactive(self) -> bool:
        mode = self.config["interactiveMode"]
        if mode == "Never":
            return False
        terminal = sys.stdin is not None and sys.stdin.isatty()
        if mode == "Always" and not terminal:
            raise _failure("exec plugin cannot support interactive mode: standard input is not a terminal")
        return terminal

    def _exec_info(self, interactive: bool) -> dict:
        spec: dict = {}
        if self.config.get("provideClusterInfo") and self.cluster is not None:
            spec["cluster"] = self.cluster
        spec["interactive"] = interactive
        return {"kind": "ExecCredential", "apiVersion": self.config["apiVersion"], "spec": spec}

    def _parse(self, stdout: bytes) -> Credential:
        import yaml

        try:
            doc = yaml.safe_load(stdout.decode("utf-8", "replace"))
        except yaml.YAMLError as err:
            raise _failure(f"decoding stdout: {' '.join(str(err).split())}") from None
        if not isinstance(doc, dict):
            raise _failure("decoding stdout: couldn't get version/kind; json parse error: json: cannot unmarshal "
                           f"{_go_type(doc)} into Go value of type {_KIND_STRUCT}")
        if doc.get("apiVersion") != self.config["apiVersion"]:
            raise _failure(f"exec plugin is configured to use API version {self.config['apiVersion']}, plugin "
                           f"returned version {doc.get('apiVersion') or ''}")
        status = doc.get("status")
        if not isinstance(status, dict):
            raise _failure("exec plugin didn't return a status field")
        token = status.get("token") or None
        cert, key = status.get("clientCertificateData"), status.get("clientKeyData")
        if not token and not (cert and key):
            raise _failure("exec plugin didn't return a token or cert/key pair")
        if bool(cert) != bool(key):
            raise _failure("exec plugin returned only certData or keyData")
        return Credential(token=str(token) if token else None, cert_data=cert.encode() if cert else None,
                          key_data=key.encode() if key else None, expires=_time(status.get("expirationTimestamp")))


def _failure(text: str) -> ConnectionFailed:
    return ConnectionFailed(f"Unable to connect to the server: getting credentials: {text}")


def _go_type(value) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    return "null"


def _time(value) -> datetime.datetime | None:
    if isinstance(value, datetime.datetime):  # YAML reads unquoted timestamps itself
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    if not value:
        return None
    try:
        return datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise _failure(f'parsing time "{value}" as "2006-01-02T15:04:05Z07:00": cannot parse') from None


def auth(plugin: ExecPlugin):
    """An httpx.Auth sending the plugin's token, and dropping it when the server answers 401."""
    import httpx

    class ExecAuth(httpx.Auth):
        def auth_flow(self, request):
            credential = plugin.credential()
            if credential.token:
                request.headers["Authorization"] = f"Bearer {credential.token}"
            response = yield request
            if response.status_code == 401:
                plugin.invalidate()

    return ExecAuth()
