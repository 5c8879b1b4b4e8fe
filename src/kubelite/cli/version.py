"""`kubelite version`: the client's version and, unless --client, the server's, laid out as
kubectl version prints them (text, -o json or -o yaml)."""
from __future__ import annotations

import os
import sys

from kubelite.cli import common

# The Kustomize release whose behaviour kubelite's kustomize layer follows.
KUSTOMIZE_VERSION = "v5.5.0"

EXAMPLES = """\
  # The client and server versions
  kubelite version

  # Only the client, as JSON
  kubelite version --client -o json
"""


def build_parser() -> common.Parser:
    p = common.parser("version", "Print the client and server version information.", EXAMPLES)
    common.add_connection_flags(p)
    p.add_argument("-n", "--namespace", help="accepted for kubectl compatibility")
    p.add_argument("-o", "--output", default="", help="json|yaml")
    p.add_argument("--client", action="store_true", help="only the client version (no server needed)")
    from kubelite.cli.help import installed

    return installed(p, "version")


def run(argv: list[str]) -> int:
    return common.run(build_parser(), argv, _version)


def client_version() -> dict:
    """kubectl's clientVersion fields, describing kubelite and the Kubernetes API it speaks."""
    from kubelite import KUBERNETES_VERSION, __version__

    major, _, minor = KUBERNETES_VERSION.partition(".")
    machine = _machine()
    machine = {"x86_64": "amd64", "aarch64": "arm64"}.get(machine, machine.lower())
    return {"major": major, "minor": minor, "gitVersion": f"v{KUBERNETES_VERSION}.0-kubelite.{__version__}",
            "gitCommit": "", "gitTreeState": "", "buildDate": "", "goVersion": f"python{_python_version()}",
            "compiler": "cpython", "platform": f"{sys.platform}/{machine}"}


# platform's answers without its import (a tenth of `version --client`), where they are plain to read.

def _machine() -> str:
    if not hasattr(os, "uname"):
        import platform

        return platform.machine()
    machine = os.uname().machine
    return "" if machine == "unknown" else machine  # platform reads "unknown" as ""


def _python_version() -> str:
    text = sys.version.split()[0]
    if text == "%d.%d.%d" % sys.version_info[:3]:
        return text
    import platform

    return platform.python_version()


def _version(args) -> int:
    if args.output not in ("", "json", "yaml"):
        raise common.CommandError("error: --output must be 'yaml' or 'json'")
    info: dict = {"clientVersion": client_version()}
    server_error = None
    if not args.client:
        try:
            info["serverVersion"] = common.session(args).transport.json("GET", "/version")
        except Exception as err:  # noqa: BLE001 - kubectl prints the client part, then the error
            server_error = err
    info["kustomizeVersion"] = KUSTOMIZE_VERSION
    if "serverVersion" in info:
        info["serverVersion"] = info.pop("serverVersion")
    if args.output == "json":
        import json

        sys.stdout.write(json.dumps(info, indent=2) + "\n")
    elif args.output == "yaml":
        from kubelite.manifest import to_yaml

        sys.stdout.write(to_yaml(info))
    else:
        sys.stdout.write(f"Client Version: {info['clientVersion']['gitVersion']}\n")
        sys.stdout.write(f"Kustomize Version: {KUSTOMIZE_VERSION}\n")
        if "serverVersion" in info:
            sys.stdout.write(f"Server Version: {info['serverVersion'].get('gitVersion', '')}\n")
    if server_error is not None:
        raise server_error
    return 0
