"""`kubelite version`: the client version, as kubectl prints its own."""
from __future__ import annotations

import argparse
import json


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kubelite version")
    parser.add_argument("-o", "--output", choices=["json", "yaml"], default=None)
    parser.add_argument("--client", action="store_true", help="accepted for kubectl compatibility")
    args = parser.parse_args(argv)

    from kubelite import KUBERNETES_VERSION, __version__

    info = {"clientVersion": {"kubelite": __version__, "kubernetesVersion": KUBERNETES_VERSION}}
    if args.output == "json":
        print(json.dumps(info, indent=2))
    elif args.output == "yaml":
        print(f"clientVersion:\n  kubelite: {__version__}\n  kubernetesVersion: \"{KUBERNETES_VERSION}\"")
    else:
        print(f"kubelite version: v{__version__} (Kubernetes API {KUBERNETES_VERSION})")
    return 0
