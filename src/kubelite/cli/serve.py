"""`kubelite serve`: run the embedded Kubernetes API server over HTTPS, in the foreground."""
from __future__ import annotations

import argparse
import os
import pathlib
import sys


def default_home() -> pathlib.Path:
    return pathlib.Path(os.environ.get("KUBELITE_HOME") or pathlib.Path.home() / ".kubelite")


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kubelite serve",
                                     description="Serve the Kubernetes API over HTTPS (foreground).")
    parser.add_argument("--data-dir", default=None,
                        help="where objects, the CA, certificate and token live (default: $KUBELITE_HOME "
                             "or ~/.kubelite)")
    parser.add_argument("--address", "--bind-address", dest="address", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6443, help="0 picks a free port")
    parser.add_argument("--write-kubeconfig", metavar="FILE", default=None,
                        help="write a kubeconfig for this server (CA and token embedded)")
    parser.add_argument("--nodes", type=int, default=1, help="how many simulated nodes run pods (default 1)")
    parser.add_argument("--storage", default=None,
                        help="storage URL (default: sqlite database in the data dir; memory:// for tests)")
    from kubelite.cli.help import installed

    args = installed(parser, "serve").parse_args(argv)

    data_dir = pathlib.Path(args.data_dir).expanduser() if args.data_dir else default_home()
    try:
        server = build_server(data_dir, args.storage, args.nodes)
    except Exception as err:  # a clear one-line error, never a traceback
        print(f"error: cannot start the API server in {data_dir}: {err}", file=sys.stderr)
        return 1
    from kubelite.server.serve import bind, serve

    try:
        sock = bind(args.address, args.port)
    except OSError as err:
        print(f"error: cannot listen on {args.address}:{args.port}: {err.strerror or err}", file=sys.stderr)
        return 1
    port = sock.getsockname()[1]
    host = f"[{args.address}]" if ":" in args.address else args.address
    url = f"https://{host}:{port}"
    if args.write_kubeconfig:
        from kubelite.server.kubeconfig import write_kubeconfig

        write_kubeconfig(args.write_kubeconfig, url, server.tls.ca_pem(), server.token)

    server.cluster.advertise(args.address, port)
    server.cluster.start()

    def started():
        print(f"kubelite API server listening on {url} (data in {data_dir})", file=sys.stderr, flush=True)

    from kubelite.server.storage.compactor import Compactor

    # Only a serving process compacts (as kube-apiserver drives etcd); in-process users do not.
    compactor = Compactor(server.store).start()
    try:
        serve(server.app, sock, str(server.tls.server_cert), str(server.tls.server_key), on_started=started)
    finally:
        compactor.stop()
        server.close()
    return 0


class LocalServer:
    """Everything a served data directory holds: the cluster, its TLS files and token."""

    def __init__(self, data_dir: pathlib.Path, storage: str | None = None, nodes: int = 1):
        from kubelite.server.auth import ensure_token
        from kubelite.server.cluster import Cluster
        from kubelite.server.tls import ensure_tls

        from kubelite.server.private import private_dir

        private_dir(data_dir)
        self.tls = ensure_tls(data_dir / "pki")
        self.token = ensure_token(data_dir)
        self.cluster = Cluster(storage or str(data_dir / "state.db"), token=self.token, nodes=nodes,
                               ca=self.tls.ca_pem())
        self.store = self.cluster.store
        self.api = self.cluster.api
        self.app = self.cluster.app

    def close(self) -> None:
        self.cluster.close()


def build_server(data_dir: pathlib.Path, storage: str | None = None, nodes: int = 1) -> LocalServer:
    return LocalServer(data_dir, storage, nodes)
